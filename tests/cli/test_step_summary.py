"""The GitHub Actions job summary: ``replay``, ``tools check`` and ``tools fuzz`` append a
Markdown section to the file ``GITHUB_STEP_SUMMARY`` names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import CRM, TRANSCRIPTS

from agentforge_cli.cli import step_summary


@pytest.fixture
def summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The summary file (already holding an earlier step's section)."""
    path = tmp_path / "summary.md"
    path.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(path))
    return path


def test_replay_appends_counts_and_the_mismatched_call(cli, summary):
    transcript = str(TRANSCRIPTS / "crm_mismatch.jsonl")
    result = cli("replay", transcript, "-t", CRM)
    assert result.exit_code == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n")
    assert "### ❌ `agentforge replay`" in text
    assert "| matched | mismatched | drifted | unrecorded |" in text
    assert " | 1 | 1 | 0 | 1 |" in text
    rows = [line for line in text.splitlines() if "queryCustomer" in line]
    assert len(rows) == 1 and rows[0].endswith("| queryCustomer | mismatched |")
    assert "crm\\_mismatch.jsonl" in rows[0]
    assert "agentforge replay" not in result.stdout


def test_replay_json_output_still_lists_the_failing_call(cli, summary):
    result = cli("replay", str(TRANSCRIPTS / "crm_mismatch.jsonl"), "-t", CRM, "--json")
    assert json.loads(result.stdout)["summary"]["mismatched"] == 1
    assert "| queryCustomer | mismatched |" in summary.read_text(encoding="utf-8")


def test_check_lists_the_error_findings(cli, summary):
    result = cli("tools", "check", "sample_tools.shop", "--provider", "openai-strict")
    assert result.exit_code == 1
    text = summary.read_text(encoding="utf-8")
    assert "### ❌ `agentforge tools check`" in text
    assert "| breaking | error | warning | info |" in text
    assert "| Level | Tool | Parameter | Rule | Message |" in text
    assert "\n| error | " in text


def test_fuzz_lists_each_finding_with_its_reproducer(cli, summary):
    result = cli("tools", "fuzz", "sample_tools.fragile", "--seed", "0", "--examples", "50")
    assert result.exit_code == 1
    text = summary.read_text(encoding="utf-8")
    assert "### ❌ `agentforge tools fuzz`" in text
    assert "| 1 | 0 | 50 | 1 |" in text
    assert ("`agentforge tools call averageRating '{\"total_stars\":0,\"reviews\":0}' "
            "-t sample_tools.fragile`") in text


def test_fuzz_names_the_tools_whose_calls_the_effect_guard_stopped(cli, summary):
    result = cli("tools", "fuzz", "sample_tools.notify", "--seed", "0", "--examples", "5")
    assert result.exit_code == 0
    text = summary.read_text(encoding="utf-8")
    assert "### ✅ `agentforge tools fuzz`" in text
    assert "Calls stopped by the effect guard (not failures): notifyTeam (5 calls)" in text


def test_a_missing_file_is_created(cli, tmp_path, monkeypatch):
    path = tmp_path / "new.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(path))
    assert cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM).exit_code == 0
    assert "### ✅ `agentforge replay`" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("where", ["folder", "missing/dir/summary.md"])
def test_an_unwritable_summary_is_one_warning_and_the_same_exit_code(cli, tmp_path,
                                                                     monkeypatch, where):
    (tmp_path / "folder").mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / where))
    result = cli("replay", str(TRANSCRIPTS / "crm_mismatch.jsonl"), "-t", CRM)
    assert result.exit_code == 1
    warnings = [line for line in result.stderr.splitlines() if "step summary" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: cannot write the GitHub")
    assert "Traceback" not in result.stderr


def test_names_cannot_break_the_table_and_the_list_is_bounded(summary):
    failing = [(f"line {n}", "a|b\nc", "mismatched") for n in range(step_summary.LIMIT)]
    run = step_summary.ReplayRun(transcript="x|y.jsonl", failing=failing,
                                 counts={"matched": 0, "mismatched": 70})
    step_summary.replay([run], failed=True)
    lines = summary.read_text(encoding="utf-8").splitlines()
    assert "| x\\|y.jsonl | 0 | 70 | 0 | 0 |" in lines
    rows = [line for line in lines if "a\\|b c" in line]
    assert len(rows) == step_summary.LIMIT
    assert all(row.count(" | ") == 3 for row in rows)
    assert "and 20 more" in lines


def test_a_command_in_a_code_span_keeps_its_backticks_and_pipes():
    assert step_summary._code("echo `a` | b") == "``echo `a` \\| b``"
