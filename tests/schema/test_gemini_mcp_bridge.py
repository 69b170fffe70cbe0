"""``tools check --provider gemini-mcp`` against the real google-genai MCP bridge: the lint
reports an error exactly when ``mcp_to_gemini_tool`` raises, and a warning where the
bridge drops something (google-genai is a dev dependency: without it these tests fail)."""

from __future__ import annotations

import logging
import warnings
from typing import Any

import pytest
from google.genai import _mcp_utils, types
from google.genai._mcp_utils import mcp_to_gemini_tool
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import Tool
from test_any_schema import schemas

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.lint import check_specs
from agentforge_cli.schema.providers import convert_tool
from agentforge_cli.schema.providers.gemini_mcp import BRIDGE_KEEPS

DEFS = {
    "A": {"type": "string", "description": "a definition"},
    "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
    "Chain": {"$ref": "#/$defs/A"},
    "Arr": {"type": "array", "items": {"type": "integer"}},
}


def probe(parameter: Any, defs: dict[str, Any] | None = None) -> ToolSpecification:
    return ToolSpecification(name="probe", description="A probe.", parameters={
        "type": "object", "properties": {"p": parameter, "q": {"type": "string"}},
        "required": ["p"], "$defs": DEFS if defs is None else defs})


def bridge(spec: ToolSpecification) -> dict[str, Any] | None:
    """What the real bridge sends as the declaration's parameters; ``None`` if it raises."""
    tool = Tool(name=spec.name, description=spec.description, inputSchema=spec.parameters)
    logging.getLogger("google_genai.types").disabled = True
    try:
        with warnings.catch_warnings():  # as outside pytest: pydantic's warnings only warn
            warnings.simplefilter("ignore")
            converted = mcp_to_gemini_tool(tool)
    except Exception:
        return None
    parameters = converted.function_declarations[0].parameters
    return parameters.model_dump(exclude_none=True, warnings=False)


def findings(spec: ToolSpecification) -> list[tuple[str, str, str]]:
    conversion = convert_tool(spec, "gemini-mcp")
    return ([("error", i.rule, i.path) for i in conversion.errors]
            + [("warning", i.rule, i.path) for i in conversion.warnings])


CRASHES = [
    ({"type": "object", "properties": {"a": {"type": "string"}},
      "additionalProperties": False}, "$.p"),
    ({"type": "object", "additionalProperties": True}, "$.p"),
    ({"type": "array", "items": False}, "$.p"),
    ({"type": "array", "items": True}, "$.p"),
    ({"type": "array", "prefixItems": [{"type": "string"}], "items": False}, "$.p"),
    (False, "$.p"),
    (True, "$.p"),
    ({"anyOf": [False, {"type": "string"}]}, "$.p"),
    ({"anyOf": [True, {"type": "null"}]}, "$.p"),
    ({"oneOf": [True, {"type": "null"}]}, "$.p"),
    ({"type": "object", "properties": {"a": False}}, "$.p.a"),
    ({"additionalProperties": {"items": False}}, "$.p.*"),
    ({"$ref": "#/$defs/Missing"}, "$.p"),
    ({"$ref": "#/definitions/A"}, "$.p"),
    ({"$ref": "#"}, "$.p"),
    ({"$ref": "#/$defs/A/items"}, "$.p"),
]


@pytest.mark.parametrize(("parameter", "path"), CRASHES)
def test_a_schema_the_bridge_crashes_on_is_an_error(parameter: Any, path: str) -> None:
    spec = probe(parameter)
    assert bridge(spec) is None
    errors = [f for f in findings(spec) if f[0] == "error"]
    assert errors and {f[2] for f in errors} == {path}


def test_a_boolean_definition_crashes_even_unused() -> None:
    spec = probe({"type": "string"}, {**DEFS, "Unused": False})
    assert bridge(spec) is None
    assert findings(spec) == [("error", "boolean-schema", "$defs.Unused")]


# parameter, the warning, and what the real bridge sends for "p" shows the loss
DROPS = [
    ({"const": "x"}, "dropped-keyword", lambda p: p == {}),
    ({"type": "string", "minLength": 1, "maxLength": 3}, "dropped-keyword",
     lambda p: p == {"type": types.Type.STRING}),
    ({"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": True},
     "dropped-keyword", lambda p: set(p) == {"type", "items"}),
    ({"type": "integer", "exclusiveMinimum": 0}, "dropped-keyword",
     lambda p: p == {"type": types.Type.INTEGER}),
    ({"allOf": [False]}, "dropped-keyword", lambda p: p == {}),
    ({"not": True}, "dropped-keyword", lambda p: p == {}),
    ({"patternProperties": {"^x": False}}, "dropped-keyword", lambda p: p == {}),
    ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "one-of-dropped",
     lambda p: p == {}),
    ({"type": "object", "additionalProperties": {"type": "integer"}},
     "mapping-values-dropped", lambda p: p == {"type": types.Type.OBJECT}),
    ({"$ref": "#/$defs/A", "description": "beside"}, "ref-siblings-dropped",
     lambda p: p["description"] == "a definition"),
    ({"$ref": "#/$defs/Chain"}, "ref-sent-unresolved", lambda p: p == {"ref": "#/$defs/A"}),
    ({"type": ["string", "integer"], "default": "x"}, "type-list-dropped",
     lambda p: "default" not in p),
    ({"type": "array"}, "array-without-items", lambda p: "items" not in p),
    ({"type": "array", "items": {}}, "array-without-items", lambda p: "items" not in p),
    ({"enum": [1, 2]}, "non-string-enum", lambda p: p["enum"] == [1, 2]),
]


