"""The provider registry is the one extension point: a provider registered there is
exported, linted and offered by the command line, with no other file touched (the
``agentforge.providers`` entry points: tests/core/declare/test_entry_point_plugins.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from provider_testing import obj, raw

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema import providers
from agentforge_cli.schema.findings import WARNING, Finding, finding
from agentforge_cli.schema.lint import check_specs
from agentforge_cli.schema.providers import (
    LIST_FORMATS,
    PROVIDERS,
    REGISTRY,
    a_provider,
    export_tools,
    get_provider,
    provider_name,
)
from agentforge_cli.schema.providers.base import (
    NameRule,
    Provider,
    ProviderWalker,
    ToolConversion,
)

CRM = "sample_tools.crm:CrmTools"


# --- a provider of the test's own, as a provider module would declare it ---------------------

def convert_acme(spec: ToolSpecification) -> ToolConversion:
    walker = ProviderWalker(spec, "acme")
    if walker.root_object() and "limit" in (spec.parameters.get("properties") or {}):
        walker.warn("$.limit", "limit-ignored", "acme ignores limits; exported as is")
    return walker.conversion({"fn": spec.name, "args": spec.parameters})


def no_underscores(spec: ToolSpecification) -> Iterator[Finding]:
    if "_" in spec.name:
        yield finding(spec.name, "acme:underscore", WARNING, "acme prefers names without '_'")


ACME = Provider(name="acme", convert=convert_acme,
                name_rule=NameRule(pattern=re.compile(r"[a-z_]{1,8}"),
                                   text="use 1 to 8 lowercase letters or '_'"),
                lint_rules=(no_underscores,), wrap=lambda entries: {"functions": entries})


@pytest.fixture
def acme(monkeypatch: pytest.MonkeyPatch) -> Provider:
    """ACME registered with ``REGISTRY.register``, as a provider package does; on a copy of
    the registry, so that no other test sees it."""
    registry = ExtensionPoint(REGISTRY.kind, REGISTRY.group, REGISTRY.entries(),
                              check=a_provider)
    monkeypatch.setattr(providers, "REGISTRY", registry)
    return registry.register(ACME)


@pytest.fixture(autouse=True)
def _plain(plain_terminal: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line in a plain terminal (the shared ``plain_terminal`` and ``cli``)."""


# --- the library --------------------------------------------------------------------------------

def test_registered_provider_is_known_everywhere(acme):
    assert (*PROVIDERS, "acme") == providers.PROVIDERS
    assert (*LIST_FORMATS, "acme") == providers.LIST_FORMATS
    assert get_provider(" ACME ") is acme
    with pytest.raises(ValueError, match="strict mode applies to openai, openai-responses only, "
                                         "not 'acme'"):
        provider_name("acme", strict=True)


def test_registered_provider_exports_in_its_own_envelope(acme):
    spec = raw("lookup", obj({"limit": {"type": "integer", "description": "n"}}))
    export = export_tools([spec], "acme")
    assert export.provider == "acme"
    assert export.data == {"functions": [{"fn": "lookup", "args": spec.parameters}]}
    assert [str(w) for w in export.warnings] == [
        'acme: tool "lookup", parameter "limit": acme ignores limits; exported as is '
        "[limit-ignored]"]


def test_registered_provider_name_rule_and_lint_rules_run(acme):
    specs = [raw("get_it", obj({"limit": {"type": "integer", "description": "n"}})),
             raw("much_too_long", obj({}))]
    found = [(f.tool, f.rule, f.level, f.path) for f in check_specs(specs, ["acme"])]
    assert found == [
        ("get_it", "acme:underscore", "warning", ""),
        ("get_it", "acme:limit-ignored", "warning", "$.limit"),
        ("much_too_long", "acme:name", "error", ""),
        ("much_too_long", "acme:underscore", "warning", ""),
    ]


def test_only_a_provider_is_registered():
    with pytest.raises(TypeError, match="a provider is a Provider"):
        REGISTRY.register({"name": "acme"})  # type: ignore[arg-type]  # the refusal under test
    assert "acme" not in REGISTRY.names()


def test_an_unregistered_provider_is_unknown():
    with pytest.raises(ValueError, match="unknown provider 'acme'; choose one of: openai, "
                                         "openai-strict, openai-responses, "
                                         "openai-responses-strict, anthropic, gemini, "
                                         "gemini-json-schema, gemini-mcp, mcp"):
        check_specs([], ["acme"])


# --- the command line ---------------------------------------------------------------------------

def test_registered_provider_is_a_list_format(acme, cli):
    listed = cli("tools", "list", CRM, "--format", "acme")
    assert listed.exit_code == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert [entry["fn"] for entry in data["functions"]] == ["queryCustomer"]
    assert listed.stderr.splitlines() == [
        'warning: acme: tool "queryCustomer": the name is refused: use 1 to 8 lowercase '
        "letters or '_'; exported as it is (rename it with @tool(name=...)) [name]",
        'warning: acme: tool "queryCustomer", parameter "limit": acme ignores limits; '
        "exported as is [limit-ignored]"]
    unknown = cli("tools", "list", CRM, "--format", "nope")
    assert unknown.exit_code == 2
    assert ("table, json, openai, openai-responses, anthropic, gemini, gemini-json-schema, "
            "mcp, acme") in unknown.stderr
    strict = cli("tools", "list", CRM, "--format", "acme", "--strict")
    assert strict.exit_code == 2
    assert ("--strict with --format acme: strict mode applies to openai, openai-responses "
            "only") in strict.stderr


def test_registered_provider_is_checked_by_tools_check(acme, cli):
    result = cli("tools", "check", CRM, "--provider", "acme", "--json")
    assert result.exit_code == 1, result.stdout  # the name rule refuses "queryCustomer"
    data = json.loads(result.stdout)
    assert data["providers"] == ["acme"]
    assert [(f["rule"], f["level"], f["path"]) for f in data["findings"]] == [
        ("acme:name", "error", ""), ("acme:limit-ignored", "warning", "$.limit")]


def _options(*path: str) -> dict[str, Any]:
    from agentforge_cli.cli.app import app
    from agentforge_cli.cli.usage import make_help

    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    make_help(command.params)  # as --help does: some help is made only when shown
    return {opt: param for param in command.params for opt in getattr(param, "opts", ())}


def test_cli_help_names_exactly_the_registry():
    list_help = _options("tools", "list")["--format"].help
    assert list_help.endswith(f"or a provider's tool definitions: {', '.join(LIST_FORMATS)}.")
    strict_help = _options("tools", "list")["--strict"].help
    assert "with --format openai or openai-responses, export" in strict_help
    check_help = _options("tools", "check")["--provider"].help
    assert check_help.startswith(f"Also check a provider's rules: {', '.join(PROVIDERS)};")


def test_cli_format_choices_are_the_registry():
    from agentforge_cli.cli.tools_cmd import list_formats

    assert list(list_formats()) == ["table", "json", *LIST_FORMATS]
    assert tuple(p.name for p in REGISTRY if p.list_format) == LIST_FORMATS
