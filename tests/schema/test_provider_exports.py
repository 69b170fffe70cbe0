"""Provider exports: the documented wire shapes, and only the keywords each provider takes."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Literal, Optional

import pytest
from provider_testing import keywords_outside, obj, raw, schema_nodes, spec, specs_of

from agentforge_cli import Int32, P, tool
from agentforge_cli.errors import AgentForgeError
from agentforge_cli.schema.providers import (
    PROVIDERS,
    ProviderExportError,
    convert_tool,
    export_tools,
    provider_name,
)
from agentforge_cli.schema.providers.gemini import GEMINI_FORMATS, GEMINI_KEYWORDS
from agentforge_cli.schema.providers.openai import STRICT_FORMATS, STRICT_KEYWORDS

# --- sample modules through every provider --------------------------------------------------

def strict_exportable(specs):
    return [s for s in specs if s.name != "restock"]  # dict[str, int]: no strict form


def test_openai_plain_is_the_documented_shape_and_a_copy(sample_specs):
    exported = export_tools(sample_specs, "openai").data
    assert [e["function"]["name"] for e in exported] == [s.name for s in sample_specs]
    for entry, source in zip(exported, sample_specs, strict=True):
        assert entry == {"type": "function", "function": {
            "name": source.name, "description": source.description,
            "parameters": source.parameters}}
    before = copy.deepcopy(sample_specs[0].parameters)
    exported[0]["function"]["parameters"]["properties"].clear()
    assert sample_specs[0].parameters == before


def test_anthropic_shape(sample_specs):
    exported = export_tools(sample_specs, "anthropic").data
    for entry, source in zip(exported, sample_specs, strict=True):
        assert entry == {"name": source.name, "description": source.description,
                         "input_schema": source.parameters}


def test_mcp_shape_is_a_tools_list_result(sample_specs):
    exported = export_tools(sample_specs, "mcp").data
    assert list(exported) == ["tools"]
    for entry, source in zip(exported["tools"], sample_specs, strict=True):
        assert entry == {"name": source.name, "description": source.description,
                         "inputSchema": source.parameters}
    json.dumps(exported)


def test_mcp_export_validates_against_the_mcp_sdk_types(sample_specs):
    from mcp import types
    result = types.ListToolsResult.model_validate(export_tools(sample_specs, "mcp").data)
    assert [t.name for t in result.tools] == [s.name for s in sample_specs]


def test_openai_strict_sample_tools_use_only_strict_keywords(sample_specs):
    exported = export_tools(strict_exportable(sample_specs), "openai", strict=True).data
    for entry in exported:
        function = entry["function"]
        assert entry["type"] == "function" and function["strict"] is True
        parameters = function["parameters"]
        assert keywords_outside(parameters, STRICT_KEYWORDS) == []
        assert parameters["type"] == "object"
        for path, node in schema_nodes(parameters):
            assert "default" not in node, path
            if node.get("type") == "object" or "properties" in node:
                assert node["additionalProperties"] is False, path
                assert node["required"] == list(node["properties"]), path
            if "format" in node:
                assert node["format"] in STRICT_FORMATS


def test_gemini_sample_tools_use_only_the_openapi_subset(sample_specs):
    exported = export_tools(sample_specs, "gemini").data
    assert [d["name"] for d in exported] == [s.name for s in sample_specs]
    for declaration in exported:
        assert set(declaration) <= {"name", "description", "parameters"}
        parameters = declaration["parameters"]
        assert keywords_outside(parameters, GEMINI_KEYWORDS) == []
        for path, node in schema_nodes(parameters):
            assert "type" in node or "anyOf" in node, path
            assert not isinstance(node.get("type"), list), path
            assert "$ref" not in node and "additionalProperties" not in node, path
            if "enum" in node:
                assert node["type"] == "string", path
                assert all(isinstance(v, str) for v in node["enum"]), path
            if "format" in node:
                assert node["format"] in GEMINI_FORMATS[node["type"]], path


def test_every_export_is_json(sample_specs):
    for provider in ("openai", "anthropic", "gemini", "mcp"):
        json.dumps(export_tools(sample_specs, provider).data, allow_nan=False)
    strict = export_tools(strict_exportable(sample_specs), "openai", strict=True).data
    json.dumps(strict, allow_nan=False)


def test_plain_formats_report_no_warnings(sample_specs):
    for provider in ("openai", "anthropic", "mcp"):
        assert export_tools(sample_specs, provider).warnings == []


# --- OpenAI strict ---------------------------------------------------------------------------

@dataclass
class Line:
    """An order line."""

    sku: str
    qty: int
    note: str | None = None


@dataclass
class Node:
    """A tree node."""

    value: int
    children: list[Node]


@dataclass
class Address:
    city: str


class Size(Enum):
    S = "s"
    L = "l"


@tool(name="order")
def order(customer: Annotated[str, P("who")], lines: Annotated[list[Line], P("what")],
          size: Size | None = None, count: int = 1, tags: list[int | None] | None = None
          ) -> None:
    """Order things."""


def strict_parameters(func) -> dict[str, Any]:
    return export_tools([spec(func)], "openai", strict=True).data[0]["function"]["parameters"]


def test_strict_makes_every_property_required_and_optional_ones_nullable():
    parameters = strict_parameters(order)
    assert parameters["required"] == ["customer", "lines", "size", "count", "tags"]
    assert parameters["additionalProperties"] is False
    props = parameters["properties"]
    assert props["customer"] == {"type": "string", "description": "who"}
    assert props["count"] == {"type": ["integer", "null"]}
    assert props["size"] == {"anyOf": [{"type": "string", "enum": ["S", "L"]},
                                       {"type": "null"}]}
    assert props["tags"] == {"anyOf": [
        {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
        {"type": "null"}]}
    line = props["lines"]["items"]
    assert line["additionalProperties"] is False
    assert line["required"] == ["sku", "qty", "note"]
    assert line["properties"]["note"]["type"] == ["string", "null"]
    assert keywords_outside(parameters, STRICT_KEYWORDS) == []


def test_strict_keeps_a_recursive_type_in_defs_and_closes_it():
    @tool(name="tree")
    def tree(root: Node) -> None:
        """Walk a tree."""

    parameters = strict_parameters(tree)
    assert parameters["properties"]["root"] == {"$ref": "#/$defs/Node"}
    node = parameters["$defs"]["Node"]
    assert node["additionalProperties"] is False
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert keywords_outside(parameters, STRICT_KEYWORDS) == []


def test_strict_inlines_a_ref_with_sibling_keywords():
    parameters = obj({"a": {"$ref": "#/$defs/Pair", "description": "first"},
                      "b": {"$ref": "#/$defs/Pair"}})
    parameters["$defs"] = {"Pair": obj({"x": {"type": "integer"}})}
    exported = export_tools([raw("pairs", parameters)], "openai", strict=True).data
    out = exported[0]["function"]["parameters"]
    assert out["properties"]["a"]["description"] == "first"
    assert out["properties"]["a"]["properties"] == {"x": {"type": "integer"}}
    assert "$ref" not in out["properties"]["a"]
    assert out["properties"]["b"] == {"$ref": "#/$defs/Pair"}


@pytest.mark.parametrize(("annotation", "rule", "path"), [
    (dict[str, int], "free-form-object", "$.x"),
    (dict, "free-form-object", "$.x"),
    (Any, "untyped-value", "$.x"),
    (list[dict[str, str]], "free-form-object", "$.x[*]"),
    (list, "untyped-value", "$.x[*]"),
])
def test_strict_refuses_types_without_a_strict_form(annotation, rule, path):
    def probe(x):
        """Probe."""

    probe.__annotations__ = {"x": annotation}
    with pytest.raises(ProviderExportError) as info:
        export_tools([spec(probe)], "openai", strict=True)
    error = info.value
    assert isinstance(error, AgentForgeError)
    assert [(i.tool, i.path, i.rule) for i in error.issues] == [("probe", path, rule)]
    assert 'tool "probe"' in str(error) and f'parameter "{path[2:]}"' in str(error)


def test_strict_error_lists_every_problem_of_every_tool():
    def first(levels: dict[str, int], anything: Any) -> None:
        """First."""

    def second(prices: dict[str, float]) -> None:
        """Second."""

    with pytest.raises(ProviderExportError) as info:
        export_tools([spec(first), spec(second)], "openai", strict=True)
    found = [(i.tool, i.path) for i in info.value.issues]
    assert found == [("first", "$.levels"), ("first", "$.anything"), ("second", "$.prices")]
    assert str(info.value).count("\n") == 3


def test_strict_refuses_a_definition_that_only_refers_to_itself():
    parameters = obj({"x": {"$ref": "#/$defs/A"}})
    parameters["$defs"] = {"A": {"$ref": "#/$defs/A"}}
    with pytest.raises(ProviderExportError) as info:
        export_tools([raw("loop", parameters)], "openai", strict=True)
    assert [(i.path, i.rule) for i in info.value.issues] == [("$defs.A", "ref-cycle")]


def test_strict_tuples_sets_and_unsupported_keywords_warn():
    def shapes(point: tuple[float, float], pair: tuple[int, str], unique: set[str]) -> None:
        """Shapes."""

    result = export_tools([spec(shapes)], "openai", strict=True)
    props = result.data[0]["function"]["parameters"]["properties"]
    assert props["point"] == {"type": "array", "items": {"type": "number"}, "minItems": 2,
                              "maxItems": 2}
    assert props["pair"]["items"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert "uniqueItems" not in props["unique"]
    assert [(w.path, w.rule) for w in result.warnings] == [
        ("$.pair", "tuple-positions"), ("$.unique", "unique-items")]


def test_strict_handles_hand_written_keywords():
    parameters = obj({
        "name": {"type": "string", "minLength": 1, "format": "uri"},
        "choice": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
        "wrapped": {"allOf": [{"type": "integer", "minimum": 0}]},
    })
    result = export_tools([raw("odd", parameters)], "openai-strict")
    props = result.data[0]["function"]["parameters"]["properties"]
    assert props["name"] == {"type": "string"}
    assert props["choice"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert props["wrapped"] == {"type": "integer", "minimum": 0}
    assert {(w.path, w.rule) for w in result.warnings} == {
        ("$.name", "unsupported-keyword"), ("$.name", "unsupported-format"),
        ("$.choice", "one-of")}


def test_strict_no_parameters_is_an_empty_closed_object():
    def ping() -> str:
        """Ping."""
        return "pong"

    parameters = strict_parameters(ping)
    assert parameters == {"type": "object", "properties": {}, "required": [],
                          "additionalProperties": False}


def test_strict_refuses_schemas_nested_too_deep():
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(11):
        schema = obj({"inner": schema})
    with pytest.raises(ProviderExportError) as info:
        export_tools([raw("deep", schema)], "openai", strict=True)
    assert [i.rule for i in info.value.issues] == ["too-deep"]


# --- Gemini ----------------------------------------------------------------------------------

def gemini_parameters(func) -> dict[str, Any]:
    return export_tools([spec(func)], "gemini").data[0]["parameters"]


def test_gemini_optional_members_become_nullable_and_unions_any_of():
    @tool(name="g")
    def g(ids: list[int | None], key: int | str, maybe: Optional[list[str]] = None  # noqa: UP045
          ) -> None:
        """G."""

    props = gemini_parameters(g)
    assert props["properties"]["ids"]["items"] == {"type": "integer", "nullable": True}
    assert props["properties"]["key"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert props["properties"]["maybe"] == {"type": "array", "items": {"type": "string"},
                                            "nullable": True}
    assert props["required"] == ["ids", "key"]


def test_gemini_inlines_refs_used_twice():
    def ship(origin: Address, destination: Address) -> None:
        """Ship."""

    source = spec(ship).parameters
    assert "$defs" in source  # the generator shares it ...
    props = gemini_parameters(ship)["properties"]  # ... Gemini gets it twice, inline
    assert props["origin"] == props["destination"] == {
        "type": "object", "title": "Address", "properties": {"city": {"type": "string"}},
        "required": ["city"]}


def test_gemini_refuses_a_recursive_type():
    def tree(root: Node) -> None:
        """Tree."""

    with pytest.raises(ProviderExportError) as info:
        export_tools([spec(tree)], "gemini")
    assert [(i.path, i.rule) for i in info.value.issues] == [
        ("$.root.children[*]", "recursive-type")]
    assert "Node" in str(info.value)


def test_gemini_enums_are_strings_only():
    def pick(size: Size, level: Literal[1, 2, 3], mixed: Literal["a", 1],
             flag: Literal[True]) -> None:
        """Pick."""

    result = export_tools([spec(pick)], "gemini")
    props = result.data[0]["parameters"]["properties"]
    assert props["size"] == {"type": "string", "enum": ["S", "L"]}
    assert props["level"] == {"type": "integer", "description": "One of: 1, 2, 3"}
    assert props["mixed"]["anyOf"] == [{"type": "string", "enum": ["a"]}, {"type": "integer"}]
    assert props["flag"]["type"] == "boolean" and "enum" not in props["flag"]
    assert [(w.path, w.rule) for w in result.warnings] == [
        ("$.level", "non-string-enum"), ("$.mixed", "non-string-enum"),
        ("$.flag", "non-string-enum")]


def test_gemini_mapping_is_a_free_form_object_with_a_warning(shop_specs):
    result = export_tools([shop_specs["restock"]], "gemini")
    levels = result.data[0]["parameters"]["properties"]["levels"]
    assert levels == {"type": "object",
                      "description": "Units to add, per SKU; each must be positive."}
    assert [(w.tool, w.path, w.rule) for w in result.warnings] == [
        ("restock", "$.levels", "free-form-object")]


def test_gemini_formats_outside_its_list_move_to_the_description(shop_specs):
    result = export_tools([shop_specs["scheduleDelivery"]], "gemini")
    props = result.data[0]["parameters"]["properties"]
    assert props["day"] == {"type": "string",
                            "description": "送货日期，YYYY-MM-DD (format: date)"}
    assert [w.path for w in result.warnings] == ["$.order_id", "$.day", "$.earliest"]
    placed = export_tools([shop_specs["placeOrder"]], "gemini").data[0]["parameters"]["properties"]
    assert placed["placed_at"]["format"] == "date-time"


def test_gemini_drops_null_defaults_and_keeps_others(shop_specs):
    props = export_tools([shop_specs["getPrice"]], "gemini").data[0]["parameters"]["properties"]
    assert "default" not in props["discount"]
    assert props["quantity"]["default"] == 1


def test_gemini_tool_without_parameters_has_no_parameters_key():
    def ping() -> str:
        """Ping."""
        return "pong"

    assert export_tools([spec(ping)], "gemini").data == [{"name": "ping", "description": "Ping."}]


def test_gemini_hand_written_keywords():
    parameters = obj({
        "n": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
        "x": {"type": "number", "exclusiveMinimum": 0.5, "multipleOf": 0.5},
        "t": {"type": ["string", "null"], "examples": ["hi"]},
        "c": {"const": "fixed"},
        "u": {"type": "array", "prefixItems": [{"type": "integer"}], "items": False},
    })
    result = export_tools([raw("odd", parameters)], "gemini")
    props = result.data[0]["parameters"]["properties"]
    assert props["n"] == {"type": "integer", "minimum": 1, "maximum": 9}
    assert props["x"] == {"type": "number", "minimum": 0.5}
    assert props["t"] == {"type": "string", "example": "hi", "nullable": True}
    assert props["c"] == {"type": "string", "enum": ["fixed"]}
    assert props["u"] == {"type": "array", "items": {"type": "integer"}, "minItems": 1,
                          "maxItems": 1}
    assert sorted((w.path, w.rule) for w in result.warnings) == [
        ("$.x", "exclusive-bound"), ("$.x", "unsupported-keyword")]
    assert keywords_outside(result.data[0]["parameters"], GEMINI_KEYWORDS) == []


@pytest.mark.parametrize("annotation", [Any, list])
def test_gemini_refuses_untyped_values(annotation):
    def probe(x):
        """Probe."""

    probe.__annotations__ = {"x": annotation}
    with pytest.raises(ProviderExportError) as info:
        export_tools([spec(probe)], "gemini")
    assert [i.rule for i in info.value.issues] in (["untyped-value"], ["untyped-items"])


# --- shared ----------------------------------------------------------------------------------

@pytest.mark.parametrize("provider", ["openai", "openai-strict", "anthropic", "gemini", "mcp"])
def test_a_root_that_is_not_an_object_is_refused(provider):
    bad = raw("bad", {"anyOf": [{"type": "string"}, {"type": "integer"}]})
    conversion = convert_tool(bad, provider)
    assert conversion.data is None
    assert [(e.path, e.rule) for e in conversion.errors] == [("$", "root-not-object")]


def test_export_tools_names_and_options():
    assert provider_name("OpenAI") == "openai"
    assert provider_name("openai", strict=True) == "openai-strict"
    with pytest.raises(ValueError, match="unknown provider 'claude'"):
        export_tools([], "claude")
    assert provider_name("openai-responses", strict=True) == "openai-responses-strict"
    with pytest.raises(ValueError, match="strict mode applies to openai, openai-responses only"):
        export_tools([], "anthropic", strict=True)
    assert export_tools([], "mcp").data == {"tools": []}


def test_the_build_local_tools_table_exports_directly():
    from sample_tools import weather

    table = dict.fromkeys(specs_of(weather))
    assert export_tools(table, "anthropic").data[0]["name"] == "getWeather"


def test_int32_bounds_survive_every_export():
    def count(n: Annotated[Int32, P("how many")]) -> None:
        """Count."""

    made = spec(count)
    # the google-genai MCP bridge crashes on additionalProperties: false (its own test)
    open_form = raw("count", {k: v for k, v in made.parameters.items()
                              if k != "additionalProperties"}, "Count.")
    for provider in PROVIDERS:
        chosen = open_form if provider == "gemini-mcp" else made
        text = json.dumps(export_tools([chosen], provider).data)
        assert "2147483647" in text, provider


def test_exported_schemas_stay_valid_json_schema(sample_specs):
    import jsonschema
    validator = jsonschema.Draft202012Validator
    for entry in export_tools(strict_exportable(sample_specs), "openai", strict=True).data:
        validator.check_schema(entry["function"]["parameters"])


def test_mcp_export_carries_a_declared_title_and_annotations():
    from agentforge_cli import build_local_tools, tool

    @tool(name="lookup", title="Look a thing up", annotations={"readOnlyHint": True})
    def lookup(key: str) -> str:
        """Look up a key."""
        return key

    @tool
    def plain(key: str) -> str:
        """No title."""
        return key

    (entry, bare) = export_tools(list(build_local_tools([lookup, plain])), "mcp").data["tools"]
    assert entry["title"] == "Look a thing up"
    assert entry["annotations"] == {"readOnlyHint": True}
    assert "title" not in bare and "annotations" not in bare