@pytest.mark.parametrize(("parameter", "rule", "lost"), DROPS)
def test_a_loss_is_a_warning_where_the_bridge_shows_it(parameter: Any, rule: str,
                                                       lost: Any) -> None:
    spec = probe(parameter)
    sent = bridge(spec)
    assert sent is not None and lost(sent["properties"]["p"])
    assert ("warning", rule, "$.p") in findings(spec)
    assert not [f for f in findings(spec) if f[0] == "error"]


def test_a_recursive_type_is_cut_at_its_second_level() -> None:
    spec = probe({"$ref": "#/$defs/Node"})
    assert bridge(spec)["properties"]["p"]["properties"]["next"] == {}
    assert findings(spec) == [("warning", "recursive-type", "$.p.next")]


KEPT = [{"type": "string", "format": "email", "description": "d", "pattern": "^a"},
        {"anyOf": [{"type": "string"}, {"type": "null"}]}, {"type": ["string", "null"]},
        {"$ref": "#/$defs/A"}, {"$ref": "#/$defs/Arr/items"}, {"$ref": "#/properties/q"},
        {"type": "string", "enum": ["a", "b"]}, {"type": "null"}, {}]


@pytest.mark.parametrize("parameter", KEPT)
def test_what_the_bridge_keeps_has_no_finding(parameter: Any) -> None:
    spec = probe(parameter)
    assert bridge(spec) is not None
    assert findings(spec) == []


def test_the_filter_keeps_exactly_the_keywords_the_lint_assumes() -> None:
    every = {key: {} for key in BRIDGE_KEEPS | {"const", "minLength", "allOf", "$schema"}}
    assert set(_mcp_utils._filter_to_supported_schema(every)) == BRIDGE_KEEPS


def test_tools_check_reports_the_bridge_findings_under_its_name() -> None:
    spec = probe({"type": "object", "properties": {"a": {"type": "string"}},
                  "additionalProperties": False})
    found = [(f.rule, f.level, f.path) for f in check_specs([spec], ["gemini-mcp"])]
    assert ("gemini-mcp:boolean-schema", "error", "$.p") in found
    message = next(f.message for f in check_specs([spec], ["gemini-mcp"])
                   if f.rule == "gemini-mcp:boolean-schema")
    assert "additionalProperties: false" in message and '{"not": {}}' in message


def test_each_sample_tool_is_an_error_exactly_when_the_bridge_raises(sample_specs) -> None:
    outcome = {spec.name: (any(f[0] == "error" for f in findings(spec)), bridge(spec) is None)
               for spec in sample_specs}
    assert all(error == raised for error, raised in outcome.values()), outcome
    # every agentforge tool says additionalProperties: false, which the bridge cannot take
    assert all(error for error, _ in outcome.values()), outcome


def _dropped_by_filter(schema: Any) -> bool:
    """Whether the real filter removes a keyword the lint reports (it keeps metadata out)."""
    kept = _mcp_utils._filter_to_supported_schema(schema)
    if set(schema) - {"$schema", "$id", "$comment"} - set(kept):
        return True
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict) and _dropped_by_filter(schema[key]):
            return True
    nested = [*schema.get("anyOf", ()), *schema.get("oneOf", ()),
              *(schema.get("properties") or {}).values(), *(schema.get("$defs") or {}).values()]
    return any(_dropped_by_filter(member) for member in nested)


@given(parameter=schemas, root=st.booleans(), node=schemas, leaf=schemas)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_schema_is_an_error_exactly_when_the_bridge_raises(parameter: Any, root: bool,
                                                                node: Any, leaf: Any) -> None:
    cyclic = ({"anyOf": [node, {"$ref": "#/$defs/Node"}]} if isinstance(node, dict)
              else {"$ref": "#/$defs/Node"} if node else False)
    defs = {"Node": cyclic, "Leaf": leaf}
    if root and isinstance(parameter, dict):
        spec = ToolSpecification(name="probe", description="A probe.",
                                 parameters={**parameter, "type": "object", "$defs": defs})
    else:
        spec = probe(parameter, defs)
    found = findings(spec)
    sent = bridge(spec)
    assert any(f[0] == "error" for f in found) == (sent is None)
    if sent is not None:
        dropped = any(f[1] == "dropped-keyword" for f in found)
        assert dropped == _dropped_by_filter(spec.parameters)
