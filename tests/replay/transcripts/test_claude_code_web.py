"""Claude Code web sessions (``{"loglines": [...]}``) read with the Claude Code session
reader's line handling: the corpus's real export, one in the shape the web app writes, and
malformed ones refused naming the family."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import ToolResult, open_transcript

REPOSITORY = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("AGENTFORGE_CORPUS") or REPOSITORY.parent / "shared" / "corpus")
TOOLS = REPOSITORY / "tests" / "corpus" / "tools" / "sessions_claude_code.py"
CRM = "sample_tools.crm:CrmTools"
ARGS = {"name": "长路", "limit": 5}

LOGLINES = [
    {"type": "user", "timestamp": "2025-12-24T10:00:00.000Z",
     "message": {"content": "查一下客户长路", "role": "user"}},
    {"type": "assistant", "timestamp": "2025-12-24T10:00:05.000Z", "message": {
        "role": "assistant", "content": [
            {"type": "thinking", "thinking": "A lookup."},
            {"type": "tool_use", "id": "toolu_1", "name": "queryCustomer", "input": ARGS}]}},
    {"type": "user", "timestamp": "2025-12-24T10:00:10.000Z", "message": {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                     "content": "customer:长路,limit:5", "is_error": False}]}},
    {"type": "assistant", "timestamp": "2025-12-24T10:00:15.000Z", "message": {
        "role": "assistant", "content": [{"type": "text", "text": "已查询到客户长路。"}]}}]


def export(tmp_path: Path, loglines: list[object]) -> Path:
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"loglines": loglines}, indent=2, ensure_ascii=False),
                    encoding="utf-8")
    return path


def test_the_corpus_export_replays_all_matched(cli):
    """Refused before this reader ("a JSON object transcript needs a "messages" array");
    now its 12 calls run once each and match, the failed test run as its error."""
    done = cli("replay", str(CORPUS / "cc-web-loglines" / "sample_session.json"),
               "-t", f"{TOOLS}:WebSession", "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "claude-code-web"
    assert data["summary"] == {"matched": 12, "mismatched": 0, "unrecorded": 0}
    assert [c["id"] for c in data["calls"] if c["expected_is_error"]] == ["toolu_bash_004"]


def test_an_export_is_detected_and_replays_all_matched(cli, tmp_path):
    path = export(tmp_path, LOGLINES)
    transcript = open_transcript(path)
    assert transcript.format == "claude-code-web"
    results = [e for e in transcript.events() if isinstance(e, ToolResult)]
    assert [(r.id, r.content, r.is_error) for r in results] == [
        ("toolu_1", "customer:长路,limit:5", False)]
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["matched"] == 1


def test_an_update_is_refused_as_for_claude_code_sessions(cli, tmp_path):
    path = export(tmp_path, LOGLINES[:2])  # the call has no result: one to write
    before = path.read_bytes()
    done = cli("replay", str(path), "-t", CRM, "--update")
    assert done.exit_code == 3
    assert "--update does not write into a Claude Code web session" in " ".join(
        done.stderr.split())
    assert path.read_bytes() == before


@pytest.mark.parametrize(("line", "where", "reason"), [
    ({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "input": ARGS}]}},
     "loglines[1], message, content[0]", "a tool_use block needs a"),
    ({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "queryCustomer", "input": "5"}]}},
     "loglines[1], message, content[0]", "input"),
    ({"type": "user", "message": "hi"}, "loglines[1]", 'a "user" line needs a "message" object')])
def test_a_malformed_export_is_refused_naming_the_family(cli, tmp_path, line, where, reason):
    path = export(tmp_path, [LOGLINES[0], line])
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 3
    said = " ".join(done.stderr.split())
    assert f"{path}, {where}: " in said and reason in said, said
    assert said.endswith("(in a Claude Code web session)")
    assert "Traceback" not in done.stderr
