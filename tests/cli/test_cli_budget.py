"""``tools check --budget`` / ``--results`` and ``[tool.agentforge.budget]``: the report,
the gates as findings (table, JSON, silencing), a malformed table (exit 2), and
``tools diff`` reporting a budget grown past."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest
from cli_support import CRM, ROOT, TRANSCRIPTS

from agentforge_cli.core.run.discovery import build_local_tools
from agentforge_cli.schema.providers import export_tools
from sample_tools.crm import CrmTools

CRM_CHARS = len(json.dumps(export_tools(build_local_tools([CrmTools()]), "anthropic").data[0],
                           ensure_ascii=False, separators=(",", ":")))
CRM_TOKENS = math.ceil(CRM_CHARS / 4)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``project("[tool.agentforge.budget] ...")``: that pyproject.toml in a fresh working
    directory (the sample tools stay importable) with no tiktoken cache."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "no-cache"))
    monkeypatch.syspath_prepend(str(ROOT))

    def make(text: str) -> Path:
        path = tmp_path / "pyproject.toml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        monkeypatch.chdir(tmp_path)
        return path

    return make


def test_budget_reports_each_definition_and_the_set_per_provider(cli, project):
    project("")
    result = cli("tools", "check", CRM, "--budget", "--provider", "anthropic",
                 "--provider", "openai")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        "tool definitions sent to anthropic: tokens by estimate (characters/4)",
        "  tool           chars  tokens  budget"]
    assert lines[2].split() == ["queryCustomer", str(CRM_CHARS), str(CRM_TOKENS), "-"]
    assert lines[3].split()[:3] == ["the", "1", "tool"] and lines[4] == ""
    assert lines[5] == ("tool definitions sent to openai: tokens by estimate (characters/4): "
                        "tiktoken o200k_base not available offline")
    assert "✓ check passed" in result.stdout


def test_budget_needs_a_provider(cli, project):
    project("")
    result = cli("tools", "check", CRM, "--budget")
    assert result.exit_code == 2
    assert "--budget measures what a provider is sent, and no provider is selected" in (
        result.output)
    assert "--provider" in result.output and result.stdout == ""


def test_budgets_gate_as_findings_in_json_and_can_be_silenced(cli, project):
    project(f"""
        [tool.agentforge]
        providers = ["anthropic"]
        [tool.agentforge.budget]
        tool_tokens = {CRM_TOKENS - 1}
        set_tokens = {CRM_TOKENS + 50}
        """)
    result = cli("tools", "check", CRM, "--budget", "--json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert [(f["tool"], f["rule"], f["level"]) for f in document["findings"]] == [
        ("queryCustomer", "tool-tokens", "error")]
    assert f"over the budget tool_tokens = {CRM_TOKENS - 1} (pyproject.toml: " in (
        document["findings"][0]["message"])
    assert document["budget"]["limits"] == {"tool_tokens": CRM_TOKENS - 1,
                                            "set_tokens": CRM_TOKENS + 50,
                                            "result_tokens": None}
    (anthropic,) = document["budget"]["providers"]
    assert anthropic["tools"][0]["tokens"] == CRM_TOKENS and anthropic["estimate"] is True
    # the same table, silenced for the tool
    project(f"""
        [tool.agentforge]
        providers = ["anthropic"]
        [tool.agentforge.lint]
        ignore = {{queryCustomer = ["tool-tokens"]}}
        [tool.agentforge.budget]
        tool_tokens = {CRM_TOKENS - 1}
        """)
    result = cli("tools", "check", CRM, "--budget")
    assert result.exit_code == 0, result.output
    assert ("silenced: queryCustomer [tool-tokens], 1 error, by pyproject.toml: "
            "[tool.agentforge.lint] ignore") in " ".join(result.stdout.split())
    # without --budget nothing is measured: a budget never fails a plain check
    assert cli("tools", "check", CRM).exit_code == 0


@pytest.mark.parametrize(("table", "message"), [
    ("tool_token = 5", "unknown key 'tool_token' in [tool.agentforge.budget]"),
    ("tool_tokens = 0", "[tool.agentforge.budget] tool_tokens must be a positive whole "
                        "number of tokens, got 0"),
    ("set_tokens = 1.5", "set_tokens must be a positive whole number of tokens, got 1.5"),
    ("result_tokens = true", "result_tokens must be a positive whole number of tokens, got "
                             "True"),
    ('result_tokens = "10000"', "got '10000'"),
])
def test_a_malformed_budget_table_is_a_configuration_error(cli, project, table, message):
    path = project(f"[tool.agentforge.budget]\n{table}\n")
    result = cli("tools", "check", CRM, "--budget", "--provider", "anthropic")
    assert result.exit_code == 2
    assert message in result.output and str(path) in result.output
    assert result.stdout == ""


def test_budget_must_be_a_table(cli, project):
    project("[tool.agentforge]\nbudget = 100\n")
    result = cli("tools", "check", CRM)
    assert result.exit_code == 2
    assert "[tool.agentforge] budget must be a table ([tool.agentforge.budget]), got 100" in (
        result.output)


def write_transcript(path: Path, sizes: list[int]) -> str:
    rows = []
    for index, size in enumerate(sizes):
        rows += [{"type": "tool_call", "id": f"c{index}", "name": "queryCustomer",
                  "arguments": '{"name":"a","limit":1}'},
                 {"type": "tool_result", "id": f"c{index}", "content": "r" * size,
                  "is_error": False}]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def test_results_report_sizes_against_the_limits_and_gate(cli, project, tmp_path):
    project("[tool.agentforge.budget]\nresult_tokens = 12000\n")
    big = write_transcript(tmp_path / "big.jsonl", [40, 40_001, 100_004])
    result = cli("tools", "check", CRM, "--results", big,
                 "--results", str(TRANSCRIPTS / "crm.jsonl"))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[:2] == ["recorded results: tokens by estimate (characters/4)",
                         "  per result: Claude Code warning above 10,000, Claude Code limit "
                         "above 25,000"]
    assert lines[3].split() == ["queryCustomer", "4", "40", "100,004", "100,004", "10",
                                "25,001", "25,001", "over", "12,000,", "Claude", "Code",
                                "warning,", "Claude", "Code", "limit"]
    assert "its largest recorded result is 25,001 tokens (estimate), 100,004 characters, " \
           "over the budget result_tokens = 12000" in " ".join(result.stdout.split())
    document = json.loads(cli("tools", "check", CRM, "--results", big, "--json").stdout)
    (row,) = document["budget"]["results"]["tools"]
    assert row == {"name": "queryCustomer", "count": 3,
                   "chars": {"p50": 40_001, "p95": 100_004, "max": 100_004},
                   "tokens": {"p50": 10_001, "p95": 25_001, "max": 25_001}}
    assert document["budget"]["results"]["limits"] == {"Claude Code warning": 10_000,
                                                       "Claude Code limit": 25_000}


def test_results_that_cannot_be_read_exit_3(cli, project, tmp_path):
    project("")
    result = cli("tools", "check", CRM, "--results", str(TRANSCRIPTS / "crm_malformed.jsonl"))
    assert result.exit_code == 3
    assert "crm_malformed.jsonl, line 3" in result.output
    missing = cli("tools", "check", CRM, "--results", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 3 and "nope.jsonl" in missing.output


def test_diff_reports_a_budget_grown_past_between_two_snapshots(cli, project, tmp_path):
    old = tmp_path / "old.json"
    new = tmp_path / "new.json"
    tool = {"description": "Find a customer.",
            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}}}
    old.write_text(json.dumps({"version": 1, "tools": {"find": tool}}), encoding="utf-8")
    longer = {**tool, "description": "Find a customer. " + "Mind the details. " * 20}
    new.write_text(json.dumps({"version": 1, "tools": {"find": longer}}), encoding="utf-8")
    project("")  # no budget: the description change is all
    assert cli("tools", "diff", str(old), str(new)).exit_code == 0
    project('[tool.agentforge]\nproviders = ["anthropic"]\n'
            "[tool.agentforge.budget]\ntool_tokens = 60\n")
    result = cli("tools", "diff", str(old), str(new), "--json")
    assert result.exit_code == 1
    (grown,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "tool-tokens"]
    assert grown["tool"] == "find" and grown["level"] == "error"
    assert "its definition grew from" in grown["message"]
    assert "tokens (estimate) for anthropic, past the budget tool_tokens = 60" in (
        grown["message"])
    # shrinking back is no growth
    assert cli("tools", "diff", str(new), str(old)).exit_code == 0
