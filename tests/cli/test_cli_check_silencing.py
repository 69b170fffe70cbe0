"""``tools check`` with rules silenced per tool: ``@tool(lint_ignore=...)`` and
``[tool.agentforge.lint] ignore`` in pyproject.toml (reported apart, counted for
nothing), and a malformed silencing (exit 2)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

STOCK_TOOLS = '''
from typing import Annotated
from agentforge_cli import P, tool

@tool(lint_ignore=["openai-strict:free-form-object"])
def restock(levels: Annotated[dict[str, int], P("Units per SKU")]) -> str:
    """Add stock."""
    return str(levels)

@tool
def undocumented(sku: str) -> str:
    return sku
'''


CONFIGURED = "pyproject.toml: [tool.agentforge.lint] ignore"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``project(lint_table, tools=STOCK_TOOLS)``: stock_tools.py and a pyproject.toml
    whose [tool.agentforge.lint] table is ``lint_table`` (none when empty), in a fresh
    working directory; returns the pyproject.toml path."""

    def make(lint_table: str = "", tools: str = STOCK_TOOLS) -> Path:
        (tmp_path / "stock_tools.py").write_text(tools, encoding="utf-8")
        path = tmp_path / "pyproject.toml"
        text = '[tool.agentforge]\ntools = ["stock_tools.py"]\n'
        if lint_table:
            text += "\n[tool.agentforge.lint]\n" + textwrap.dedent(lint_table)
        path.write_text(text, encoding="utf-8")
        monkeypatch.chdir(tmp_path)
        return path

    return make


def test_silenced_rules_are_reported_apart_and_fail_nothing(cli, project):
    project('ignore = {undocumented = ["no-description"]}\n')
    result = cli("tools", "check", "--provider", "openai-strict")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "✓ check passed: no findings",
        "  2 tools · providers: openai-strict · 3 silenced (not counted)",
        "  silenced: restock [openai-strict:free-form-object], 1 error, by",
        "  @tool(lint_ignore=...) at stock_tools.py:5",
        "  silenced: undocumented [no-description], 2 warnings, by pyproject.toml:",
        "  [tool.agentforge.lint] ignore",
    ]
    document = json.loads(cli("tools", "check", "--provider", "openai-strict",
                              "--json").stdout)
    assert document["ok"] is True and document["findings"] == []
    assert document["summary"] == {"breaking": 0, "error": 0, "warning": 0, "info": 0}
    assert [(row["tool"], row["rule"], row["level"], row["path"], row["silenced_by"])
            for row in document["silenced"]] == [
        ("restock", "openai-strict:free-form-object", "error", "$.levels",
         "@tool(lint_ignore=...) at stock_tools.py:5"),
        ("undocumented", "no-description", "warning", "", CONFIGURED),
        ("undocumented", "no-description", "warning", "$.sku", CONFIGURED),
    ]


def test_without_the_silencing_the_same_findings_count(cli, project):
    project(tools=STOCK_TOOLS.replace('(lint_ignore=["openai-strict:free-form-object"])', ""))
    result = cli("tools", "check", "--provider", "openai-strict", "--json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["silenced"] == []
    assert {row["rule"] for row in document["findings"]} == {
        "openai-strict:free-form-object", "no-description"}


def test_a_silencing_covers_only_its_tool_and_its_rule(cli, project):
    project('ignore = {restock = ["no-description"]}\n')
    result = cli("tools", "check", "--fail-on", "warning", "--json")
    assert result.exit_code == 1  # undocumented's warnings still count
    document = json.loads(result.stdout)
    assert {row["tool"] for row in document["findings"]} == {"undocumented"}
    assert document["silenced"] == []  # restock has a description: nothing to silence


@pytest.mark.parametrize(("table", "problem"), [
    ('ignore = {undocumented = ["no-descripton"]}\n',
     "[tool.agentforge.lint] ignore, tool 'undocumented': unknown lint rule "
     "'no-descripton' (did you mean 'no-description'?)"),
    ('ignore = {undocumented = ["gemini:free-form-objekt"]}\n',
     "[tool.agentforge.lint] ignore, tool 'undocumented': unknown lint rule "
     "'gemini:free-form-objekt' (did you mean 'gemini:free-form-object'?): gemini has no "
     "rule 'free-form-objekt'"),
    ('ignore = {undocumented = "no-description"}\n',
     "[tool.agentforge.lint] ignore, tool 'undocumented': must be a list of rule ids, got "
     "'no-description'"),
    ('ignore = {undocumented = [1]}\n',
     "[tool.agentforge.lint] ignore, tool 'undocumented': must be a list of rule ids, got "
     "[1]"),
    ('ignore = ["no-description"]\n',
     "[tool.agentforge.lint] ignore must be a table of tool names, each with a list of "
     "rule ids, got ['no-description']"),
    ('ignored = {}\n',
     "unknown key 'ignored' in [tool.agentforge.lint]; the keys are: ignore"),
])
def test_a_malformed_silencing_in_pyproject_exits_2(cli, project, table, problem):
    path = project(table)
    result = cli("tools", "check")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {path}: {problem}")
    assert result.stdout == ""
    # the whole table is checked whenever a command reads it
    assert cli("tools", "list").exit_code == 2


def test_lint_that_is_not_a_table_exits_2(cli, project, tmp_path):
    path = project()
    path.write_text('[tool.agentforge]\ntools = ["stock_tools.py"]\nlint = 3\n')
    result = cli("tools", "check")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}: [tool.agentforge] lint must be a table "
                                    "([tool.agentforge.lint]), got 3")


def test_lint_ignore_naming_an_unknown_rule_exits_2(cli, project):
    project(tools=STOCK_TOOLS.replace("openai-strict:free-form-object",
                                      "openai-strict:free-form"))
    result = cli("tools", "check")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[0] == (
        'error: @tool(lint_ignore=...) at stock_tools.py:5, tool "restock": unknown lint '
        "rule 'openai-strict:free-form' (did you mean 'openai-strict:free-form-object'?): "
        "openai-strict has no rule 'free-form'")
    assert result.stdout == ""
