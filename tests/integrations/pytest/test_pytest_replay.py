"""``pytest --agentforge-replay``: one item per recorded call, inside throw-away sessions,
also spread over pytest-xdist workers."""

from __future__ import annotations

import shutil
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[3]
TRANSCRIPTS = ROOT / "sample_tools" / "transcripts"


def _plugin_args() -> list[str]:
    installed = any(ep.value == "agentforge_cli.integrations.pytest.plugin"
                    for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "agentforge_cli.integrations.pytest.plugin"]


@pytest.fixture
def session(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A session whose targets are the sample CRM tools and whose ``recordings/`` folder
    holds a matching, a mismatching and an OpenAI transcript."""
    monkeypatch.delenv("AGENTFORGE_TOOLS", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # sample_tools, for subprocess workers
    recordings = pytester.path / "recordings"
    recordings.mkdir()
    for name in ("crm.jsonl", "crm_mismatch.jsonl", "crm_openai.json"):
        shutil.copy(TRANSCRIPTS / name, recordings / name)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    pytester.makeini("[pytest]\nagentforge_tools = sample_tools.crm:CrmTools\n")
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider", *args)


def test_one_item_per_call_failing_with_the_diff(session):
    result = _run(session, "--agentforge-replay", "recordings", "-v", "-rs")
    result.assert_outcomes(passed=4, failed=1, skipped=1)
    result.stdout.fnmatch_lines_random([
        "*recordings/crm.jsonl::agentforge_replay?call_1 queryCustomer? PASSED*",
        "*recordings/crm_mismatch.jsonl::agentforge_replay?call_2 queryCustomer? FAILED*",
        "*recordings/crm_mismatch.jsonl::agentforge_replay?#3 queryCustomer? SKIPPED*",
        "*recordings/crm_openai.json::agentforge_replay?call_1 queryCustomer? PASSED*",
        "*queryCustomer at line 4: result differs from the recording",
        "*- recorded: customer:小明,limit:30",
        "*+ actual:   customer:小明,limit:3",
    ])


def test_the_items_spread_over_xdist_workers(session):
    result = _run(session, "--agentforge-replay", "recordings", "-n", "2")
    result.assert_outcomes(passed=4, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*2 workers*"])


def test_the_ini_option_and_the_match_mode(session):
    session.makeini("[pytest]\nagentforge_tools = sample_tools.crm:CrmTools\n"
                    "agentforge_replay = recordings/crm_mismatch.jsonl\n"
                    "agentforge_match = status\n")
    _run(session).assert_outcomes(passed=3, skipped=1)
    _run(session, "--agentforge-match", "exact").assert_outcomes(passed=2, failed=1,
                                                                 skipped=1)


def test_nothing_to_replay_is_a_failing_item_never_a_pass(session):
    (session.path / "empty").mkdir()
    (session.path / "talk.jsonl").write_text('{"type":"user","content":"hi"}\n',
                                             encoding="utf-8")
    (session.path / "bad.jsonl").write_text('{"type": \n', encoding="utf-8")
    result = _run(session, "--agentforge-replay", "empty", "--agentforge-replay",
                  "talk.jsonl", "--agentforge-replay", "bad.jsonl")
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines_random(["*agentforge replay: no transcript found in*empty",
                                        "*agentforge replay: no tool calls found in*",
                                        "*agentforge replay: cannot read transcript*bad.jsonl*"])


def test_without_the_option_nothing_is_added(session):
    _run(session).assert_outcomes(passed=1)


def test_the_projects_scrubbers_apply_to_the_items(session):
    for name in ("ops_tools.py", "ops.jsonl"):
        shutil.copy(ROOT / "docs" / "examples" / name, session.path / name)
    session.makeini("[pytest]\nagentforge_tools = ops_tools.py:OpsTools\n")
    _run(session, "--agentforge-replay", "ops.jsonl").assert_outcomes(passed=1, failed=2)
    (session.path / "pyproject.toml").write_text(
        '[tool.agentforge.replay]\nscrub = ["timestamps", "uuids"]\n', encoding="utf-8")
    result = _run(session, "--agentforge-replay", "ops.jsonl", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines_random([
        "*ops.jsonl::agentforge_replay?call_1 get_logs? PASSED*",
        "*ops.jsonl::agentforge_replay?call_2 rollback? FAILED*",
        "*rollback at line 4: result differs from the recording",
        "*scrubbed: $.operation_id, $.took_ms (durations)",
        '*-  "status": "done",',
        '*+  "status": "rolled_back",',
    ])
