"""The MCP options are one block (``mcp_reach_options``), accepted by every command that
takes an MCP target, and they take effect there: each command is driven against a server
of the official SDK whose very tool list depends on the client's answers
(``tests/integrations/rooted_server.py``: a tool ``in_<dir>`` per root, ``for_<name>``
when the client answers its question), so a tool only shows when ``--root`` and
``--elicit`` reached the server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import ROOT, command_paths

from agentforge_cli.cli.options import McpReach

ROOTED = f"mcp:{sys.executable} {ROOT / 'tests' / 'integrations' / 'rooted_server.py'}"
AGENTFORGE = Path(sys.executable).parent / "agentforge"
REACH = ("--header", "--env", "--cwd", "--protocol-era", "--oauth", "--root", "--elicit")
WITH_MCP_TARGETS = {("tools", "list"), ("tools", "call"), ("tools", "check"),
                    ("tools", "fuzz"), ("tools", "audit"), ("replay",), ("eval",), ("chat",),
                    ("serve",), ("resources", "list"), ("resources", "read"),
                    ("prompts", "list"), ("prompts", "get")}


@pytest.fixture
def reach(tmp_path: Path) -> list[str]:
    """``--root DIR/alpha --elicit answers.json`` (answering the name Ada)."""
    (tmp_path / "alpha").mkdir()
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"name": "Ada"}), encoding="utf-8")
    return ["--root", str(tmp_path / "alpha"), "--elicit", str(answers)]


def test_every_command_taking_mcp_targets_takes_the_whole_block(cli):
    commands = {path for path in command_paths()
                if path and "--protocol-era" in cli(*path, "--help").stdout}
    assert commands == WITH_MCP_TARGETS
    for path in sorted(commands):
        shown = cli(*path, "--help").stdout
        assert [name for name in REACH if name not in shown] == [], path


def test_the_block_is_one_value_and_keeps_secrets_out_of_its_repr():
    reach = McpReach(header=["Authorization: Bearer s3cret"], env=["KEY=hidden"])
    assert "s3cret" not in repr(reach) and "hidden" not in repr(reach)
    assert reach.options().headers == {"Authorization": "Bearer s3cret"}


def test_tools_check_snapshots_what_the_options_made_the_server_list(cli, reach, tmp_path):
    snapshot = tmp_path / "tools.json"
    done = cli("tools", "check", ROOTED, "--snapshot", str(snapshot), "--update-snapshot",
               *reach)
    assert done.exit_code == 0, done.output
    assert sorted(json.loads(snapshot.read_text(encoding="utf-8"))["tools"]) == [
        "for_Ada", "in_alpha"]
    again = cli("tools", "check", ROOTED, "--snapshot", str(snapshot))  # no options
    assert again.exit_code == 1, again.output
    assert "in_alpha" in again.stdout and "for_Ada" in again.stdout


def test_a_bad_root_or_elicit_file_is_refused_by_the_listing_commands(cli, tmp_path):
    for path in (("tools", "check"), ("tools", "fuzz"), ("tools", "audit"), ("serve",)):
        refused = cli(*path, ROOTED, "--root", str(tmp_path / "nowhere"))
        assert refused.exit_code == 2, (path, refused.output)
        assert "--root" in refused.stderr and "no such directory" in refused.stderr


def test_tools_fuzz_and_audit_reach_the_tools_the_options_bring(cli, reach):
    fuzzed = cli("tools", "fuzz", ROOTED, "--tool", "in_alpha", "--tool", "for_Ada",
                 "--examples", "3", *reach)
    assert fuzzed.exit_code == 0, fuzzed.output
    assert "in_alpha" in fuzzed.stdout and "for_Ada" in fuzzed.stdout
    audited = cli("tools", "audit", ROOTED, "--tool", "in_alpha", "--examples", "2", *reach)
    assert audited.exit_code == 0, audited.output
    assert "in_alpha" in audited.stdout
    unknown = cli("tools", "fuzz", ROOTED, "--tool", "in_alpha", "--examples", "3")
    assert unknown.exit_code == 2, unknown.output


def test_replay_calls_the_tools_the_options_bring(cli, reach, tmp_path):
    transcript = tmp_path / "calls.jsonl"
    records = [{"type": "user", "content": "go"}]
    for index, name in enumerate(("in_alpha", "for_Ada")):
        records += [{"type": "tool_call", "id": f"c{index}", "name": name, "arguments": "{}"},
                    {"type": "tool_result", "id": f"c{index}", "content": name,
                     "is_error": False}]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    matched = cli("replay", str(transcript), "-t", ROOTED, *reach)
    assert matched.exit_code == 0, matched.output
    assert "✓ 2 calls replayed, no result differs" in matched.stdout
    assert cli("replay", str(transcript), "-t", ROOTED).exit_code == 1


def test_serve_re_serves_the_tools_the_options_bring(reach):
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    done = subprocess.run([str(AGENTFORGE), "serve", ROOTED, *reach], cwd=ROOT, text=True,
                          input="".join(json.dumps(r) + "\n" for r in requests),
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    listed = next(a for a in answers if a.get("id") == 2)["result"]["tools"]
    assert sorted(tool["name"] for tool in listed) == ["for_Ada", "in_alpha"]
