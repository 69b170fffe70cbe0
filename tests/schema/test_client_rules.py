"""``check_specs(..., clients=...)``: every rule of every registered client, with a tool
set that breaks it and one that passes; the silent failures of real clients; the counts
of Anthropic's strict mode; silencing a client rule."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import pytest

from agentforge_cli import P, ToolSpecification, build_local_tools, tool
from agentforge_cli.schema.clients import REGISTRY, RULE_KINDS, ClientRule, get_client
from agentforge_cli.schema.clients.rules import strict_counts
from agentforge_cli.schema.lint import check_specs
from agentforge_cli.schema.rule_ids import rule_problem
from agentforge_cli.schema.silencing import Silencing

OBJECT = {"type": "object", "properties": {}}
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
TOP_LEVEL_ANY_OF = {"anyOf": [
    {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}]}


def spec(name: str = "lookup", **fields: Any) -> ToolSpecification:
    return ToolSpecification(name=name, description="Look it up.", **fields)


def with_params(count: int, *, optional: bool, union: bool = False) -> ToolSpecification:
    kind: dict[str, Any] = {"type": ["string", "null"]} if union else {"type": "string"}
    properties = {f"p{i}": dict(kind) for i in range(count)}
    return spec("wide", parameters={"type": "object", "properties": properties,
                                    "required": [] if optional else list(properties)})


def tool_sets(rule: ClientRule) -> tuple[list[ToolSpecification], list[ToolSpecification]]:
    """``(breaks the rule, passes it)`` for a rule of its kind and limit."""
    limit = rule.limit or 0
    fixed = len(rule.prefix.replace("<server>", ""))
    return {
        "name": ([spec("a.b")], [spec("lookup_v2-x")]),
        "name-length": ([spec("x" * (limit - fixed + 1))], [spec("x" * (limit - fixed))]),
        "name-collision": ([spec("a/b"), spec("a_b")], [spec("a_b"), spec("a-b")]),
        "input-root": ([spec(parameters=TOP_LEVEL_ANY_OF)], [spec(parameters=OBJECT)]),
        "output-root": ([spec(output_schema={"type": "array"})],
                        [spec(output_schema=OBJECT)]),
        "output-dialect": (
            [spec(output_schema={**OBJECT, "$schema": DRAFT_07})],
            [spec(output_schema={**OBJECT, "$schema":
                                 "https://json-schema.org/draft/2020-12/schema"}),
             spec("plain", output_schema=OBJECT)]),
        "refs": ([spec(parameters={"type": "object", "$defs": {"Id": {"type": "string"}},
                                   "properties": {"id": {"$ref": "#/$defs/Id"}}})],
                 [spec(parameters={"type": "object",
                                   "properties": {"id": {"type": "string"}}})]),
        "description-length": ([ToolSpecification(name="t", description="d" * (limit + 1))],
                               [ToolSpecification(name="t", description="d" * limit)]),
        "tool-count": ([spec(f"t{i}") for i in range(limit + 1)],
                       [spec(f"t{i}") for i in range(limit)]),
        "strict-optional": ([with_params(limit + 1, optional=True)],
                            [with_params(limit, optional=True)]),
        "strict-unions": ([with_params(limit + 1, optional=False, union=True)],
                          [with_params(limit, optional=False, union=True)]),
    }[rule.kind]


RULES = [(client.name, rule) for client in REGISTRY for rule in client.rules]


@pytest.mark.parametrize(("client", "rule"), RULES,
                         ids=[f"{name}:{rule.kind}" for name, rule in RULES])
def test_each_client_rule_has_a_breaking_and_a_passing_tool_set(client: str,
                                                                rule: ClientRule) -> None:
    rule_id = f"{client}:{rule.kind}"
    breaking, passing = tool_sets(rule)
    found = [f for f in check_specs(breaking, clients=[client]) if f.rule == rule_id]
    assert found, f"{rule_id} found nothing in a tool set that breaks it"
    assert {f.level for f in found} == {rule.level}
    assert all(get_client(client).title in f.message for f in found)
    assert not [f for f in check_specs(passing, clients=[client]) if f.rule == rule_id]


def test_every_client_rule_is_a_known_kind_with_a_dated_source() -> None:
    for client in REGISTRY:
        kinds = [rule.kind for rule in client.rules]
        assert len(kinds) == len(set(kinds)), client.name
        for rule in client.rules:
            assert rule.kind in RULE_KINDS
            assert rule.level in ("error", "warning")
            assert rule.source.url.startswith("https://")
            assert len(rule.source.checked) == 10 and rule.source.checked[4] == "-"
            assert rule_problem(f"{client.name}:{rule.kind}") is None


def test_a_top_level_any_of_is_caught_for_claude_code() -> None:
    findings = check_specs([spec("pick", parameters=TOP_LEVEL_ANY_OF), spec("other")],
                           clients=["claude-code"])
    [found] = [f for f in findings if f.rule == "claude-code:input-root"]
    assert (found.tool, found.level) == ("pick", "error")
    assert "refuses anyOf at the root of the input schema" in found.message
    assert "every tool of the server is dropped" in found.message


def test_a_draft_07_output_schema_is_caught_for_claude_code_and_desktop() -> None:
    typed = spec("report", output_schema={**OBJECT, "$schema": DRAFT_07})
    for client in ("claude-code", "claude-desktop"):
        [found] = [f for f in check_specs([typed], clients=[client])
                   if f.rule == f"{client}:output-dialect"]
        assert found.level == "error"
        assert f'"$schema": "{DRAFT_07}"' in found.message
    assert not [f for f in check_specs([typed], clients=["codex", "cursor"])
                if f.rule.endswith("output-dialect")]


def test_a_dotted_name_is_caught_where_it_breaks() -> None:
    dotted = [spec("a.b")]
    refused = {f.rule for f in check_specs(dotted, clients=[c.name for c in REGISTRY])
               if f.rule.endswith(":name")}
    assert refused == {"claude-desktop:name", "codex:name", "cursor:name", "vscode:name",
                       "chatgpt:name"}
    # Gemini accepts dots; Claude Code rewrites the name: alone it is no problem there
    assert not [f for f in check_specs(dotted, clients=["gemini-cli", "claude-code"])
                if f.rule.startswith(("gemini-cli:", "claude-code:"))]
    both = check_specs([spec("a.b"), spec("a_b")], clients=["claude-code"])
    assert sorted(f.tool for f in both if f.rule == "claude-code:name-collision") == [
        "a.b", "a_b"]


def test_a_long_name_is_counted_with_the_client_prefix() -> None:
    name = "x" * 58  # 7 characters of mcp____ make 65
    [found] = [f for f in check_specs([spec(name)], clients=["claude-code"])
               if f.rule == "claude-code:name-length"]
    assert "allows 64 characters" in found.message and "this one is 65" in found.message
    assert "plus the server's name" in found.message


def test_gemini_cli_shortened_names_can_collide() -> None:
    first, second = ("x" * 30 + middle + "x" * 40 for middle in ("_read", "_write"))
    findings = check_specs([spec(first), spec(second)], clients=["gemini-cli"])
    assert [f.tool for f in findings if f.rule == "gemini-cli:name-collision"] == [
        first, second]
    assert [f.level for f in findings if f.rule == "gemini-cli:name-length"] == [
        "warning", "warning"]


def test_the_client_adds_the_lint_of_its_providers_but_their_name_rule() -> None:
    spaced = spec("a.b", parameters={"type": "object", "properties": {
        "my key": {"type": "string", "description": "The key."}}})
    rules = {f.rule for f in check_specs([spaced], clients=["gemini-cli"])}
    assert "gemini:parameter-name" in rules
    # Claude Code rewrites a name the API refuses: the anthropic name rule does not run
    assert not {f.rule for f in check_specs([spaced], clients=["claude-code"])} & {
        "anthropic:name", "claude-code:name"}
    assert "anthropic:name" in {f.rule for f in check_specs(
        [spaced], ["anthropic"], clients=["claude-code"])}


def test_strict_counts_go_through_nested_objects_items_and_refs() -> None:
    @tool
    def ship(to: Annotated[dict[str, str], P("Where")], note: str | None = None,
             rush: bool = False) -> str:
        """Ship it."""
        return ""

    [shipped] = build_local_tools([ship])
    assert strict_counts([shipped]) == (2, 1)  # note and rush optional; note a union
    nested = spec(parameters={
        "type": "object", "$defs": {"Line": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"anyOf": [{"type": "integer"},
                                                         {"type": "null"}]}},
            "required": ["sku"]}},
        "properties": {"lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
                       "self": {"$ref": "#/$defs/Line"}},
        "required": ["lines"]})
    assert strict_counts([nested]) == (3, 2)  # self; qty twice (items and self)


def test_a_set_finding_names_no_tool_and_the_count() -> None:
    findings = check_specs([spec(f"t{i}") for i in range(21)], clients=["claude-strict"])
    [found] = [f for f in findings if f.rule == "claude-strict:tool-count"]
    assert found.tool == "" and found.message.startswith("the tool set: ")
    assert "allows 20 tools, this set has 21" in found.message


@tool(name="legacy.lookup", lint_ignore=["codex:name"])
def legacy_lookup(key: Annotated[str, P("The key")]) -> str:
    """Look a key up."""
    return key


def test_lint_ignore_silences_a_client_rule_and_every_tool_silences_a_set_rule() -> None:
    findings = check_specs(build_local_tools([legacy_lookup]), clients=["codex"])
    assert [(f.tool, f.rule, f.silenced) for f in findings] == [
        ("legacy.lookup", "codex:name", f"@tool(lint_ignore=...) at {decorator_line()}")]
    many = [spec(f"t{i}") for i in range(129)]
    findings = check_specs(many, clients=["codex"], silencings=[
        Silencing(tool="*", rules=("codex:tool-count",), source="config")])
    [count] = [f for f in findings if f.rule == "codex:tool-count"]
    assert count.silenced == "config"
    unsilenced = check_specs(many, clients=["codex"], silencings=[
        Silencing(tool="t0", rules=("codex:tool-count",), source="config")])
    assert [f.silenced for f in unsilenced if f.rule == "codex:tool-count"] == [""]


def decorator_line() -> str:
    """Where ``legacy_lookup``'s ``@tool`` is, as the silencing names it."""
    line = legacy_lookup.__code__.co_firstlineno
    return f"{Path(__file__).resolve().relative_to(Path.cwd())}:{line}"


def test_an_unknown_client_or_client_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown client 'claude'; choose one of: "
                                         "claude-desktop, claude-code"):
        check_specs([spec()], clients=["claude"])
    assert "the client codex has no rule 'names'" in (rule_problem("codex:names") or "")
    assert "did you mean 'codex:name'" in (rule_problem("codex:names") or "")
    with pytest.raises(ValueError, match="codex has no rule 'nme'"):
        check_specs([spec()], silencings=[Silencing(tool="lookup", rules=("codex:nme",),
                                                    source="test")])


def test_client_names_ignore_case() -> None:
    assert get_client(" Claude-Code ").name == "claude-code"
