"""``agentforge tools check --client NAME``: a client's findings in the table, ``--json``
and the GitHub step summary; ``clients = [...]`` in pyproject.toml; an unknown client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

WORKSPACE = "sample_tools.workspace"
MANY_TOOLS = "from agentforge_cli import tool\n\n" + "\n".join(
    f'@tool\ndef t{i}() -> str:\n    """Tool {i}."""\n    return ""\n' for i in range(21))


def test_client_findings_fail_the_check_in_the_table(cli, plain_terminal) -> None:
    result = cli("tools", "check", WORKSPACE, "--client", "codex", "--client", "claude-code")
    assert result.exit_code == 1, result.output
    assert result.output.count("[codex:name]") == 2
    assert "claude-code:" not in result.output
    assert "clients: codex (openai-responses), claude-code (anthropic)" in result.output
    passing = cli("tools", "check", WORKSPACE, "--client", "gemini-cli")
    assert passing.exit_code == 0, passing.output


def test_client_findings_in_json(cli, plain_terminal) -> None:
    result = cli("tools", "check", WORKSPACE, "--client", "codex,vscode", "--json")
    assert result.exit_code == 1
    document = json.loads(result.output)
    assert document["clients"] == ["codex", "vscode"]
    assert document["providers"] == []
    assert sorted((f["tool"], f["rule"], f["level"]) for f in document["findings"]) == [
        ("calendar.add", "codex:name", "error"), ("calendar.add", "vscode:name", "warning"),
        ("calendar.list", "codex:name", "error"), ("calendar.list", "vscode:name", "warning")]


def test_a_tool_set_finding_reaches_the_step_summary(cli, plain_terminal, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    module = tmp_path / "many.py"
    module.write_text(MANY_TOOLS, encoding="utf-8")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = cli("tools", "check", str(module), "--client", "claude-strict")
    assert result.exit_code == 1, result.output
    assert "the tool set: Claude API strict tool use allows 20 tools, this set has 21" in (
        " ".join(result.output.split()))
    text = summary.read_text(encoding="utf-8")
    assert "claude-strict:tool-count" in text and "this set has 21" in text


def test_clients_from_the_project_configuration(cli, plain_terminal, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    module = tmp_path / "many.py"
    module.write_text(MANY_TOOLS, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentforge]\nclients = ["claude-strict"]\n\n'
        '[tool.agentforge.lint]\nignore = {"*" = ["claude-strict:tool-count"]}\n')
    monkeypatch.chdir(tmp_path)
    result = cli("tools", "check", str(module), "--json")
    document = json.loads(result.output)
    assert document["clients"] == ["claude-strict"]
    assert [(f["tool"], f["rule"]) for f in document["silenced"]] == [
        ("", "claude-strict:tool-count")]
    assert result.exit_code == 0, result.output
    (tmp_path / "pyproject.toml").write_text('[tool.agentforge]\nclients = ["claude"]\n')
    refused = cli("tools", "check", str(module))
    assert refused.exit_code == 2
    assert "[tool.agentforge] clients: unknown client 'claude'" in refused.output


def test_an_unknown_client_is_a_usage_error(cli, plain_terminal) -> None:
    result = cli("tools", "check", WORKSPACE, "--client", "claude")
    assert result.exit_code == 2
    assert "--client: unknown client 'claude'; choose one of: claude-desktop, claude-code, " \
           "codex" in " ".join(result.output.split())


def test_junit_has_a_testcase_per_tool_and_one_for_the_tool_set(
        cli, plain_terminal, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    module = tmp_path / "many.py"
    module.write_text(MANY_TOOLS.replace('def t0() -> str:\n    """Tool 0."""',
                                         'def t0() -> str:'), encoding="utf-8")
    report = tmp_path / "reports" / "check.xml"
    result = cli("tools", "check", str(module), "--client", "claude-strict",
                 "--junit", str(report))
    assert result.exit_code == 1, result.output
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == [*(f"t{i}" for i in range(21)), "(tool set)"]
    assert (suite.get("tests"), suite.get("failures")) == ("22", "1")
    failure = cases["(tool set)"].find("failure")
    assert failure is not None and failure.get("type") == "claude-strict:tool-count"
    assert "this set has 21" in (failure.text or "")
    # a warning does not fail its testcase; it is written to system-out
    assert cases["t0"].find("failure") is None
    assert "[no-description]" in (cases["t0"].findtext("system-out") or "")
    assert cases["t1"].find("failure") is None and cases["t1"].find("system-out") is None


def test_junit_that_cannot_be_written_is_a_usage_error(cli, plain_terminal,
                                                        tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = cli("tools", "check", WORKSPACE, "--junit", str(blocker / "check.xml"))
    assert result.exit_code == 2
    assert "cannot write the JUnit report" in result.output
