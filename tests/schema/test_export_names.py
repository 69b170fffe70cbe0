"""``tools list --format X`` exports a tool whose name X refuses, with a warning on stderr
that states X's name rule (exit 0); ``tools check --provider X`` reports it as an error."""

from __future__ import annotations

import json

import pytest

from agentforge_cli import ToolSpecification
from agentforge_cli.schema.providers import export_tools

LONG = "x" * 70
TOOLS = f'''
from agentforge_cli import tool

@tool(name="orders.cancel")
def cancel(order_id: str) -> str:
    """Cancel an order."""
    return order_id

@tool(name="{LONG}")
def long_one() -> str:
    """A tool with a long name."""
    return "ok"
'''

REFUSING = {
    "openai": "use 1 to 64 letters, digits, '_' or '-'",
    "anthropic": "use 1 to 64 letters, digits, '_' or '-'",
    "openai-responses": "use 1 to 64 letters, digits, '_' or '-'",
}


@pytest.fixture
def target(tmp_path) -> str:
    path = tmp_path / "named_tools.py"
    path.write_text(TOOLS, encoding="utf-8")
    return str(path)


@pytest.fixture(autouse=True)
def _plain(plain_terminal: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line in a plain terminal (the shared ``plain_terminal`` and ``cli``)."""
    monkeypatch.setenv("COLUMNS", "200")


def warning(provider: str, name: str, rule: str) -> str:
    return (f'warning: {provider}: tool "{name}": the name is refused: {rule}; exported as '
            "it is (rename it with @tool(name=...)) [name]")


@pytest.mark.parametrize("provider", sorted(REFUSING))
def test_a_refused_name_is_exported_with_a_warning_stating_the_rule(cli, target, provider):
    result = cli("tools", "list", target, "--format", provider)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        warning(provider, "orders.cancel", REFUSING[provider]),
        warning(provider, LONG, REFUSING[provider])]
    assert "orders.cancel" in json.dumps(json.loads(result.stdout))


def test_the_strict_form_warns_too(cli, target):
    result = cli("tools", "list", target, "--format", "openai-responses", "--strict")
    assert result.exit_code == 0, result.stderr
    assert warning("openai-responses-strict", "orders.cancel",
                   REFUSING["openai"]) in result.stderr.splitlines()


def test_mcp_takes_both_names_and_warns_beyond_128_characters(cli, target):
    ok = cli("tools", "list", target, "--format", "mcp")
    assert (ok.exit_code, ok.stderr) == (0, "")
    too_long = ToolSpecification(name="t" * 129, description="T.",
                                 parameters={"type": "object", "properties": {}})
    export = export_tools([too_long], "mcp")
    rule = "use 1 to 128 letters, digits, '_', '.', '-' or '/'"
    assert [str(w) for w in export.warnings] == [
        f'mcp: tool "{"t" * 129}": the name is refused: {rule}; exported as it is '
        "(rename it with @tool(name=...)) [name]"]
    assert export.data["tools"][0]["name"] == "t" * 129


@pytest.mark.parametrize("provider", ["openai", "anthropic", "openai-responses"])
def test_tools_check_keeps_reporting_the_name_as_an_error(cli, target, provider):
    result = cli("tools", "check", target, "--provider", provider, "--json")
    assert result.exit_code == 1
    found = [(f["tool"], f["rule"], f["level"]) for f in json.loads(result.stdout)["findings"]
             if f["rule"].endswith(":name")]
    assert found == [("orders.cancel", f"{provider}:name", "error"),
                     (LONG, f"{provider}:name", "error")]
