"""``tools check`` lint rules: neutral rules, provider name rules, exportability."""

from __future__ import annotations

import datetime
import enum
import sys
from typing import Annotated, Any, Literal

import pytest
from provider_testing import obj, raw, spec

from agentforge_cli import P, ToolSpecification, build_local_tools, tool
from agentforge_cli.schema.findings import (
    Finding,
    exit_code,
    fails,
    findings_to_json,
    format_findings,
    summarize,
)
from agentforge_cli.schema.lint import check_specs, run_checks
from agentforge_cli.schema.providers import PROVIDERS, REGISTRY, name_problem
from agentforge_cli.schema.snapshots import SnapshotMissingError


def rules(findings: list[Finding]) -> list[tuple[str, str, str, str]]:
    return [(f.tool, f.rule, f.level, f.path) for f in findings]


# --- neutral rules ---------------------------------------------------------------------------

def test_sample_tools_pass_the_neutral_rules(sample_specs):
    assert [f for f in check_specs(sample_specs) if f.level == "error"] == []


def test_no_provider_means_no_provider_rules(sample_specs):
    assert not [f for f in check_specs(sample_specs) if ":" in f.rule]


def test_missing_descriptions_warn():
    def bare(a: int, b: Annotated[str, P("described")]) -> None:
        pass

    assert rules(check_specs([spec(bare)])) == [
        ("bare", "no-description", "warning", ""),
        ("bare", "no-description", "warning", "$.a"),
    ]


def test_a_nested_field_without_a_description_warns_at_its_path():
    parameters = {
        "type": "object",
        "properties": {"ship_to": {"$ref": "#/$defs/Address", "description": "Where."},
                       "lines": {"type": "array", "description": "What.",
                                 "items": {"type": "object", "properties": {
                                     "sku": {"type": "string", "description": "Code."},
                                     "qty": {"type": "integer"}}}}},
        "required": ["ship_to"],
        "$defs": {"Address": {"type": "object", "properties": {
            "street": {"type": "string"}, "city": {"type": "string", "description": "City."}}}},
    }
    found = rules(check_specs([ToolSpecification(name="order", description="Order.",
                                                 parameters=parameters)]))
    assert found == [("order", "no-description", "warning", "$.ship_to.street"),
                     ("order", "no-description", "warning", "$.lines[*].qty")]


def test_single_value_enum_and_any_warn():
    @tool(name="odd")
    def odd(mode: Annotated[Literal["only"], P("mode")],
            blob: Annotated[Any, P("blob")], items: Annotated[list[Any], P("items")]) -> None:
        """Odd tool."""

    assert rules(check_specs([spec(odd)])) == [
        ("odd", "single-enum", "warning", "$.mode"),
        ("odd", "any-type", "warning", "$.blob"),
        ("odd", "any-type", "warning", "$.items[*]"),
    ]
    message = check_specs([spec(odd)])[0].message
    assert 'tool "odd"' in message and 'parameter "mode"' in message


def test_an_invalid_schema_is_an_error_at_its_path():
    bad = raw("bad", obj({"x": {"type": "strng", "description": "x"}}))
    findings = check_specs([bad])
    assert rules(findings) == [("bad", "schema-invalid", "error", "$.x")]
    assert "/properties/x/type" in findings[0].message


def test_without_jsonschema_validity_is_not_checked(monkeypatch):
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    bad = raw("bad", obj({"x": {"type": "strng", "description": "x"}}))
    findings = check_specs([bad])
    assert rules(findings) == [("", "jsonschema-missing", "warning", "")]
    assert findings[0].message.startswith("jsonschema not installed, schema validity not "
                                          "checked")


def test_root_must_be_an_object_and_refs_must_resolve():
    findings = check_specs([
        raw("list_root", {"type": "array", "items": {"type": "string"}}),
        raw("dangling", obj({"x": {"$ref": "#/$defs/Missing", "description": "x"}})),
    ])
    assert rules(findings) == [
        ("list_root", "root-not-object", "error", "$"),
        ("dangling", "unresolved-ref", "error", "$.x"),
    ]


