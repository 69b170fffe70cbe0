"""The ``gemini-mcp`` schema form against the real google-genai MCP bridge: whatever the
schema, when the form exists the bridge converts it without raising and the
``gemini-mcp`` lint has no finding on it; when it does not, the conversion says why."""

from __future__ import annotations

import logging
import warnings
from typing import Any

from google.genai._mcp_utils import mcp_to_gemini_tool
from hypothesis import HealthCheck, given, settings
from mcp.types import Tool
from test_any_schema import schemas

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.providers import convert_tool
from agentforge_cli.schema.providers.gemini_mcp_form import (
    bridge_form,
    convert_gemini_mcp_form,
)


def probe(parameter: Any) -> ToolSpecification:
    return ToolSpecification(name="probe", description="A probe.", parameters={
        "type": "object", "properties": {"p": parameter, "q": {"type": "string"}},
        "required": ["p"]})


def bridged(spec: ToolSpecification, parameters: dict[str, Any]) -> Any:
    logging.getLogger("google_genai.types").disabled = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tool = mcp_to_gemini_tool(Tool(name=spec.name, description=spec.description,
                                       inputSchema=parameters))
    return tool.function_declarations[0].parameters


def clean(spec: ToolSpecification) -> list[str]:
    conversion = convert_tool(spec, "gemini-mcp")
    return [str(issue) for issue in conversion.errors + conversion.warnings]


def test_a_nullable_value_with_a_default_keeps_both() -> None:
    spec = probe({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                  "default": 3, "description": "How many."})
    union = probe({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}],
                   "description": "An id."})
    form = convert_gemini_mcp_form(union).data
    assert form is not None and bridged(union, form).properties["p"].description == "An id."
    form = convert_gemini_mcp_form(spec).data
    assert form is not None
    safe = ToolSpecification(name="probe", description="A probe.", parameters=form)
    assert clean(safe) == []
    sent = bridged(spec, form).properties["p"]
    assert (sent.default, sent.description) == (3, "How many.")


def test_bounds_reach_gemini_in_snake_case() -> None:
    form = bridge_form({"type": "array", "items": {"type": "string", "minLength": 2},
                        "minItems": 1, "maxItems": 4})
    assert form == {"type": "array", "items": {"type": "string", "min_length": 2},
                    "min_items": 1, "max_items": 4}


@given(parameter=schemas)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_schema_has_a_form_the_bridge_takes_or_an_error(parameter: Any) -> None:
    spec = probe(parameter)
    conversion = convert_gemini_mcp_form(spec)
    if conversion.data is None:
        assert conversion.errors
        return
    safe = ToolSpecification(name="probe", description="A probe.",
                             parameters=conversion.data)
    assert clean(safe) == [], conversion.data
    bridged(spec, conversion.data)  # does not raise


def test_an_array_whose_elements_have_no_gemini_type_has_no_form() -> None:
    # Found by the property test: the Gemini export keeps the array with empty items,
    # which the bridge sends without items; the form must be an error, not a finding.
    conversion = convert_gemini_mcp_form(probe({"not": {}, "prefixItems": [{"nullable": False}]}))
    assert conversion.data is None
    assert [issue.rule for issue in conversion.errors] == ["array-without-items"]
