"""Silencing a lint rule for one tool: ``@tool(lint_ignore=...)`` and ``check_specs(...,
silencings=...)``; the catalogue of rule ids a silencing may name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from provider_testing import obj, raw

from agentforge_cli import build_local_tools, tool
from agentforge_cli.integrations.mcp.client.findings import TASK_RULE, UNUSABLE_RULE
from agentforge_cli.schema.findings import (
    exit_code,
    fails,
    findings_to_json,
    format_findings,
    summarize,
)
from agentforge_cli.schema.lint import check_specs
from agentforge_cli.schema.providers import PROVIDERS, export_tools
from agentforge_cli.schema.rule_ids import NEUTRAL_RULES, PROVIDER_RULES, rule_problem
from agentforge_cli.schema.silencing import Silencing

SCHEMA_PACKAGE = Path(__file__).resolve().parents[2] / "agentforge_cli" / "schema"


def decorator_line(func) -> str:
    """``tests/schema/test_lint_silencing.py:30``: the line of ``func``'s ``@tool``,
    relative to the working directory."""
    line = func.__code__.co_firstlineno
    assert Path(__file__).read_text().splitlines()[line - 1].lstrip().startswith(
        "@tool(lint_ignore=")
    return f"{Path(__file__).resolve().relative_to(Path.cwd())}:{line}"


@tool(lint_ignore=["no-description", "openai-strict:free-form-object"])
def restock(levels: dict[str, int]) -> str:
    """Add stock."""
    return str(levels)


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return city


def test_lint_ignore_marks_what_it_silences_and_it_counts_for_nothing():
    table = build_local_tools([restock, lookup])
    findings = check_specs(table, ["openai-strict"])
    shown = [(f.tool, f.rule, f.level, f.path, f.silenced) for f in findings]
    source = f"@tool(lint_ignore=...) at {decorator_line(restock)}"
    assert shown == [
        ("restock", "no-description", "warning", "$.levels", source),
        ("restock", "openai-strict:free-form-object", "error", "$.levels", source),
        ("lookup", "no-description", "warning", "$.city", ""),
    ]
    # the silenced error fails nothing; the other tool's warning still counts
    assert not fails(findings) and exit_code(findings) == 0
    assert fails(findings, "warning")
    assert summarize(findings) == {"breaking": 0, "error": 0, "warning": 1, "info": 0}
    document = findings_to_json(findings)
    assert [row["tool"] for row in document["findings"]] == ["lookup"]
    assert [(row["rule"], row["silenced_by"]) for row in document["silenced"]] == [
        ("no-description", source), ("openai-strict:free-form-object", source)]
    assert format_findings(findings).splitlines()[-1].endswith(f"(silenced by {source})")
    # without the silencing, the same error fails
    assert exit_code(check_specs(list(table), ["openai-strict"])) == 1


def test_lint_ignore_does_not_change_the_schema_or_any_export():
    @tool(name="restock")
    def plain(levels: dict[str, int]) -> str:
        """Add stock."""
        return str(levels)

    [silenced] = build_local_tools(restock)
    [bare] = build_local_tools(plain)
    assert silenced == bare
    assert silenced.to_dict() == bare.to_dict()
    for provider in ("openai", "anthropic", "gemini", "mcp"):
        assert export_tools([silenced], provider).data == export_tools([bare], provider).data


@pytest.mark.parametrize("value", ["no-description", [3], [""], {"no-description": True}])
def test_lint_ignore_must_be_a_list_of_rule_ids(value):
    with pytest.raises(TypeError, match=re.escape("@tool(lint_ignore=...) must be a list of "
                                                  "rule ids")):
        tool(lint_ignore=value)


def test_silencings_given_apply_per_tool_and_rule():
    specs = [raw("a", obj({"x": {"type": "string"}}), "A."),
             raw("b", obj({"x": {"type": "string"}}), "B.")]
    given = [Silencing(tool="a", rules=("no-description",), source="config")]
    found = [(f.tool, f.silenced) for f in check_specs(specs, silencings=given)]
    assert found == [("a", "config"), ("b", "")]


@pytest.mark.parametrize(("rule", "problem"), [
    ("no-descripton", "unknown lint rule 'no-descripton' (did you mean 'no-description'?): "
                      "the provider-neutral rules are: "),
    ("gemini:free-form-objekt", "unknown lint rule 'gemini:free-form-objekt' (did you mean "
                                "'gemini:free-form-object'?): gemini has no rule "
                                "'free-form-objekt'"),
    ("bard:name", "no provider is named 'bard'; the providers: openai, "),
    ("tool-removed", "unknown lint rule 'tool-removed'"),  # a snapshot change, not lint
])
def test_a_silencing_naming_an_unknown_rule_is_refused(rule, problem):
    given = [Silencing(tool="a", rules=(rule,), source="pyproject.toml")]
    with pytest.raises(ValueError) as info:
        check_specs([raw("a", obj({}), "A.")], silencings=given)
    assert str(info.value).startswith('pyproject.toml, tool "a": unknown lint rule')
    assert problem in str(info.value)

    @tool(lint_ignore=[rule])
    def odd() -> None:
        """Odd."""

    with pytest.raises(ValueError, match=re.escape(f"@tool(lint_ignore=...) at "
                                                   f"{decorator_line(odd)}, tool \"odd\": ")):
        check_specs(build_local_tools(odd))


def test_every_rule_a_finding_about_a_tool_can_carry_is_in_the_catalogue():
    """Read the rule ids from the sources of lint and the providers: a new rule must be
    added to ``rule_ids`` or it could not be silenced."""
    neutral = set(re.findall(r'finding\(\s*[\w.]+,\s*"([a-z-]+)"',
                             (SCHEMA_PACKAGE / "lint.py").read_text()))
    neutral.add("invalid-default")  # default_rule.RULE
    assert neutral == set(NEUTRAL_RULES)
    issued = set()
    for source in (SCHEMA_PACKAGE / "providers").glob("*.py"):
        text = source.read_text()
        issued |= set(re.findall(r'self\.(?:warn|error)\(\s*[^,]+,\s*"([a-z-]+)"', text))
        issued |= set(re.findall(r'rule="([a-z-]+)"', text))
        issued |= {rule.split(":")[1] for rule in re.findall(r'"([a-z]+:[a-z-]+)"', text)}
    issued -= {"root-not-object", "unresolved-ref", "ref-cycle"}  # reported neutrally
    assert issued | {"name"} == set(PROVIDER_RULES)
    for rule in (UNUSABLE_RULE, TASK_RULE, "gemini-mcp:boolean-schema", "mcp:name",
                 *(f"{provider}:name" for provider in PROVIDERS)):
        assert rule_problem(rule) is None, rule


def test_every_rule_the_samples_raise_can_be_silenced(sample_specs):
    found = {f.rule for f in check_specs(sample_specs, PROVIDERS)}
    assert found  # the samples do raise some
    assert {rule: rule_problem(rule) for rule in found} == dict.fromkeys(found)
