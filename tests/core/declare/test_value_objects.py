"""The value objects people hold: constructors, attributes, repr, equality, hash, copy and
pickling, and that they cannot be changed."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import typing

import pytest

from agentforge_cli import (
    Int32,
    P,
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolSpecification,
    tool,
)
from agentforge_cli.core.declare.decorator import tool_meta


def pickled(value: object) -> object:
    return pickle.loads(pickle.dumps(value))


ROUND_TRIPS = [pickled, copy.copy, copy.deepcopy]


@pytest.mark.parametrize("round_trip", ROUND_TRIPS)
def test_request(round_trip):
    request = ToolExecutionRequest(id="call_1", name="q", arguments='{"a":1}')
    assert repr(request) == "ToolExecutionRequest(id='call_1', name='q', arguments='{\"a\":1}')"
    assert (request.id, request.name, request.arguments) == ("call_1", "q", '{"a":1}')
    assert ToolExecutionRequest(name="q").arguments == "{}"
    again = round_trip(request)
    assert again == request and hash(again) == hash(request)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.name = "other"  # type: ignore[misc]
    assert str(inspect.signature(ToolExecutionRequest)) == (
        "(*, id: 'str | None' = None, name: 'str', arguments: 'str | None' = '{}') -> 'None'")
    with pytest.raises(TypeError):
        ToolExecutionRequest("call_1", "q")  # type: ignore[misc]


@pytest.mark.parametrize("round_trip", ROUND_TRIPS)
def test_result_is_a_text_and_error_pair(round_trip):
    result = ToolExecutionResult("boom", True)
    assert repr(result) == "ToolExecutionResult(text='boom', is_error=True)"
    assert result == ("boom", True) and hash(result) == hash(("boom", True))
    text, is_error = result
    assert (text, is_error) == (result.text, result.is_error) == ("boom", True)
    assert ToolExecutionResult("ok") == ToolExecutionResult(text="ok", is_error=False)
    again = round_trip(result)
    assert again == result and type(again) is ToolExecutionResult
    with pytest.raises(AttributeError):
        result.text = "other"  # type: ignore[misc]


@pytest.mark.parametrize("round_trip", ROUND_TRIPS)
def test_specification(round_trip):
    spec = ToolSpecification(name="q", description="d", title="T",
                             annotations={"readOnlyHint": True})
    assert repr(spec).startswith("ToolSpecification(name='q', description='d', parameters=")
    again = round_trip(spec)
    assert again == spec and hash(again) == hash(spec) and {spec: 1}[again] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize("round_trip", ROUND_TRIPS)
def test_p(round_trip):
    mark = P("how many", name="n", minimum=1, sensitive=1)  # type: ignore[arg-type]
    assert repr(mark) == "P(description='how many', name='n', minimum=1, sensitive=True)"
    assert mark == P("how many", name="n", minimum=1, sensitive=True)
    assert hash(mark) == hash(P("how many", name="n", minimum=1, sensitive=True))
    assert mark != P("how many") and repr(P()) == "P()"
    again = round_trip(mark)
    assert again == mark and hash(again) == hash(mark)
    with pytest.raises(AttributeError, match="P is immutable"):
        mark.name = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="P is immutable"):
        del mark.name
    with pytest.raises(TypeError):
        P("a", "b")  # type: ignore[misc]


@pytest.mark.parametrize("round_trip", ROUND_TRIPS)
def test_fixed_width_and_tool_meta_copy_and_stay_immutable(round_trip):
    fixed = typing.get_args(Int32)[1]
    assert repr(round_trip(fixed)) == repr(fixed) == "FixedWidth('Int32', -2147483648, 2147483647)"

    @tool(name="q", title="T", annotations={"readOnlyHint": True})
    def q() -> None:
        pass

    meta = tool_meta(q)
    again = round_trip(meta)
    assert (again.name, again.title, again.annotations) == ("q", "T", {"readOnlyHint": True})
    for value in (fixed, meta):
        with pytest.raises(AttributeError, match="is immutable"):
            value.label = "x"
