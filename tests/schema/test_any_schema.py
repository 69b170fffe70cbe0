"""Any valid JSON Schema goes through every exporter, lint, snapshots and the drift
classifier with a documented outcome: data (maybe with warnings) or
``ProviderExportError`` naming the tool and path; never another exception.

The schemas come from a recursive hypothesis strategy over the keywords MCP servers
really send: ``$ref`` (with siblings, cyclic), ``anyOf``/``oneOf``/``allOf``, boolean
subschemas, ``const``, ``not``, ``patternProperties``, ``$schema``/``$id`` and no
``type`` at all.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.errors import ProviderExportError
from agentforge_cli.schema.lint import check_specs
from agentforge_cli.schema.providers import PROVIDERS, export_tools
from agentforge_cli.schema.schema_drift import diff_specs
from agentforge_cli.schema.snapshots import dumps_snapshot, parse_snapshot

DEFS = ("Node", "Leaf")
"""The ``$defs`` every generated root carries; ``Node`` refers to itself (a cycle)."""
TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))


def _keyword_schemas(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keyword = st.sampled_from
    entries = st.one_of(
        st.tuples(keyword(["type"]), st.one_of(keyword(TYPES),
                                                st.lists(keyword(TYPES), min_size=1,
                                                         max_size=3, unique=True))),
        st.tuples(keyword(["anyOf", "oneOf", "allOf"]),
                  st.lists(children, min_size=1, max_size=3)),
        st.tuples(keyword(["not", "items", "additionalProperties", "contains",
                           "propertyNames"]), children),
        st.tuples(keyword(["properties", "patternProperties"]),
                  st.dictionaries(keyword(["a", "b", "^x", "$ref"]), children, max_size=2)),
        st.tuples(keyword(["prefixItems"]), st.lists(children, min_size=1, max_size=2)),
        st.tuples(keyword(["required"]), st.lists(keyword(["a", "b"]), unique=True)),
        st.tuples(keyword(["const", "default"]), scalars),
        st.tuples(keyword(["enum"]), st.lists(scalars, min_size=1, max_size=3)),
        st.tuples(keyword(["$ref"]), keyword([f"#/$defs/{name}" for name in DEFS])),
        st.tuples(keyword(["$schema"]),
                  st.just("https://json-schema.org/draft/2020-12/schema")),
        st.tuples(keyword(["$id", "description", "title", "format", "pattern"]),
                  st.text(max_size=4)),
        st.tuples(keyword(["minimum", "maximum", "minLength", "maxItems"]),
                  st.integers(0, 4)),
        st.tuples(keyword(["nullable"]), st.booleans()),
    )
    return st.lists(entries, max_size=4).map(dict)


schemas = st.recursive(st.one_of(st.booleans(), st.just({})),
                       _keyword_schemas, max_leaves=12)


def _spec(parameter: Any, root: bool, defs: dict[str, Any]) -> ToolSpecification:
    if root and isinstance(parameter, dict):  # the root itself, as an object
        parameters = {**parameter, "type": "object", "$defs": defs}
    else:
        parameters = {"type": "object", "properties": {"p": parameter}, "required": ["p"],
                      "$defs": defs}
    return ToolSpecification(name="probe", description="A probe.", parameters=parameters)


def _mutated(value: Any) -> Any:
    """A changed copy: every boolean flipped, every ``type`` string widened away."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, dict):
        return {key: ("number" if key == "type" and item == "integer" else _mutated(item))
                for key, item in value.items()}
    if isinstance(value, list):
        return [_mutated(item) for item in value[::-1]]
    return value


def _through_everything(spec: ToolSpecification) -> None:
    original = copy.deepcopy(spec.parameters)
    for provider in PROVIDERS:
        try:
            export = export_tools([spec], provider)
        except ProviderExportError as error:
            assert error.issues and all(issue.tool == "probe" for issue in error.issues)
            assert all(issue.path for issue in error.issues)
        else:
            assert export.data is not None
    check_specs([spec], PROVIDERS)
    changed = ToolSpecification(name="probe", description="A probe.",
                                parameters=_mutated(spec.parameters))
    diff_specs([spec], [changed])
    diff_specs([changed], [spec])
    assert diff_specs([spec], [spec]) == []
    assert parse_snapshot(__import__("json").loads(dumps_snapshot([spec]))) == [spec]
    assert spec.parameters == original  # nothing downstream edits the schema


GEMINI_BRIDGE = [
    {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
    {"type": "array", "prefixItems": [{"type": "string"}], "items": False},
    False,
    True,
    {"$ref": "#/$defs/Node", "description": "sibling of a $ref"},
    {"not": {"const": 1}},
    {"anyOf": [False]},
    {"anyOf": [True, {"type": "null"}], "description": "anything, or null"},
    {"anyOf": [{"$ref": "#/$defs/Node"}, {"$ref": "#/$defs/Cycle"}]},
    {"patternProperties": {"^x": False}, "$id": "urn:x",
     "$schema": "https://json-schema.org/draft/2020-12/schema"},
]


@pytest.mark.parametrize("parameter", GEMINI_BRIDGE)
def test_known_shapes_export_or_refuse_cleanly(parameter: Any) -> None:
    _through_everything(_spec(parameter, False, {
        "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
        "Leaf": {"const": 1},
        "Cycle": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/Cycle"}]}}))


@given(parameter=schemas, root=st.booleans(), node=schemas, leaf=schemas)
@example(parameter={"type": "object", "additionalProperties": False}, root=False,
         node=True, leaf=True)
@example(parameter={"type": "array", "items": False}, root=False, node=True, leaf=True)
@example(parameter={"$ref": "#/$defs/Node"}, root=True,
         node={"$ref": "#/$defs/Node"}, leaf=False)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_valid_schema_never_crashes(parameter: Any, root: bool, node: Any,
                                        leaf: Any) -> None:
    # Node always reaches back to itself: a cycle through $defs.
    cyclic = ({"anyOf": [node, {"$ref": "#/$defs/Node"}]} if isinstance(node, dict)
              else {"$ref": "#/$defs/Node"} if node else False)
    _through_everything(_spec(parameter, root, {"Node": cyclic, "Leaf": leaf}))


SELF_IN_ALL_OF = {"anyOf": [{"allOf": [{"$ref": "#/$defs/Node"}]}, {"type": "null"}]}
"""A recursive type reached through an allOf of one $ref (once inlined into itself)."""
SELF_IN_ONE_OF = {"prefixItems": [{"oneOf": [{}, {"$ref": "#/$defs/Node"}]}]}
"""A recursive type reached through a $ref inside oneOf (once compared with itself
forever)."""


@pytest.mark.parametrize("node", [SELF_IN_ALL_OF, SELF_IN_ONE_OF],
                         ids=["allOf-ref", "oneOf-ref"])
def test_a_type_recursive_through_a_combinator_exports_checks_and_diffs(node: Any) -> None:
    parameters = {"type": "object", "properties": {"x": {"$ref": "#/$defs/Node"}},
                  "$defs": {"Node": node}}
    _through_everything(ToolSpecification(name="probe", description="A probe.",
                                          parameters=parameters))
