"""The coercion table, row by row: each JSON value -> each supported Python type.

Every accepted input is checked for the exact value *and* type the tool receives (the
``probe`` fixture records it); every refused input for its message, which must name the
parameter path, the target type and the value received.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from typing import Annotated, Any, Literal, NamedTuple, Optional, TypedDict, Union

import pydantic
import pytest

from agentforge_cli import Float32, Int8, Int16, Int32, Int64, P, ToolExecutionRequest
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ArgumentError


class Color(Enum):
    RED = "red"
    GREEN = 2
    DARK_BLUE = "navy"


class Case(Enum):
    """Two members one string apart only by case: neither is matched ignoring case."""

    UPPER = "Mode"
    LOWER = "mode"


@dataclass
class Item:
    sku: str
    qty: int
    note: str = "none"
    gift: bool | None = None


@dataclass
class Order:
    customer: str
    items: list[Item] = field(default_factory=list)


class Point(TypedDict):
    lat: float
    lon: float


class Options(TypedDict, total=False):
    verbose: bool
    depth: int


class Pair(NamedTuple):
    left: int
    right: str = "r"


U = "12345678-1234-5678-1234-567812345678"

# (annotation, JSON value text, expected value, expected type)
ACCEPTS = [
    # --- str: strings as is, numbers/booleans as their JSON text, containers compact JSON
    pytest.param(str, '"hi"', "hi", str, id="str-string"),
    pytest.param(str, '"  padded  "', "  padded  ", str, id="str-keeps-whitespace"),
    pytest.param(str, '"[1,2]"', "[1,2]", str, id="str-never-parsed-array-text"),
    pytest.param(str, '"5"', "5", str, id="str-numeric-string"),
    pytest.param(str, "5", "5", str, id="str-from-int"),
    pytest.param(str, "-12", "-12", str, id="str-from-negative-int"),
    pytest.param(str, "5.50", "5.50", str, id="str-from-number-exact-text"),
    pytest.param(str, "1e3", "1e3", str, id="str-from-exponent-exact-text"),
    pytest.param(str, "9007199254740993", "9007199254740993", str, id="str-from-big-int"),
    pytest.param(str, "true", "true", str, id="str-from-true"),
    pytest.param(str, "false", "false", str, id="str-from-false"),
    pytest.param(str, '{"a": 1, "b": [1, 2]}', '{"a":1,"b":[1,2]}', str, id="str-from-object"),
    pytest.param(str, '[1, "长路", true, null]', '[1,"长路",true,null]', str,
                 id="str-from-array-non-ascii"),
    # --- Enum: exact name, upper-cased name, then value
    pytest.param(Color, '"RED"', Color.RED, Color, id="enum-name"),
    pytest.param(Color, '"red"', Color.RED, Color, id="enum-lower-name"),
    pytest.param(Color, '"dark_blue"', Color.DARK_BLUE, Color, id="enum-upper-cased"),
    pytest.param(Color, '"navy"', Color.DARK_BLUE, Color, id="enum-by-value-string"),
    pytest.param(Color, "2", Color.GREEN, Color, id="enum-by-value-int"),
    pytest.param(Color, '"Dark_Blue"', Color.DARK_BLUE, Color, id="enum-name-any-case"),
    pytest.param(Color, '"NAVY"', Color.DARK_BLUE, Color, id="enum-value-any-case"),
    pytest.param(Case, '"Mode"', Case.UPPER, Case, id="enum-exact-value-wins-over-case"),
    # --- bool: JSON true/false only
    pytest.param(bool, "true", True, bool, id="bool-true"),
    pytest.param(bool, "false", False, bool, id="bool-false"),
    # --- int: exact, never through float
    pytest.param(int, "5", 5, int, id="int"),
    pytest.param(int, "-7", -7, int, id="int-negative"),
    pytest.param(int, "0", 0, int, id="int-zero"),
    pytest.param(int, "5.0", 5, int, id="int-from-5.0"),
    pytest.param(int, "1e3", 1000, int, id="int-from-1e3"),
    pytest.param(int, "1.5e1", 15, int, id="int-from-1.5e1"),
    pytest.param(int, "1E+2", 100, int, id="int-from-1E+2"),
    pytest.param(int, "9007199254740993", 9007199254740993, int, id="int-exact-2^53+1"),
    pytest.param(int, "9007199254740993.0", 9007199254740993, int, id="int-exact-from-float-text"),
    pytest.param(int, "123456789012345678901234567890", 123456789012345678901234567890, int,
                 id="int-bigger-than-int64"),
    pytest.param(int, '"7"', 7, int, id="int-numeric-string"),
    pytest.param(int, '" 5 "', 5, int, id="int-numeric-string-trimmed"),
    pytest.param(int, '"-3"', -3, int, id="int-negative-numeric-string"),
    pytest.param(int, '"1e3"', 1000, int, id="int-numeric-string-exponent"),
    pytest.param(int, '"9007199254740993"', 9007199254740993, int, id="int-string-exact"),
    pytest.param(Int8, "-128", -128, int, id="Int8-min"),
    pytest.param(Int8, "127", 127, int, id="Int8-max"),
    pytest.param(Int16, "32767", 32767, int, id="Int16-max"),
    pytest.param(Int32, "2147483647", 2147483647, int, id="Int32-max"),
    pytest.param(Int32, '"-2147483648"', -2147483648, int, id="Int32-min-string"),
    pytest.param(Int64, "9223372036854775807", 2**63 - 1, int, id="Int64-max"),
    pytest.param(Annotated[int, P(minimum=1, maximum=10)], "10", 10, int, id="int-P-range"),
    # --- float / Float32
    pytest.param(float, "2.5", 2.5, float, id="float"),
    pytest.param(float, "1", 1.0, float, id="float-from-int"),
    pytest.param(float, "-1e-3", -0.001, float, id="float-exponent"),
    pytest.param(float, '"2.5"', 2.5, float, id="float-numeric-string"),
    pytest.param(float, '" 3 "', 3.0, float, id="float-numeric-string-trimmed"),
    pytest.param(Float32, "1.5", 1.5, float, id="Float32"),
    pytest.param(Float32, "-3.4e38", -3.4e38, float, id="Float32-near-min"),
    # --- Decimal: exact to the written digits
    pytest.param(Decimal, "0.1", Decimal("0.1"), Decimal, id="decimal-0.1"),
    pytest.param(Decimal, "5", Decimal("5"), Decimal, id="decimal-int"),
    pytest.param(Decimal, '"0.30"', Decimal("0.30"), Decimal, id="decimal-string"),
    pytest.param(Decimal, "1e-7", Decimal("1e-7"), Decimal, id="decimal-exponent"),
    pytest.param(Decimal, "12345678901234567890.123456789",
                 Decimal("12345678901234567890.123456789"), Decimal, id="decimal-long"),
    # --- UUID
    pytest.param(uuid.UUID, f'"{U}"', uuid.UUID(U), uuid.UUID, id="uuid"),
    pytest.param(uuid.UUID, f'"{U.upper()}"', uuid.UUID(U), uuid.UUID, id="uuid-upper"),
    pytest.param(uuid.UUID, f'"{U.replace("-", "")}"', uuid.UUID(U), uuid.UUID,
                 id="uuid-hex"),
    pytest.param(uuid.UUID, f'"urn:uuid:{U}"', uuid.UUID(U), uuid.UUID, id="uuid-urn"),
    # --- dates and times (ISO 8601)
    pytest.param(dt.datetime, '"2024-01-02T03:04:05"', dt.datetime(2024, 1, 2, 3, 4, 5),
                 dt.datetime, id="datetime"),
    pytest.param(dt.datetime, '"2024-01-02T03:04:05+08:00"',
                 dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=8))),
                 dt.datetime, id="datetime-offset"),
    pytest.param(dt.datetime, '"2024-01-02T03:04:05Z"',
                 dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC), dt.datetime,
                 id="datetime-Z"),
    pytest.param(dt.date, '"2024-02-29"', dt.date(2024, 2, 29), dt.date, id="date"),
    pytest.param(dt.time, '"03:04:05"', dt.time(3, 4, 5), dt.time, id="time"),
    pytest.param(dt.time, '"23:59"', dt.time(23, 59), dt.time, id="time-hh-mm"),
    # --- list / set / tuple / Sequence
    pytest.param(list[int], "[1, 2]", [1, 2], list, id="list"),
    pytest.param(list[int], "[]", [], list, id="list-empty"),
    pytest.param(list[int], '["1", 2.0, 3]', [1, 2, 3], list, id="list-items-coerced"),
    pytest.param(list[int], '"[1,2]"', [1, 2], list, id="list-double-encoded"),
    pytest.param(list[int], '" [1, 2] "', [1, 2], list, id="list-double-encoded-padded"),
    pytest.param(list[int], json.dumps(json.dumps(json.dumps([1, 2]))), [1, 2], list,
                 id="list-triple-encoded-one-layer-stripped"),
    pytest.param(list[str], '[1, true, "a"]', ["1", "true", "a"], list, id="list-str-items"),
    pytest.param(list[Optional[int]], "[1, null]", [1, None], list,  # noqa: UP045
                 id="list-optional-items-null"),
    pytest.param(list[int | None], "[null]", [None], list, id="list-pipe-optional-null"),
    pytest.param(set[int], "[1, 1, 2]", {1, 2}, set, id="set"),
    pytest.param(set[str], '"[\\"a\\",\\"b\\"]"', {"a", "b"}, set, id="set-double-encoded"),
    pytest.param(frozenset[int], "[3]", frozenset({3}), frozenset, id="frozenset"),
    pytest.param(tuple[int, ...], '[1, "2"]', (1, 2), tuple, id="tuple-variadic"),
    pytest.param(tuple[int, str], '[1, "a"]', (1, "a"), tuple, id="tuple-fixed"),
    pytest.param(tuple[int, str], '"[1, 2]"', (1, "2"), tuple, id="tuple-fixed-double-encoded"),
    pytest.param(Sequence[int], "[4, 5]", [4, 5], list, id="sequence"),
    # --- dict
    pytest.param(dict[str, int], '{"a": 1, "b": "2"}', {"a": 1, "b": 2}, dict, id="dict"),
    pytest.param(dict[str, int], '"{\\"a\\":1}"', {"a": 1}, dict, id="dict-double-encoded"),
    pytest.param(dict[str, int | None], '{"a": null}', {"a": None}, dict,
                 id="dict-optional-value-null"),
    pytest.param(dict[str, list[int]], '{"a": "[1]"}', {"a": [1]}, dict,
                 id="dict-nested-double-encoded"),
    # --- dataclass / TypedDict / NamedTuple
    pytest.param(Item, '{"sku": "a", "qty": "2"}', Item("a", 2), Item, id="dataclass"),
    pytest.param(Item, '{"sku": "a", "qty": 2, "note": null}', Item("a", 2), Item,
                 id="dataclass-null-field-takes-default"),
    pytest.param(Item, '{"sku": "a", "qty": 2, "gift": true}', Item("a", 2, gift=True), Item,
                 id="dataclass-optional-field"),
    pytest.param(Item, json.dumps(json.dumps({"sku": "a", "qty": 1})), Item("a", 1), Item,
                 id="dataclass-double-encoded"),
    pytest.param(Item, json.dumps(json.dumps(json.dumps({"sku": "a", "qty": 1}))), Item("a", 1),
                 Item, id="dataclass-triple-encoded-one-layer-stripped"),
    pytest.param(Order, '{"customer": "c", "items": [{"sku": "a", "qty": 1}]}',
                 Order("c", [Item("a", 1)]), Order, id="dataclass-nested"),
    pytest.param(list[Item], json.dumps([json.dumps({"sku": "a", "qty": 1})]), [Item("a", 1)],
                 list, id="list-of-double-encoded-dataclass"),
    pytest.param(Point, '{"lat": 1, "lon": "2.5"}', {"lat": 1.0, "lon": 2.5}, dict,
                 id="typeddict"),
    pytest.param(Point, '"{\\"lat\\":1,\\"lon\\":2}"', {"lat": 1.0, "lon": 2.0}, dict,
                 id="typeddict-double-encoded"),
    pytest.param(Options, "{}", {}, dict, id="typeddict-total-false-empty"),
    pytest.param(Options, '{"depth": "3"}', {"depth": 3}, dict, id="typeddict-total-false"),
    pytest.param(Pair, '{"left": 1}', Pair(1, "r"), Pair, id="namedtuple-default"),
    pytest.param(Pair, '{"left": "1", "right": 2}', Pair(1, "2"), Pair, id="namedtuple"),
    # --- Literal
    pytest.param(Literal["a", "b"], '"b"', "b", str, id="literal-str"),
    pytest.param(Literal[1, 2], "1", 1, int, id="literal-int"),
    pytest.param(Literal[1, "a", True], "true", True, bool, id="literal-true-is-not-1"),
    pytest.param(Literal[1, "a", True], "1", 1, int, id="literal-1-is-not-true"),
    pytest.param(Literal["celsius", "fahrenheit"], '"CELSIUS"', "celsius", str,
                 id="literal-any-case"),
    pytest.param(Literal["On", "on"], '"on"', "on", str, id="literal-exact-wins-over-case"),
    # --- Optional
    pytest.param(Optional[int], "null", None, type(None), id="optional-null"),  # noqa: UP045
    pytest.param(int | None, "3", 3, int, id="optional-value"),
    pytest.param(int | None, '"3"', 3, int, id="optional-value-coerced"),
    pytest.param(Item | None, '{"sku": "a", "qty": 1}', Item("a", 1), Item,
                 id="optional-dataclass"),
    # --- Union: first accepting member, preferring the matching JSON type
    pytest.param(Union[int, str], "5", 5, int, id="union-int"),  # noqa: UP007
    pytest.param(Union[int, str], '"5"', "5", str,  # noqa: UP007
                 id="union-prefers-string-for-string"),
    pytest.param(Union[str, int], "5", 5, int,  # noqa: UP007
                 id="union-prefers-integer-for-integer"),
    pytest.param(int | list[int], "[1]", [1], list, id="union-array"),
    pytest.param(int | list[int], '"[1]"', [1], list, id="union-falls-back-to-other-member"),
    # --- Any / unannotated: plain Python
    pytest.param(Any, '{"a": [1, 2.5, null, true, "s"]}', {"a": [1, 2.5, None, True, "s"]},
                 dict, id="any-object"),
    pytest.param(Any, "2.5", 2.5, float, id="any-number"),
    pytest.param(Any, "7", 7, int, id="any-int"),
    pytest.param(Any, '"x"', "x", str, id="any-string"),
]


@pytest.mark.parametrize(("annotation", "value", "expected", "expected_type"), ACCEPTS)
def test_accepts(probe, annotation, value, expected, expected_type):
    received = probe(annotation).receive(value)
    assert type(received) is expected_type
    assert received == expected


def test_decimal_keeps_written_digits(probe):
    tool = probe(Decimal)
    assert str(tool.receive("1.10")) == "1.10"
    assert str(tool.receive("0.1")) == "0.1"
    assert tool.receive("0.1") + tool.receive("0.2") == Decimal("0.3")
    assert str(tool.receive('"2.500"')) == "2.500"


def test_any_gives_plain_python_types(probe):
    received = probe(Any).receive('{"a": [1, 2.5, {"b": 0.1}]}')
    # plain float, not a float subclass remembering the JSON text
    assert type(received["a"][1]) is float
    assert type(received["a"][2]["b"]) is float
    assert type(received["a"][0]) is int


def test_unannotated_parameter_is_any(probe):
    received = probe().receive('{"a": [1, 2.5, null]}')
    assert received == {"a": [1, 2.5, None]}
    assert type(received["a"][1]) is float


def test_str_from_object_is_valid_compact_json(probe):
    def refuse_constant(name):
        raise AssertionError(f"not valid JSON: {name}")

    tool = probe(str)
    for text in ('{"a": 0.5, "b": {"c": [1, 2]}}', '{"a": 1e400}', '[-1e400, 2]'):
        received = tool.receive(text)
        assert type(received) is str
        assert ", " not in received and ": " not in received
        json.loads(received, parse_constant=refuse_constant)


# (annotation, JSON value text, substrings the message must contain)
REFUSES = [
    # bool: strict
    pytest.param(bool, '"true"', ['Argument "x"', "bool", "<true>", "string"], id="bool-string"),
    pytest.param(bool, "1", ['Argument "x"', "bool", "<1>"], id="bool-one"),
    pytest.param(bool, "0", ['Argument "x"', "bool", "<0>"], id="bool-zero"),
    pytest.param(bool, '"yes"', ['Argument "x"', "bool", "<yes>"], id="bool-yes"),
    # int
    pytest.param(int, "5.5", ['Argument "x" has non-integer value for int: <5.5>'],
                 id="int-fraction"),
    pytest.param(int, '"5.5"', ['Argument "x"', "non-integer", "int", "<5.5>", "string"],
                 id="int-fraction-string"),
    pytest.param(int, "true", ['Argument "x"', "int", "<true>"], id="int-true"),
    pytest.param(int, "false", ['Argument "x"', "int", "<false>"], id="int-false"),
    pytest.param(int, '""', ['Argument "x"', "int", "<>", "string"], id="int-empty-string"),
    pytest.param(int, '"   "', ['Argument "x"', "int"], id="int-blank-string"),
    pytest.param(int, '"abc"', ['Argument "x"', "int", "<abc>"], id="int-text"),
    pytest.param(int, '"+5"', ['Argument "x"', "int", "<+5>"], id="int-plus-sign"),
    pytest.param(int, '"05"', ['Argument "x"', "int", "<05>"], id="int-leading-zero"),
    pytest.param(int, '"1_000"', ['Argument "x"', "int", "<1_000>"], id="int-underscore"),
    pytest.param(int, '"５"', ['Argument "x"', "int", "<５>"], id="int-full-width"),
    pytest.param(int, '"0x10"', ['Argument "x"', "int", "<0x10>"], id="int-hex"),
    pytest.param(int, '"NaN"', ['Argument "x"', "int", "<NaN>"], id="int-nan-string"),
    pytest.param(int, "[1]", ['Argument "x"', "int", "<[1]>"], id="int-array"),
    pytest.param(int, '{"a": 1}', ['Argument "x"', "int", '<{"a":1}>'], id="int-object"),
    pytest.param(Int8, "128", ['Argument "x" is out of range for Int8: <128>'], id="Int8-over"),
    pytest.param(Int8, "-129", ['Argument "x" is out of range for Int8: <-129>'],
                 id="Int8-under"),
    pytest.param(Int16, "32768", ['Argument "x" is out of range for Int16: <32768>'],
                 id="Int16-over"),
    pytest.param(Int32, "2147483648", ['Argument "x" is out of range for Int32: <2147483648>'],
                 id="Int32-over"),
    pytest.param(Int32, '"2147483648"', ["is out of range for Int32: <2147483648>", "string"],
                 id="Int32-over-string"),
    pytest.param(Int32, "-2147483649", ["is out of range for Int32: <-2147483649>"],
                 id="Int32-under"),
    pytest.param(Int32, "5.5", ['Argument "x"', "non-integer", "Int32", "<5.5>"],
                 id="Int32-fraction"),
    pytest.param(Int64, "9223372036854775808",
                 ["is out of range for Int64: <9223372036854775808>"], id="Int64-over"),
    pytest.param(Annotated[int, P(minimum=1, maximum=10)], "0",
                 ['Argument "x"', "out of range", "<0>"], id="int-P-minimum"),
    pytest.param(Annotated[int, P(minimum=1, maximum=10)], "11",
                 ['Argument "x"', "out of range", "<11>"], id="int-P-maximum"),
    # float
    pytest.param(float, "true", ['Argument "x"', "float", "<true>"], id="float-bool"),
    pytest.param(float, "1e999", ['Argument "x"', "float", "1e999"], id="float-overflow"),
    pytest.param(float, '"1e999"', ['Argument "x"', "float", "1e999"],
                 id="float-overflow-string"),
    pytest.param(float, '"NaN"', ['Argument "x"', "float", "<NaN>"], id="float-nan-string"),
    pytest.param(float, '"Infinity"', ['Argument "x"', "float", "<Infinity>"],
                 id="float-infinity-string"),
    pytest.param(float, '"abc"', ['Argument "x"', "float", "<abc>"], id="float-text"),
    pytest.param(float, '"+1.5"', ['Argument "x"', "float", "<+1.5>"], id="float-plus-sign"),
    pytest.param(Float32, "3.5e38", ['Argument "x" is out of range for Float32: <3.5e38>'],
                 id="Float32-over"),
    pytest.param(Float32, "-3.5e38", ['Argument "x" is out of range for Float32: <-3.5e38>'],
                 id="Float32-under"),
    # Decimal
    pytest.param(Decimal, "true", ['Argument "x"', "Decimal", "<true>"], id="decimal-bool"),
    pytest.param(Decimal, '"NaN"', ['Argument "x"', "Decimal", "<NaN>"], id="decimal-nan"),
    pytest.param(Decimal, '"Infinity"', ['Argument "x"', "Decimal", "<Infinity>"],
                 id="decimal-infinity"),
    pytest.param(Decimal, '"-Infinity"', ['Argument "x"', "Decimal", "<-Infinity>"],
                 id="decimal-minus-infinity"),
    pytest.param(Decimal, '"abc"', ['Argument "x"', "Decimal", "<abc>"], id="decimal-text"),
    pytest.param(Decimal, "[1]", ['Argument "x"', "Decimal", "<[1]>"], id="decimal-array"),
    # Enum
    pytest.param(Color, '"purple"', ['Argument "x" is not a valid enum value for Color: <purple>'],
                 id="enum-unknown"),
    pytest.param(Color, "3", ['Argument "x"', "is not a valid enum value for Color: <3>"],
                 id="enum-unknown-value"),
    pytest.param(Color, '""', ['Argument "x"', "Color"], id="enum-empty"),
    pytest.param(Case, '"MODE"', ['Argument "x"', "Case"], id="enum-case-ambiguous"),
    # UUID / dates
    pytest.param(uuid.UUID, '"nope"', ['Argument "x"', "UUID", "<nope>"], id="uuid-text"),
    pytest.param(uuid.UUID, "5", ['Argument "x"', "UUID", "<5>"], id="uuid-number"),
    pytest.param(dt.datetime, '"yesterday"', ['Argument "x"', "datetime", "<yesterday>"],
                 id="datetime-text"),
    pytest.param(dt.datetime, "1700000000", ['Argument "x"', "datetime", "<1700000000>"],
                 id="datetime-epoch-number"),
    pytest.param(dt.date, '"2023-02-29"', ['Argument "x"', "date", "<2023-02-29>"],
                 id="date-invalid"),
    pytest.param(dt.time, '"25:00"', ['Argument "x"', "time", "<25:00>"], id="time-invalid"),
    # containers
    pytest.param(list[int], "5", ['Argument "x"', "list[int]", "<5>"], id="list-number"),
    pytest.param(list[int], '"not json"', ['Argument "x"', "list[int]", "<not json>"],
                 id="list-text"),
    pytest.param(list[int], '"{\\"a\\":1}"', ['Argument "x"', "list[int]"],
                 id="list-string-holding-object"),
    pytest.param(list[int], '{"a": 1}', ['Argument "x"', "list[int]"], id="list-object"),
    pytest.param(list[int], '[1, "a"]', ['Argument "x[1]"', "int", "<a>"], id="list-bad-item"),
    pytest.param(list[int], "[1, 2, null]", ['Argument "x[2]"', "null", "int"],
                 id="list-null-item-not-optional"),
    pytest.param(set[int], '[1, "z"]', ['Argument "x[1]"', "int", "<z>"], id="set-bad-item"),
    pytest.param(tuple[int, str], "[1]", ['Argument "x"', "tuple[int, str]", "2"],
                 id="tuple-too-short"),
    pytest.param(tuple[int, str], '[1, "a", 3]', ['Argument "x"', "tuple[int, str]", "2"],
                 id="tuple-too-long"),
    pytest.param(tuple[int, str], '["a", "b"]', ['Argument "x[0]"', "int", "<a>"],
                 id="tuple-bad-item"),
    pytest.param(dict[str, int], '{"a": "z"}', ['Argument "x["a"]"', "int", "<z>"],
                 id="dict-bad-value"),
    pytest.param(dict[str, int], '{"a": null}', ['Argument "x["a"]"', "null", "int"],
                 id="dict-null-value-not-optional"),
    pytest.param(dict[str, int], "[1]", ['Argument "x"', "dict[str, int]", "<[1]>"],
                 id="dict-array"),
    pytest.param(Item, "5", ['Argument "x"', "Item", "<5>"], id="dataclass-number"),
    pytest.param(Item, '{"sku": "a", "qty": 1, "colour": "red"}',
                 ['Argument "x"', "unknown", "Item", '"colour"'], id="dataclass-unknown-field"),
    pytest.param(Item, '{"sku": "a"}', ['Argument "x.qty"', "missing", "Item"],
                 id="dataclass-missing-field"),
    pytest.param(Item, '{"sku": "a", "qty": null}', ['Argument "x.qty"', "missing"],
                 id="dataclass-null-required-field"),
    pytest.param(Item, '{"sku": "a", "qty": 1.5}', ['Argument "x.qty"', "int", "<1.5>"],
                 id="dataclass-bad-field"),
    pytest.param(list[Item],
                 '[{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}, {"sku": "c", "qty": "z"}]',
                 ['Argument "x[2].qty" has non-integer value for int: <z>'],
                 id="list-of-dataclass-path"),
    pytest.param(Order, '{"customer": "c", "items": [{"sku": "a", "qty": true}]}',
                 ['Argument "x.items[0].qty"', "int", "<true>"], id="nested-path"),
    pytest.param(Point, '{"lat": 1}', ['Argument "x.lon"', "missing", "Point"],
                 id="typeddict-missing"),
    pytest.param(Point, '{"lat": 1, "lon": 2, "alt": 3}', ['Argument "x"', "unknown", '"alt"'],
                 id="typeddict-unknown"),
    pytest.param(Pair, '{"right": "r"}', ['Argument "x.left"', "missing", "Pair"],
                 id="namedtuple-missing"),
    pytest.param(Pair, '{"left": 1, "extra": 1}', ['Argument "x"', "unknown", '"extra"'],
                 id="namedtuple-unknown"),
    # Literal
    pytest.param(Literal["a", "b"], '"c"', ['Argument "x"', "Literal", "<c>"], id="literal-other"),
    pytest.param(Literal["On", "on"], '"ON"', ['Argument "x"', "Literal", "<ON>"],
                 id="literal-case-ambiguous"),
    pytest.param(Literal[1, 2], '"1"', ['Argument "x"', "Literal", "<1>"],
                 id="literal-string-is-not-int"),
    pytest.param(Literal[1], "true", ['Argument "x"', "Literal", "<true>"],
                 id="literal-true-is-not-1"),
    pytest.param(Literal[True], "1", ['Argument "x"', "Literal", "<1>"],
                 id="literal-1-is-not-true"),
    # Optional: anything but null is coerced to X
    pytest.param(int | None, '"abc"', ['Argument "x"', "int", "<abc>"], id="optional-bad-value"),
    # Union: every member's reason
    pytest.param(int | list[int], '"abc"',
                 ['Argument "x"', "<abc>", "int: ", "list[int]: ", "non-integer", "non-array"],
                 id="union-all-reasons"),
    pytest.param(Union[bool, Color], '"maybe"',  # noqa: UP007
                 ['Argument "x"', "<maybe>", "bool: ", "Color: "], id="union-bool-enum"),
]


@pytest.mark.parametrize(("annotation", "value", "fragments"), REFUSES)
def test_refuses(probe, annotation, value, fragments):
    error = probe(annotation).refuse(value)
    message = str(error)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert message.startswith('Argument "x')


def place(items: list[Item]) -> None:
    raise AssertionError("must not be called")


def test_path_names_the_real_parameter():
    executor = LocalToolExecutor(place)
    arguments = ('{"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2},'
                 ' {"sku": "c", "qty": "two"}]}')
    with pytest.raises(ArgumentError) as info:
        executor.execute(ToolExecutionRequest(id="1", name="place", arguments=arguments))
    error = info.value
    assert str(error).startswith('Argument "items[2].qty" has non-integer value for int: <two>')
    assert error.parameter_path == "items[2].qty"
    assert error.received == "two"


def test_string_value_is_distinguished_from_number_in_messages(probe):
    as_string = str(probe(bool).refuse('"5"'))
    as_number = str(probe(bool).refuse("5"))
    assert as_string != as_number
    assert "string" in as_string
    assert "string" not in as_number


def test_float_is_not_routed_through_int(probe):
    # a JSON number with a fraction for an int is an error even when tiny
    message = str(probe(int).refuse("1.0000000000000001"))
    assert "non-integer" in message
    assert "<1.0000000000000001>" in message


def test_set_of_unhashable_items_is_an_argument_error(probe):
    error = probe(set[Any]).refuse("[[1], [2]]")
    assert 'Argument "x"' in str(error)


def test_path_parameters_take_a_non_empty_string(probe):
    from pathlib import Path

    tool = probe(Path)
    assert tool.receive('"/tmp/report.csv"') == Path("/tmp/report.csv")
    assert type(tool.receive('"a/b"')) is type(Path("a/b"))
    for bad in ('""', "5", '["a"]', '"a\\u0000b"'):
        assert "is not a file path" in str(tool.refuse(bad))


class LaxModel(pydantic.BaseModel):
    flag: bool


class StrictModel(pydantic.BaseModel):
    flag: pydantic.StrictBool


@dataclass
class PlainFlag:
    flag: bool


def _lax(m: LaxModel) -> str:
    return repr(m.flag)


def _strict(m: StrictModel) -> str:
    return repr(m.flag)


def _plain(m: PlainFlag) -> str:
    return repr(m.flag)


def test_a_pydantic_model_keeps_pydantic_s_bool_rule_and_a_dataclass_this_table_s():
    """The difference docs/coercion.md states: pydantic validates its own fields."""
    def call(func, arguments: str):
        return LocalToolExecutor(func, name="t").execute(
            ToolExecutionRequest(name="t", arguments=arguments))

    assert call(_lax, '{"m": {"flag": "no"}}') == ("False", False)
    with pytest.raises(ArgumentError, match=r"flag: Input should be a valid boolean"):
        call(_strict, '{"m": {"flag": "no"}}')
    with pytest.raises(ArgumentError, match="non-boolean value for bool: <no>"):
        call(_plain, '{"m": {"flag": "no"}}')
