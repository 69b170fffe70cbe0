"""Schema drift classification: one test per rule of the issue, and then some.

Each case declares the same tool twice — before and after a change — and checks the
findings ``diff_specs`` reports: ``(level, rule, path)``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Annotated, Literal

import pytest
from provider_testing import obj, raw, spec

from agentforge_cli import Int32, P, ToolSpecification, tool
from agentforge_cli.schema.findings import exit_code
from agentforge_cli.schema.schema_drift import diff_specs


def diff(before, after) -> list[tuple[str, str, str]]:
    old = before if isinstance(before, ToolSpecification) else spec(before)
    new = after if isinstance(after, ToolSpecification) else spec(after)
    return [(f.level, f.rule, f.path) for f in diff_specs([old], [new])]


# --- tools -----------------------------------------------------------------------------------

def test_identical_tools_have_no_findings(sample_specs):
    assert diff_specs(sample_specs, list(sample_specs)) == []


def test_tool_removed_is_breaking_and_added_is_info(sample_specs):
    findings = diff_specs(sample_specs[:2], sample_specs[1:3])
    assert [(f.tool, f.level, f.rule) for f in findings] == [
        (sample_specs[0].name, "breaking", "tool-removed"),
        (sample_specs[2].name, "info", "tool-added"),
    ]
    assert str(findings[0]) == (f'breaking: tool "{sample_specs[0].name}": the tool was '
                                "removed [tool-removed]")


def test_tool_renamed_is_breaking():
    def old_name(city: Annotated[str, P("city")]) -> str:
        """Weather."""
        return city

    def new_name(city: Annotated[str, P("city")]) -> str:
        """Weather."""
        return city

    findings = diff_specs([spec(old_name)], [spec(new_name)])
    assert [(f.tool, f.level, f.rule) for f in findings] == [
        ("new_name", "breaking", "tool-renamed")]
    assert findings[0].message == ('tool "new_name": renamed from "old_name" (same parameters);'
                                   ' a model that calls "old_name" gets an unknown-tool error')
    assert exit_code(findings) == 1


def test_tools_without_parameters_are_not_paired_as_renames_unless_described_alike():
    def ping() -> None:
        """Ping."""

    def reset() -> None:
        """Reset everything."""

    assert [f.rule for f in diff_specs([spec(ping)], [spec(reset)])] == [
        "tool-removed", "tool-added"]


def test_tool_description_changed_is_a_warning():
    @tool(name="t", description="Old text.")
    def before() -> None: ...

    @tool(name="t", description="New text.")
    def after() -> None: ...

    assert diff(before, after) == [("warning", "description-changed", "")]


# --- parameters ------------------------------------------------------------------------------

@tool(name="t")
def base(name: Annotated[str, P("name")], limit: Annotated[int, P("limit")] = 10) -> None:
    """T."""


def test_parameter_removed_is_breaking():
    @tool(name="t")
    def after(name: Annotated[str, P("name")]) -> None:
        """T."""

    findings = diff_specs([spec(base)], [spec(after)])
    assert [(f.level, f.rule, f.path) for f in findings] == [
        ("breaking", "parameter-removed", "$.limit")]
    text = str(findings[0])
    assert "breaking" in text and '"t"' in text and "limit" in text


def test_new_required_parameter_is_breaking():
    @tool(name="t")
    def after(name: Annotated[str, P("name")], city: Annotated[str, P("city")],
              limit: Annotated[int, P("limit")] = 10) -> None:
        """T."""

    assert diff(base, after) == [("breaking", "required-parameter-added", "$.city")]


def test_new_optional_parameter_is_info():
    @tool(name="t")
    def after(name: Annotated[str, P("name")], limit: Annotated[int, P("limit")] = 10,
              city: Annotated[str | None, P("city")] = None) -> None:
        """T."""

    assert diff(base, after) == [("info", "parameter-added", "$.city")]


def test_optional_to_required_is_breaking_and_back_is_info():
    @tool(name="t")
    def after(name: Annotated[str, P("name")], limit: Annotated[int, P("limit")]) -> None:
        """T."""

    assert diff(base, after) == [("breaking", "parameter-now-required", "$.limit"),
                                 ("warning", "default-changed", "$.limit")]
    assert diff(after, base) == [("info", "parameter-now-optional", "$.limit"),
                                 ("warning", "default-changed", "$.limit")]


def test_parameter_description_changed_is_a_warning():
    @tool(name="t")
    def after(name: Annotated[str, P("the name")], limit: Annotated[int, P("limit")] = 10
              ) -> None:
        """T."""

    assert diff(base, after) == [("warning", "description-changed", "$.name")]


def test_default_changed_is_a_warning():
    @tool(name="t")
    def after(name: Annotated[str, P("name")], limit: Annotated[int, P("limit")] = 20
              ) -> None:
        """T."""

    assert diff(base, after) == [("warning", "default-changed", "$.limit")]


# --- types -----------------------------------------------------------------------------------

def one(annotation):
    """A tool ``t(x: annotation)`` with a described parameter."""

    def t(x):
        """T."""

    t.__annotations__ = {"x": Annotated[annotation, P("x")]}
    return spec(t)


TYPE_CASES = [
    # (id, before, after, expected findings)
    ("type changed", str, int, [("breaking", "type-changed", "$.x")]),
    ("number narrowed to integer", float, int, [("breaking", "type-narrowed", "$.x")]),
    ("integer widened to number", int, float, [("info", "type-widened", "$.x")]),
    ("enum value removed", Literal["a", "b", "c"], Literal["a", "b"],
     [("breaking", "enum-value-removed", "$.x")]),
    ("enum value added", Literal["a", "b"], Literal["a", "b", "c"],
     [("info", "enum-value-added", "$.x")]),
    ("enum added", str, Literal["a", "b"], [("breaking", "enum-added", "$.x")]),
    ("enum dropped", Literal["a", "b"], str, [("info", "enum-removed", "$.x")]),
    ("format added", str, uuid.UUID, [("breaking", "format-added", "$.x")]),
    ("format removed", uuid.UUID, str, [("info", "format-removed", "$.x")]),
    ("union member removed", int | str, int, [("breaking", "any-of-member-removed", "$.x")]),
    ("union member added", int, int | str, [("info", "any-of-member-added", "$.x")]),
    ("items type changed", list[int], list[str], [("breaking", "type-changed", "$.x[*]")]),
    ("items widened", list[int], list[float], [("info", "type-widened", "$.x[*]")]),
    ("null no longer accepted", list[int | None], list[int],
     [("breaking", "null-removed", "$.x[*]")]),
    ("null now accepted", list[int], list[int | None], [("info", "null-added", "$.x[*]")]),
    ("mapping values changed", dict[str, int], dict[str, str],
     [("breaking", "type-changed", "$.x.*")]),
    ("set now unique", list[str], set[str], [("breaking", "unique-items-added", "$.x")]),
    ("set no longer unique", set[str], list[str], [("info", "unique-items-removed", "$.x")]),
    ("tuple grew", tuple[float, float], tuple[float, float, float],
     [("breaking", "bound-tightened", "$.x"), ("info", "bound-loosened", "$.x")]),
    ("tuple position changed", tuple[int, str], tuple[int, int],
     [("breaking", "type-changed", "$.x[1]")]),
    ("tuple to list", tuple[int, int], list[int],
     [("info", "bound-removed", "$.x"), ("info", "bound-removed", "$.x")]),
    ("any narrowed", list, list[int], [("breaking", "type-narrowed", "$.x[*]")]),
    ("any widened", list[int], list, [("info", "type-widened", "$.x[*]")]),
]


@pytest.mark.parametrize(("before", "after", "expected"),
                         [case[1:] for case in TYPE_CASES], ids=[c[0] for c in TYPE_CASES])
def test_type_changes(before, after, expected):
    assert diff(one(before), one(after)) == expected


# --- bounds ----------------------------------------------------------------------------------

BOUND_CASES = [
    ("lower maximum", P(maximum=100), P(maximum=50), "breaking", "bound-tightened"),
    ("higher maximum", P(maximum=50), P(maximum=100), "info", "bound-loosened"),
    ("higher minimum", P(minimum=1), P(minimum=5), "breaking", "bound-tightened"),
    ("lower minimum", P(minimum=5), P(minimum=1), "info", "bound-loosened"),
    ("new minimum", P(), P(minimum=0), "breaking", "bound-added"),
    ("new maximum", P(), P(maximum=9), "breaking", "bound-added"),
    ("minimum removed", P(minimum=0), P(), "info", "bound-removed"),
]


@pytest.mark.parametrize(("before", "after", "level", "rule"),
                         [case[1:] for case in BOUND_CASES], ids=[c[0] for c in BOUND_CASES])
def test_bound_changes(before, after, level, rule):
    assert diff(one(Annotated[int, before]), one(Annotated[int, after])) == [
        (level, rule, "$.x")]


def test_int_to_int32_adds_bounds():
    assert diff(one(int), one(Int32)) == [("breaking", "bound-added", "$.x"),
                                          ("breaking", "bound-added", "$.x")]


def test_hand_written_keywords():
    def schema(**keywords):
        return raw("t", obj({"x": {"type": "string", "description": "x", **keywords}}))

    assert diff(schema(), schema(pattern="^a")) == [("breaking", "pattern-added", "$.x")]
    assert diff(schema(pattern="^a"), schema(pattern="^b")) == [
        ("breaking", "pattern-changed", "$.x")]
    assert diff(schema(pattern="^a"), schema()) == [("info", "pattern-removed", "$.x")]
    assert diff(schema(maxLength=10), schema(maxLength=5)) == [
        ("breaking", "bound-tightened", "$.x")]
    assert diff(schema(format="date"), schema(format="date-time")) == [
        ("breaking", "format-changed", "$.x")]
    numbers = [raw("t", obj({"n": {"type": "number", "multipleOf": m}})) for m in (10, 5, 3)]
    assert diff(numbers[0], numbers[1]) == [("info", "bound-loosened", "$.n")]
    assert diff(numbers[1], numbers[2]) == [("breaking", "bound-tightened", "$.n")]


def test_extra_keys_closed_is_breaking():
    open_ = raw("t", obj({"a": {"type": "string"}}))
    closed = raw("t", {**obj({"a": {"type": "string"}}), "additionalProperties": False})
    assert diff(open_, closed) == [("breaking", "extra-keys-closed", "$")]
    assert diff(closed, open_) == [("info", "extra-keys-opened", "$")]


# --- nested objects and $defs ----------------------------------------------------------------

@dataclass
class LineV1:
    """A line."""

    sku: str
    qty: int
    note: str | None = None


@dataclass
class LineV2:
    """A line."""

    sku: str
    qty: Annotated[int, P(maximum=99)]
    gift: bool


@dataclass
class TreeV1:
    value: int
    children: list[TreeV1]


@dataclass
class TreeV2:
    value: str
    children: list[TreeV2]


def test_nested_fields_are_compared_with_their_path():
    assert diff(one(list[LineV1]), one(list[LineV2])) == [
        ("breaking", "bound-added", "$.x[*].qty"),
        ("breaking", "parameter-removed", "$.x[*].note"),
        ("breaking", "required-parameter-added", "$.x[*].gift"),
    ]


def test_recursive_definitions_are_compared_once_per_path():
    findings = diff(one(TreeV1), one(TreeV2))
    assert findings == [("breaking", "type-changed", "$.x.value")]


def test_shared_definitions_are_followed_through_refs():
    before = obj({"a": {"$ref": "#/$defs/P"}, "b": {"$ref": "#/$defs/P"}})
    before["$defs"] = {"P": obj({"n": {"type": "integer"}})}
    after = obj({"a": {"$ref": "#/$defs/P"}, "b": {"$ref": "#/$defs/P"}})
    after["$defs"] = {"P": obj({"n": {"type": "string"}})}
    assert diff(raw("t", before), raw("t", after)) == [
        ("breaking", "type-changed", "$.a.n"), ("breaking", "type-changed", "$.b.n")]


# --- the whole picture ------------------------------------------------------------------------

def test_a_non_breaking_release_has_no_breaking_finding(shop_specs):
    before = list(shop_specs.values())
    changed = dict(shop_specs)
    price = changed["getPrice"]
    params = {**price.parameters, "properties": {
        **price.parameters["properties"],
        "currency": {"type": "string", "enum": ["CNY", "USD"], "description": "Currency"}}}
    changed["getPrice"] = ToolSpecification(name="getPrice", description="计算商品总价",
                                            parameters=params)
    extra = ToolSpecification(name="ping", description="Ping.",
                              parameters=obj({}))
    findings = diff_specs(before, [*changed.values(), extra])
    assert {f.level for f in findings} == {"warning", "info"}
    assert [(f.tool, f.rule) for f in findings] == [
        ("getPrice", "description-changed"), ("getPrice", "parameter-added"),
        ("ping", "tool-added")]


def test_every_breaking_finding_names_the_tool_and_the_parameter():
    cases = [(case[1], case[2]) for case in TYPE_CASES]
    for before, after in cases:
        for finding in diff_specs([one(before)], [one(after)]):
            if finding.level == "breaking":
                text = str(finding)
                assert text.startswith("breaking: ")
                assert 'tool "t"' in text and 'parameter "x' in text, text
