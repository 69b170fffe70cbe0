"""The shared JSON Schema helpers: one walker, one place that reads ``$ref``s, and a
schema package without import cycles."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from provider_testing import obj, raw

from agentforge_cli.schema.jsonschema import (
    ROOT,
    SchemaWalker,
    argument_path,
    definitions,
    is_object_root,
    is_untyped,
    ref_cycle,
    ref_name,
    resolve_ref,
)
from agentforge_cli.schema.lint import check_specs
from agentforge_cli.schema.providers import convert_tool
from agentforge_cli.schema.schema_drift import diff_specs

SCHEMA = Path(__file__).resolve().parents[2] / "agentforge_cli" / "schema"


class _Paths(SchemaWalker):
    """Records the kind and path of every schema the walk meets."""

    def __init__(self, root: Any) -> None:
        super().__init__(root)
        self.seen: list[tuple[str, str]] = []

    def untyped(self, schema: Any, path: str) -> None:
        self.seen.append(("untyped", path))

    def invalid(self, schema: Any, path: str) -> None:
        self.seen.append(("invalid", path))

    def reference(self, schema: dict[str, Any], path: str) -> None:
        self.seen.append(("ref", path))
        name = ref_name(schema["$ref"])
        if name in self.defs and name not in self.following:
            with self.entering(name):
                self.walk(self.defs[name], path)

    def node(self, schema: dict[str, Any], path: str) -> None:
        self.seen.append(("node", path))
        super().node(schema, path)


def test_the_walker_reaches_every_child_with_its_path():
    root = obj({
        "items": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, False]},
        "levels": {"type": "object", "additionalProperties": {"type": "integer"}},
        "x y": {"anyOf": [{"type": "string"}, True]},
    })
    root["$defs"] = {"Node": obj({"next": {"$ref": "#/$defs/Node"}})}
    walker = _Paths(root)
    walker.walk(root, ROOT)
    assert walker.seen == [
        ("node", "$"),
        ("node", "$.items"), ("ref", "$.items[*]"), ("node", "$.items[*]"),
        ("ref", "$.items[*].next"),  # the recursive type is entered once
        ("node", "$.pair"), ("node", "$.pair[0]"), ("invalid", "$.pair[1]"),
        ("node", "$.levels"), ("node", "$.levels.*"),
        ("node", '$["x y"]'), ("node", '$["x y"]'), ("untyped", '$["x y"]'),
    ]
    assert walker.following == ()


def test_reference_helpers():
    defs = {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A", "title": "B"},
            "C": {"type": "string"}, "D": 5}
    assert ref_name("#/$defs/Node") == "Node"
    assert ref_name("#/$defs/A~1B%20C") == "A/B C"
    assert ref_name("#/definitions/Node") == "#/definitions/Node"  # any local pointer
    assert ref_name("other.json#/x") is None and ref_name(None) is None
    assert resolve_ref({"$ref": "#/$defs/C", "description": "c"}, defs) == (
        {"type": "string", "description": "c"}, "C")
    assert resolve_ref({"$ref": "#/$defs/D"}, defs) == ({"$ref": "#/$defs/D"}, None)
    assert resolve_ref({"type": "string"}, defs) == ({"type": "string"}, None)
    assert ref_cycle("A", defs) == ["A", "B", "A"]
    assert ref_cycle("C", defs) == []


def test_local_json_pointer_refs_resolve_with_escapes_and_percent_encoding():
    root = obj({"flag": {"type": ["boolean", "string"]},
                "a/b": {"type": "integer"}, "t~n": {"type": "number"},
                "sp ace": {"type": "null"}, "pair": {"prefixItems": [{"type": "string"}]}})
    root["definitions"] = {"Old": {"type": "boolean"}}
    defs = definitions(root)
    for ref, expected in [("#/properties/flag", {"type": ["boolean", "string"]}),
                          ("#/properties/a~1b", {"type": "integer"}),
                          ("#/properties/t~0n", {"type": "number"}),
                          ("#/properties/sp%20ace", {"type": "null"}),
                          ("#/properties/pair/prefixItems/0", {"type": "string"}),
                          ("#/definitions/Old", {"type": "boolean"})]:
        merged, name = resolve_ref({"$ref": ref, "description": "d"}, defs)
        assert (merged, name) == ({**expected, "description": "d"}, ref), ref
    assert resolve_ref({"$ref": "#"}, defs)[0] == root
    for missing in ("#/properties/nope", "#/properties/pair/prefixItems/7",
                    "#/properties/flag/type", "https://example.com/s.json#/x", "#x"):
        assert resolve_ref({"$ref": missing}, defs) == ({"$ref": missing}, None), missing


def _pointer_tool() -> Any:
    parameters = obj({"first": {"type": ["boolean", "string"], "description": "f"},
                      "second": {"$ref": "#/properties/first", "description": "s"},
                      "third": {"$ref": "#/properties/second", "description": "t"}})
    parameters["required"] = ["first", "second", "third"]
    return raw("pointed", parameters)


@pytest.mark.parametrize("provider", ["openai", "openai-strict", "openai-responses-strict",
                                      "anthropic", "gemini", "gemini-json-schema",
                                      "gemini-mcp", "mcp"])
def test_a_pointer_ref_into_properties_passes_every_provider(provider):
    findings = check_specs([_pointer_tool()], [provider])
    assert [f for f in findings if f.level == "error"] == [], provider
    assert convert_tool(_pointer_tool(), provider).data is not None


def test_gemini_inlines_a_chain_of_pointer_refs():
    exported = convert_tool(_pointer_tool(), "gemini").data["parameters"]["properties"]
    assert exported["third"]["description"] == "t"
    assert {k: v for k, v in exported["third"].items() if k != "description"} == {
        k: v for k, v in exported["first"].items() if k != "description"}


@pytest.mark.parametrize(("ref", "says"), [
    ("#/properties/nope", "points at nothing in the tool's parameters"),
    ("#/$defs/Missing", "names no definition under $defs"),
    ("https://example.com/s.json", "is not a local JSON Pointer"),
])
def test_an_unresolvable_ref_is_a_clear_finding(ref, says):
    tool = raw("dangling", obj({"x": {"$ref": ref, "description": "x"}}))
    for provider in ([], ["openai-strict"], ["gemini"]):
        findings = [f for f in check_specs([tool], provider) if f.rule == "unresolved-ref"]
        assert len(findings) == 1, provider
        assert says in findings[0].message and findings[0].path == "$.x"


def test_whole_schema_helpers():
    assert is_untyped(True) and is_untyped({}) and is_untyped({"description": "d"})
    assert not is_untyped(False) and not is_untyped({"type": "string"})
    assert is_object_root(obj({}))
    assert not is_object_root({"type": "object", "anyOf": []})
    assert not is_object_root({"type": "array"})
    assert argument_path(["properties", "items", "items", "properties", "qty", "type"]) == (
        "$.items[*].qty")
    assert argument_path(["$defs", "Node", "properties", "x"]) == "$defs.Node.x"


# --- schemas that used to crash the transforms -----------------------------------------------

def test_strict_reports_a_definition_inlined_into_itself():
    parameters = obj({"x": {"$ref": "#/$defs/A", "description": "x"}})
    parameters["$defs"] = {"A": {"anyOf": [{"type": "string"},
                                           {"$ref": "#/$defs/A", "description": "again"}]}}
    result = convert_tool(raw("loop", parameters), "openai-strict")
    assert result.data is None
    assert {(e.path, e.rule) for e in result.errors} == {
        ("$.x", "recursive-ref"), ("$defs.A", "recursive-ref")}
    assert "openai-strict:recursive-ref" in {f.rule for f in check_specs(
        [raw("loop", parameters)], ["openai-strict"])}


def test_a_definition_that_is_not_a_schema_object_is_reported_not_raised():
    parameters = obj({"x": {"$ref": "#/$defs/D", "description": "x"}})
    parameters["$defs"] = {"D": 5}
    for provider in ("openai-strict", "gemini"):
        result = convert_tool(raw("odd", parameters), provider)
        assert result.data is None
        assert "unresolved-ref" in {e.rule for e in result.errors}, provider


def test_drift_of_a_ref_cycle_ends():
    parameters = obj({"x": {"$ref": "#/$defs/A"}})
    parameters["$defs"] = {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}
    assert diff_specs([raw("t", parameters)], [raw("t", parameters)]) == []


# --- the package ------------------------------------------------------------------------------

def _imports(path: Path) -> set[str]:
    """Every ``agentforge_cli.schema`` module a file imports, at the top or in a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("agentforge_cli.schema")}


def _module(path: Path) -> str:
    parts = path.relative_to(SCHEMA.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_schema_package_has_no_import_cycle():
    graph = {_module(p): _imports(p) for p in SCHEMA.rglob("*.py")}
    assert graph["agentforge_cli.schema.lint"]  # the graph is read at all

    def visit(module: str, trail: tuple[str, ...]) -> None:
        if module in trail:
            pytest.fail("import cycle: " + " -> ".join((*trail, module)))
        for target in graph.get(module, ()):
            visit(target, (*trail, module))

    for module in graph:
        visit(module, ())


@pytest.mark.parametrize("needle", ["#/$defs/", '"readOnly"'])
def test_json_schema_details_live_in_one_module(needle):
    holders = sorted(p.relative_to(SCHEMA).as_posix() for p in SCHEMA.rglob("*.py")
                     if needle in p.read_text(encoding="utf-8"))
    assert holders == ["jsonschema.py"]
