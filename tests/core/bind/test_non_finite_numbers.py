"""``NaN``, ``Infinity`` and ``1e999`` are refused on every path: argument text
(``tools call``, replay) and arguments an MCP client's parser already made into objects."""

from __future__ import annotations

import math

import pytest

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools, tool


@tool
def take(text: str = "", items: list | None = None, value: float = 0.0) -> str:
    """Echo what arrived."""
    return f"{text!r} {items!r} {value!r}"


SERVICE = ToolService().tools(build_local_tools([take]))


@pytest.mark.parametrize("arguments", [
    {"text": math.nan}, {"text": math.inf}, {"items": [1, [-math.inf]]},
    {"value": math.nan}, {"text": "ok", "items": [{"x": math.nan}]},
])
def test_a_parsed_object_with_a_non_finite_number_is_refused(arguments) -> None:
    result = SERVICE.execute(ToolExecutionRequest(id="1", name="take", arguments=arguments))
    assert result.is_error
    assert "non-standard JSON constant" in result.text
    assert "'nan'" not in result.text and "'inf'" not in result.text


@pytest.mark.parametrize("arguments", ['{"text": NaN}', '{"items": [Infinity]}'])
def test_the_same_rule_as_argument_text(arguments) -> None:
    result = SERVICE.execute(ToolExecutionRequest(id="1", name="take", arguments=arguments))
    assert result.is_error and "non-standard JSON constant" in result.text


def test_finite_numbers_still_bind() -> None:
    result = SERVICE.execute(ToolExecutionRequest(
        id="1", name="take", arguments={"text": 1.5, "items": [1e300], "value": 2}))
    assert result == ("'1.5' [1e+300] 2.0", False)
