"""``agentforge replay --scrub`` and the project's ``[tool.agentforge.replay]``: volatile
results (times, UUIDs, operation ids, durations) match once scrubbed, a changed
non-volatile field still fails, the trace and ``--json`` say what was scrubbed, ``--update``
writes real values, and bad scrubbers are refused before anything runs. The MCP case runs
against the official reference server ``mcp-server-time``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_support import ROOT

EXAMPLES = ROOT / "docs" / "examples"
OPS = "ops_tools.py:OpsTools"
LOGS_SCRUBBED = "          scrubbed: $.request_id (uuids), $.entries[0].time (timestamps)"
ROLLBACK_SCRUBBED = "          scrubbed: $.operation_id, $.took_ms (durations)"


@pytest.fixture
def ops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project holding the DevOps example (its tools and its recording) as the working
    directory; returns the recording."""
    for name in ("ops_tools.py", "ops.jsonl"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "ops.jsonl"


def configure(table: str) -> None:
    Path("pyproject.toml").write_text("[tool.agentforge.replay]\n" + textwrap.dedent(table),
                                      encoding="utf-8")


def test_without_scrubbers_every_volatile_result_mismatches(cli, ops):
    done = cli("replay", str(ops), "-t", OPS)
    assert done.exit_code == 1
    assert done.stdout.count("✗ mismatched") == 2
    assert LOGS_SCRUBBED not in done.stdout
    assert ROLLBACK_SCRUBBED in done.stdout  # declared by the tool: scrubbed, still differs


def test_scrub_matches_the_volatile_result_and_still_fails_the_changed_field(cli, ops):
    done = cli("replay", str(ops), "-t", OPS, "--scrub", "timestamps", "--scrub", "uuids")
    assert done.exit_code == 1
    lines = done.stdout.splitlines()
    assert lines[lines.index(LOGS_SCRUBBED) - 1].endswith("✓ matched")
    diff = lines[lines.index(ROLLBACK_SCRUBBED) + 1:]
    changed = [line for line in diff if line.startswith(("          -  ", "          +  "))]
    assert changed == ['          -  "status": "done",', '          +  "status": "rolled_back",']
    assert "matched           1\nmismatched        1" in done.stdout


def test_json_says_what_was_scrubbed_and_keeps_the_real_values(cli, ops):
    done = cli("replay", str(ops), "-t", OPS, "--scrub", "timestamps", "--scrub", "uuids",
               "--json")
    assert done.exit_code == 1
    logs, rollback = json.loads(done.stdout)["calls"]
    assert (logs["status"], logs["scrubbed"]) == (
        "matched", ["$.request_id (uuids)", "$.entries[0].time (timestamps)"])
    assert (rollback["status"], rollback["scrubbed"]) == (
        "mismatched", ["$.operation_id", "$.took_ms (durations)"])
    assert "2026-11-30T09:12:44.031+00:00" in logs["expected"]
    assert "<" not in logs["actual"] + rollback["actual"] + rollback["expected"]


def test_update_writes_real_values_and_keeps_what_matched_once_scrubbed(cli, ops):
    before = ops.read_text(encoding="utf-8").splitlines()
    updated = cli("replay", str(ops), "-t", OPS, "--scrub", "timestamps", "--scrub", "uuids",
                  "--update")
    assert updated.exit_code == 0, updated.output
    after = ops.read_text(encoding="utf-8").splitlines()
    assert after[:4] == before[:4]  # the logs matched once scrubbed: left as recorded
    written = json.loads(json.loads(after[4])["content"])
    assert written["status"] == "rolled_back" and written["operation_id"].startswith("op-")
    assert written["operation_id"] != "op-7c1d9e02" and "<" not in after[4]
    again = cli("replay", str(ops), "-t", OPS, "--scrub", "timestamps", "--scrub", "uuids")
    assert again.exit_code == 0, again.output  # the new operation id is volatile too


@pytest.mark.parametrize(("given", "message"), [
    (["--scrub", "timestamp"], "error: --scrub: 'timestamp' is not a scrubber: give a JSON "
                               "path ($.created_at, $..id), re:PATTERN, or a detector: "
                               "timestamps, uuids, hex-ids, durations; did you mean "
                               "'timestamps'?"),
    (["--scrub", "re:(op"], "error: --scrub: 're:(op' is not a valid regular expression: "
                            "missing ), unterminated subpattern at position 0"),
    (["--scrub", "$.items[1:2]"], "error: --scrub: expected [*], [n] or ['name'] at "
                                  "character 8 of '$.items[1:2]'"),
    (["--scrub", "uuids", "--match", "status"], "error: --scrub has no effect with --match "
                                                "status, which compares no result text"),
])
def test_a_bad_scrub_is_a_usage_error_before_anything_runs(cli, ops, given, message):
    done = cli("replay", str(ops), "-t", OPS, *given)
    assert done.exit_code == 2
    assert done.stdout == ""
    assert done.stderr.splitlines()[0] == message
    assert "Traceback" not in done.output


def test_the_project_scrubs_for_every_tool_and_per_tool(cli, ops):
    configure('scrub = ["uuids"]\nvolatile = {get_logs = ["timestamps"]}\n')
    done = cli("replay", str(ops), "-t", OPS, "--json")
    logs, rollback = json.loads(done.stdout)["calls"]
    assert (logs["status"], logs["scrubbed"]) == (
        "matched", ["$.request_id (uuids)", "$.entries[0].time (timestamps)"])
    assert rollback["status"] == "mismatched"
    configure('volatile = {get_logs = ["$.request_id"]}\n')  # --scrub adds to it
    added = cli("replay", str(ops), "-t", OPS, "--json", "--scrub", "timestamps")
    assert json.loads(added.stdout)["calls"][0]["scrubbed"] == [
        "$.request_id", "$.entries[0].time (timestamps)"]


@pytest.mark.parametrize(("table", "message"), [
    ('scrub = ["re:("]\n', "[tool.agentforge.replay] scrub: 're:(' is not a valid regular "
                           "expression"),
    ('volatile = {get_logs = ["stamps"]}\n', "[tool.agentforge.replay] volatile, tool "
                                             "'get_logs': 'stamps' is not a scrubber"),
    ('scrub = "uuids"\n', "[tool.agentforge.replay] scrub must be a list of scrubbers, got "
                          "'uuids'"),
    ('volatile = ["uuids"]\n', "[tool.agentforge.replay] volatile must be a table of tool "
                               "names"),
    ('scrubs = ["uuids"]\n', "unknown key 'scrubs' in [tool.agentforge.replay]; the keys "
                             "are: scrub, volatile"),
])
def test_a_bad_project_setting_names_the_file_and_the_key(cli, ops, table, message):
    configure(table)
    done = cli("replay", str(ops), "-t", OPS)
    assert done.exit_code == 2
    first = done.stderr.splitlines()[0]
    assert first.startswith("error: ") and "pyproject.toml: " in first and message in first
    assert "Traceback" not in done.output


def test_a_bad_declared_scrubber_fails_before_any_call_runs(cli, ops):
    Path("clock_tools.py").write_text(textwrap.dedent('''
        from agentforge_cli import tool

        @tool(volatile=["re:["])
        def get_logs(service: str) -> str:
            """Logs."""
            raise SystemExit("a call ran")
    '''), encoding="utf-8")
    done = cli("replay", str(ops), "-t", "clock_tools.py")
    assert done.exit_code == 2
    assert done.stderr.startswith("error: @tool(volatile=...) of 'get_logs' at "
                                  "clock_tools.py:4: 're:[' is not a valid regular expression")


# ------------------------------------------------- an MCP server's tools, by configuration

TIME_SERVER = f"mcp:{sys.executable} -m mcp_server_time --local-timezone Etc/UTC"


def _time_transcript(path: Path, timezone: str) -> None:
    recorded = {"timezone": timezone, "datetime": "2025-03-09T08:00:00+00:00",
                "day_of_week": "Sunday", "is_dst": False}
    lines = [{"type": "tool_call", "id": "t1", "name": "get_current_time",
              "arguments": json.dumps({"timezone": "Etc/UTC"})},
             {"type": "tool_result", "id": "t1", "content": json.dumps(recorded, indent=2),
              "is_error": False}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_an_mcp_servers_tool_is_scrubbed_by_the_project_configuration(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentforge.replay]\nvolatile = {get_current_time = ["timestamps", '
        '"$.day_of_week"]}\n', encoding="utf-8")
    same, moved = tmp_path / "same.jsonl", tmp_path / "moved.jsonl"
    _time_transcript(same, "Etc/UTC")
    _time_transcript(moved, "Europe/Paris")  # a non-volatile field the server answers otherwise
    env = {key: value for key, value in os.environ.items()
           if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG")}
    done = subprocess.run([str(Path(sys.executable).parent / "agentforge"), "replay",
                           str(same), str(moved), "-t", TIME_SERVER, "--json"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    files = json.loads(done.stdout)["files"]
    assert done.returncode == 1, done.stderr
    (matched,), (mismatched,) = files[0]["calls"], files[1]["calls"]
    assert (matched["status"], matched["scrubbed"]) == (
        "matched", ["$.day_of_week", "$.datetime (timestamps)"])
    assert mismatched["status"] == "mismatched"
    assert mismatched["scrubbed"] == matched["scrubbed"]