def test_a_definition_that_only_refers_to_itself_is_an_error():
    parameters = obj({"x": {"$ref": "#/$defs/A", "description": "x"}})
    parameters["$defs"] = {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"},
                           "C": obj({"c": {"$ref": "#/$defs/C"}})}
    assert rules(check_specs([raw("loop", parameters)])) == [
        ("loop", "ref-cycle", "error", "$defs.A"),
        ("loop", "ref-cycle", "error", "$defs.B"),
    ]


def test_duplicate_names_are_an_error():
    one = raw("same", obj({}))
    assert rules(check_specs([one, one])) == [("same", "duplicate-name", "error", "")]


def test_a_list_dict_or_set_default_is_a_mutable_default_warning():
    @tool
    def label(issue: Annotated[int, P("issue")],
              labels: Annotated[list[str], P("labels")] = [],  # noqa: B006
              extra: Annotated[dict[str, int], P("extra", name="extra_fields")] = {},  # noqa: B006
              seen: Annotated[set[str], P("seen")] = set(),  # noqa: B006
              kept: Annotated[tuple[str, ...], P("kept")] = (),
              frozen: Annotated[frozenset[str], P("frozen")] = frozenset(),
              none: Annotated[list[str] | None, P("none")] = None) -> None:
        """Label an issue."""

    table = build_local_tools(label)
    assert rules(check_specs(table)) == [
        ("label", "mutable-default", "warning", "$.labels"),
        ("label", "mutable-default", "warning", "$.extra_fields"),
        ("label", "mutable-default", "warning", "$.seen"),
    ]
    message = check_specs(table)[0].message
    assert "shared between calls" in message and "None" in message and "tuple" in message
    # specifications alone (a snapshot, a remote server) carry no Python default
    assert rules(check_specs(list(table))) == []
    assert rules(run_checks(table)) == rules(check_specs(table))


class Speed(enum.Enum):
    SLOW = "slow"
    FAST = "fast"


def test_a_python_default_its_own_type_refuses_is_an_error():
    @tool
    def tune(mode: Annotated[Literal["fast", "safe"], P("mode")] = "turbo",
             n: Annotated[int, P("n", minimum=1)] = 0,
             speed: Annotated[Speed, P("speed")] = "warp",
             tags: Annotated[list[Literal["a", "b"]], P("tags")] = ("a", "c"),
             count: Annotated[int, P("count")] = "5",
             password: Annotated[int, P("pin", maximum=9999)] = 123456) -> None:
        """Tune."""

    found = check_specs(build_local_tools(tune))
    assert rules(found) == [("tune", "invalid-default", "error", f"$.{key}") for key in
                            ("mode", "n", "speed", "tags", "count", "password")]
    by_path = {f.path: f.message for f in found}
    assert by_path["$.mode"].startswith(
        'tool "tune", parameter "mode": the default "turbo" is refused by its own type '
        "('turbo' is not one of ['fast', 'safe'])")
    assert "0 is less than the minimum of 1" in by_path["$.n"]
    assert "'warp' is not one of ['SLOW', 'FAST']" in by_path["$.speed"]
    assert "'c' is not one of ['a', 'b'] at [1]" in by_path["$.tags"]
    assert "'5' is not of type 'integer'" in by_path["$.count"]
    # a secret's default is never shown; the constraint it breaks is
    assert "123456" not in by_path["$.password"] and "*** is refused" in by_path["$.password"]
    assert "it breaks maximum" in by_path["$.password"]
    assert "change the type" in by_path["$.mode"]

    # defaults the type accepts, or with no JSON form to judge, pass
    @tool
    def fine(mode: Annotated[Literal["fast", "safe"], P("mode")] = "safe",
             n: Annotated[int, P("n", minimum=1)] = 1,
             speed: Annotated[Speed, P("speed")] = Speed.FAST,
             tags: Annotated[tuple[str, ...], P("tags")] = ("a",),
             ratio: Annotated[float, P("ratio")] = 2,
             maybe: Annotated[int | None, P("maybe")] = None,
             off: Annotated[str, P("off")] = None,  # noqa: RUF013
             day: Annotated[datetime.date, P("day")] = datetime.date(2024, 1, 1)) -> None:
        """Fine."""

    assert rules(check_specs(build_local_tools(fine))) == []


