"""Return values -> the text the model receives."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum, IntEnum, StrEnum

import pytest

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ToolExecutionError


class Level(Enum):
    VIP = "vip"
    NORMAL = 2


class Tone(StrEnum):
    WARM = "warm"


class Rank(IntEnum):
    FIRST = 1


@dataclass
class Customer:
    name: str
    level: Level
    balance: Decimal
    since: dt.date


class Opaque:
    pass


U = uuid.UUID("12345678-1234-5678-1234-567812345678")

CASES = [
    pytest.param(None, "Success", id="none-is-success"),
    pytest.param("plain text", "plain text", id="str-as-is"),
    pytest.param("", "", id="empty-str-as-is"),
    pytest.param('{"already":"json"}', '{"already":"json"}', id="json-looking-str-as-is"),
    pytest.param("长路", "长路", id="non-ascii-str"),
    pytest.param(5, "5", id="int"),
    pytest.param(2**70, str(2**70), id="big-int"),
    pytest.param(2.5, "2.5", id="float"),
    pytest.param(True, "true", id="bool"),
    pytest.param(False, "false", id="false"),
    pytest.param([1, "a", None], '[1,"a",null]', id="list-compact"),
    pytest.param({"name": "长路", "n": [1, 2]}, '{"name":"长路","n":[1,2]}',
                 id="dict-no-ascii-escape"),
    pytest.param((1, 2), "[1,2]", id="tuple"),
    pytest.param({3, 1, 2}, "[1,2,3]", id="set"),
    pytest.param(frozenset({"b"}), '["b"]', id="frozenset"),
    pytest.param(Level.VIP, '"VIP"', id="enum-by-name"),
    pytest.param(Level.NORMAL, '"NORMAL"', id="enum-int-value-by-name"),
    pytest.param(Decimal("9.50"), "9.50", id="decimal-exact"),
    pytest.param(Decimal("0.1"), "0.1", id="decimal-0.1"),
    pytest.param(Decimal("12345678901234567890.000000001"), "12345678901234567890.000000001",
                 id="decimal-long"),
    pytest.param(U, f'"{U}"', id="uuid"),
    pytest.param(dt.datetime(2024, 1, 2, 3, 4, 5), '"2024-01-02T03:04:05"', id="datetime"),
    pytest.param(dt.date(2024, 1, 2), '"2024-01-02"', id="date"),
    pytest.param(dt.time(3, 4), '"03:04:00"', id="time"),
    pytest.param(Customer("长路", Level.VIP, Decimal("1.10"), dt.date(2020, 5, 6)),
                 '{"name":"长路","level":"VIP","balance":1.10,"since":"2020-05-06"}',
                 id="dataclass"),
    pytest.param({"rows": [Customer("a", Level.NORMAL, Decimal("0"), dt.date(2020, 1, 1))],
                  "ids": {U}},
                 f'{{"rows":[{{"name":"a","level":"NORMAL","balance":0,"since":"2020-01-01"}}],'
                 f'"ids":["{U}"]}}', id="nested-mixed"),
    pytest.param({"level": Level.VIP, "n": 1}, '{"level":"VIP","n":1}', id="enum-in-dict"),
]


def run(value):
    def produce():
        return value

    return LocalToolExecutor(produce).execute(ToolExecutionRequest(name="produce",
                                                                   arguments="{}"))


@pytest.mark.parametrize(("value", "expected"), CASES)
def test_return_value_text(value, expected):
    result = run(value)
    assert result.is_error is False
    assert result.text == expected
    if value is not None and not isinstance(value, str):
        json.loads(result.text)  # always valid JSON


@pytest.mark.parametrize(("value", "expected"), [
    pytest.param(Tone.WARM, '"WARM"', id="str-mixin-enum"),
    pytest.param(Rank.FIRST, '"FIRST"', id="int-enum"),
    pytest.param({"tone": Tone.WARM}, '{"tone":"WARM"}', id="str-mixin-enum-in-dict"),
    pytest.param([Rank.FIRST], '["FIRST"]', id="int-enum-in-list"),
])
def test_every_enum_is_serialised_by_name(value, expected):
    assert run(value).text == expected


def test_pydantic_model_is_serialised():
    import pydantic

    class Point(pydantic.BaseModel):
        x: int
        label: str

    assert run(Point(x=1, label="长")).text == '{"x":1,"label":"长"}'
    assert run([Point(x=2, label="b")]).text == '[{"x":2,"label":"b"}]'


@pytest.mark.parametrize("value", [
    pytest.param(Opaque(), id="object"),
    pytest.param({"nested": [Opaque()]}, id="nested-object"),
    pytest.param(float("nan"), id="nan"),
    pytest.param({"x": float("inf")}, id="inf-nested"),
    pytest.param(Decimal("NaN"), id="decimal-nan"),
    pytest.param(b"bytes", id="bytes"),
])
def test_unserialisable_result_is_an_execution_error(value):
    result = run(value)
    assert result.is_error is True
    assert "Success" not in result.text


def test_unserialisable_result_names_its_type():
    assert "Opaque" in run(Opaque()).text
    assert "Opaque" in run({"a": [1, Opaque()]}).text


def test_circular_result_is_an_execution_error_not_a_crash():
    loop: list = []
    loop.append(loop)
    result = run(loop)
    assert result.is_error is True


def test_unserialisable_result_propagates_when_configured():
    def produce():
        return Opaque()

    executor = LocalToolExecutor(produce, propagate_execution_errors=True)
    with pytest.raises(ToolExecutionError) as info:
        executor.execute(ToolExecutionRequest(name="produce", arguments="{}"))
    assert "Opaque" in str(info.value)


def test_returns_through_the_service():
    def produce():
        return {"ok": True}

    service = ToolService().tools(build_local_tools([produce]))
    assert service.execute(ToolExecutionRequest(name="produce")) == ('{"ok":true}', False)