def test_a_schema_default_its_own_schema_refuses_is_an_error():
    parameters = obj({
        "code": {"type": "string", "pattern": "^[a-z]+$", "minLength": 3, "default": "A"},
        "color": {"$ref": "#/$defs/Color", "default": "purple"},
        "ship": {"type": "object", "properties": {
            "qty": {"type": "integer", "maximum": 2, "default": 5, "description": "q"}}},
        "id": {"type": "string", "format": "uuid", "default": "nope"},
        "api_key": {"type": "string", "minLength": 30, "default": "sk-live-123"},
        "limit": {"type": ["integer", "null"], "minimum": 1, "default": None},
        "label": {"default": "anything"},
        "ok": {"type": "integer", "enum": [1, 2], "default": 2},
    })
    parameters["$defs"] = {"Color": {"enum": ["red", "blue"]}}
    found = check_specs([raw("remote", parameters)])
    errors = [f for f in found if f.rule == "invalid-default"]
    assert rules(errors) == [("remote", "invalid-default", "error", path) for path in
                             ("$.code", "$.color", "$.ship.qty", "$.id", "$.api_key")]
    messages = {f.path: f.message for f in errors}
    assert messages["$.code"] == (
        'tool "remote", parameter "code": the default "A" is refused by its own schema '
        "('A' does not match '^[a-z]+$'; 'A' is too short): a model told this default may "
        "leave the argument out and get a value the tool refuses; make the default a value "
        "the schema accepts, or widen the schema")
    assert "'purple' is not one of ['red', 'blue']" in messages["$.color"]
    assert "5 is greater than the maximum of 2" in messages["$.ship.qty"]
    assert "'nope' is not a 'uuid'" in messages["$.id"]
    assert "sk-live" not in messages["$.api_key"] and "it breaks minLength" in messages[
        "$.api_key"]

    # no verdict against a schema that is itself broken (other rules report it)
    broken = raw("broken", obj({"x": {"type": "strng", "default": 1, "description": "x"},
                                "y": {"type": "string", "pattern": "(", "default": "a",
                                      "description": "y"},
                                "z": {"$ref": "#/$defs/Gone", "default": 1,
                                      "description": "z"}}))
    assert [f.rule for f in check_specs([broken])] == ["schema-invalid", "unresolved-ref"]
    # the metaschema does not check a pattern's syntax: an unusable pattern is no verdict
    unusable = raw("unusable", obj({"y": {"type": "string", "pattern": "(", "default": "a",
                                          "description": "y"}}))
    assert check_specs([unusable]) == []
    looping = obj({"x": {"$ref": "#/$defs/Loop", "default": 1, "description": "x"}})
    looping["$defs"] = {"Loop": {"$ref": "#/$defs/Loop", "const": 2}}
    assert check_specs([raw("looping", looping)]) == []


# --- provider rules --------------------------------------------------------------------------

@pytest.mark.parametrize(("provider", "name", "accepted"), [
    ("openai", "get_weather-2", True),
    ("openai", "get.weather", False),
    ("openai", "x" * 64, True),
    ("openai", "x" * 65, False),
    ("openai", "查询", False),
    ("openai-strict", "a b", False),
    ("anthropic", "getWeather", True),
    ("anthropic", "ns/tool", False),
    ("gemini", "get.weather:v2", True),
    ("gemini", "_private", True),
    ("gemini", "2fast", False),
    ("gemini", "-dash", False),
    ("gemini", "a" * 64, True),
    ("gemini", "a" * 65, False),
    ("mcp", "files/read.v2", True),
    ("mcp", "x" * 128, True),
    ("mcp", "x" * 129, False),
    ("mcp", "bad name", False),
    ("mcp", "", False),
])
def test_name_rules(provider, name, accepted):
    assert (name_problem(provider, name) is None) is accepted


def test_every_registered_provider_is_checkable_by_name():
    assert tuple(p.name for p in REGISTRY) == PROVIDERS
    assert len(set(PROVIDERS)) == len(PROVIDERS)
    for provider in REGISTRY:
        assert name_problem(provider.name, "get_weather") is None, provider.name


def test_provider_name_errors_are_per_provider():
    dotted = raw("crm.query", obj({}), "Query the CRM.")
    findings = check_specs([dotted], ["openai", "anthropic", "gemini", "mcp"])
    assert rules(findings) == [
        ("crm.query", "openai:name", "error", ""),
        ("crm.query", "anthropic:name", "error", ""),
    ]
    assert findings[0].message.startswith('tool "crm.query": openai refuses the name')


def test_a_slash_is_accepted_by_mcp_with_a_warning():
    findings = check_specs([raw("files/read", obj({}), "Read.")], ["mcp"])
    assert rules(findings) == [("files/read", "mcp:name", "warning", "")]


def test_gemini_warns_about_parameter_names():
    @tool(name="lookup")
    def lookup(city: Annotated[str, P("城市", name="城市")]) -> None:
        """Look up."""

    assert rules(check_specs([spec(lookup)], ["gemini"])) == [
        ("lookup", "gemini:parameter-name", "warning", '$["城市"]')]


def test_exportability_per_provider(shop_specs):
    restock = shop_specs["restock"]
    assert rules(check_specs([restock], ["openai", "anthropic", "mcp"])) == []
    assert rules(check_specs([restock], ["openai-strict"])) == [
        ("restock", "openai-strict:free-form-object", "error", "$.levels")]
    assert rules(check_specs([restock], ["gemini"])) == [
        ("restock", "gemini:free-form-object", "warning", "$.levels")]


def test_sample_tools_per_provider(sample_specs):
    by_provider = {p: check_specs(sample_specs, [p]) for p in PROVIDERS}
    for provider in ("openai", "anthropic", "mcp"):
        assert by_provider[provider] == check_specs(sample_specs), provider
    strict_errors = [f for f in by_provider["openai-strict"] if f.level == "error"]
    assert rules(strict_errors) == [
        ("restock", "openai-strict:free-form-object", "error", "$.levels")]
    assert not [f for f in by_provider["gemini"] if f.level == "error"]
    gemini_rules = {f.rule for f in by_provider["gemini"] if f.level == "warning"}
    assert gemini_rules == {"gemini:unique-items", "gemini:free-form-object",
                            "gemini:unsupported-format"}


def test_provider_aliases_and_duplicates():
    found = check_specs([raw("a.b", obj({}))], ["OpenAI", "openai"])
    assert rules(found) == [("a.b", "openai:name", "error", "")]
    with pytest.raises(ValueError, match="unknown provider"):
        check_specs([], ["bard"])


# --- results ---------------------------------------------------------------------------------

def test_fail_thresholds_and_summary():
    warning = Finding(tool="t", rule="no-description", level="warning", message="m")
    error = Finding(tool="t", rule="x", level="error", message="m")
    breaking = Finding(tool="t", rule="tool-removed", level="breaking", message="m")
    info = Finding(tool="t", rule="tool-added", level="info", message="m")
    assert not fails([warning, info])
    assert fails([warning], "warning")
    assert fails([error]) and fails([breaking])
    assert exit_code([info]) == 0 and exit_code([breaking]) == 1
    assert exit_code([warning], fail_on="warning") == 1
    assert summarize([warning, error, breaking, info, info]) == {
        "breaking": 1, "error": 1, "warning": 1, "info": 2}
    document = findings_to_json([warning, error])
    assert document["ok"] is False
    assert document["findings"][0] == {"tool": "t", "rule": "no-description",
                                       "level": "warning", "message": "m", "path": ""}
    assert format_findings([warning, error]).splitlines() == [
        "error: m [x]", "warning: m [no-description]"]


def test_run_checks_with_a_snapshot(tmp_path, sample_specs):
    path = tmp_path / "tools.json"
    with pytest.raises(SnapshotMissingError):
        run_checks(sample_specs, snapshot=path)
    written = run_checks(sample_specs, snapshot=path, update_snapshot=True)
    assert [f.rule for f in written] == ["snapshot-updated"]
    assert run_checks(sample_specs, providers=["openai"], snapshot=path) == check_specs(
        sample_specs)
    fewer = run_checks(sample_specs[1:], snapshot=path)
    assert [(f.rule, f.level) for f in fewer if f.rule == "tool-removed"] == [
        ("tool-removed", "breaking")]
