"""Gemini CLI sessions (JSON and JSONL) read as transcripts: the corpus's real files, a
session in the shape Gemini CLI writes, a malformed one refused naming the family, and
``--update`` writing a result where the session keeps it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import ToolCall, ToolResult, open_transcript

REPOSITORY = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("AGENTFORGE_CORPUS") or REPOSITORY.parent / "shared" / "corpus")
TOOLS = REPOSITORY / "tests" / "corpus" / "tools" / "sessions_gemini_cli.py"
CRM = "sample_tools.crm:CrmTools"

HEADER = {"sessionId": "s-1", "projectHash": "ab12", "startTime": "2025-12-06T15:00:00.000Z",
          "lastUpdated": "2025-12-06T15:05:00.000Z"}
CALL = {"id": "queryCustomer-1", "name": "queryCustomer", "args": {"name": "长路", "limit": 5},
        "result": [{"functionResponse": {"id": "queryCustomer-1", "name": "queryCustomer",
                                         "response": {"output": "customer:长路,limit:5"}}}],
        "status": "success", "timestamp": "2025-12-06T15:00:08.000Z"}
MESSAGES = [
    {"id": "m1", "timestamp": "2025-12-06T15:00:00.000Z", "type": "user",
     "content": "查一下客户长路"},
    {"id": "m2", "timestamp": "2025-12-06T15:00:10.000Z", "type": "gemini", "content": "",
     "model": "gemini-2.5-pro", "thoughts": [{"subject": "Lookup", "description": "by name"}],
     "toolCalls": [CALL]},
    {"id": "m3", "timestamp": "2025-12-06T15:00:12.000Z", "type": "info",
     "content": "Request cancelled."},
    {"id": "m4", "timestamp": "2025-12-06T15:00:20.000Z", "type": "gemini",
     "content": "已查询到客户长路。"}]


def lines(*records: object) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def session(tmp_path: Path, form: str, messages: list[object] = MESSAGES) -> Path:
    if form == "json":
        path = tmp_path / "session-1.json"
        path.write_text(json.dumps({**HEADER, "messages": messages}, indent=2,
                                   ensure_ascii=False), encoding="utf-8")
        return path
    path = tmp_path / "session-1.jsonl"
    path.write_text(lines(*([] if "without" in form else [HEADER]), *messages),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "target", "calls"), [
    ("geminicli-golden/gemini_golden.json", "GoldenSession", 1),
    ("geminicli-toolerror/gemini_with_tool_error.jsonl", "ToolErrorSession", 4)])
def test_the_corpus_sessions_replay_all_matched(cli, name, target, calls):
    """Refused by name before this reader (exit 2); now each call runs once and matches,
    the failed edit (``status: error``) as the error it recorded."""
    done = cli("replay", str(CORPUS / name), "-t", f"{TOOLS}:{target}", "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "gemini-cli"
    assert data["summary"] == {"matched": calls, "mismatched": 0, "unrecorded": 0}
    errors = [call["name"] for call in data["calls"] if call["expected_is_error"]]
    assert errors == (["edit_file"] if calls == 4 else [])


@pytest.mark.parametrize("form", ["json", "jsonl", "jsonl without its header"])
def test_a_session_is_detected_and_replays_all_matched(cli, tmp_path, form):
    path = session(tmp_path, form)
    transcript = open_transcript(path)
    assert transcript.format == "gemini-cli"
    events = list(transcript.events())
    assert [type(e).__name__ for e in events] == [
        "UserMessage", "AssistantMessage", "ToolCall", "ToolResult", "AssistantMessage"]
    assert events[1].thinking and events[1].content == "Lookup: by name"
    call, result = events[2], events[3]
    assert isinstance(call, ToolCall) and isinstance(result, ToolResult)
    assert (call.id, json.loads(call.arguments)) == ("queryCustomer-1", CALL["args"])
    assert (result.content, result.is_error) == ("customer:长路,limit:5", False)
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["matched"] == 1


def test_a_call_without_a_result_is_unrecorded_and_an_update_writes_one(cli, tmp_path):
    pending = {key: value for key, value in CALL.items() if key != "result"}
    path = session(tmp_path, "jsonl", [MESSAGES[0], {**MESSAGES[1], "toolCalls": [
        {**pending, "result": None, "status": "cancelled"}]}])
    before = path.read_text(encoding="utf-8").splitlines()
    done = cli("replay", str(path), "-t", CRM, "--update")
    assert done.exit_code == 0, done.stderr
    assert "unrecorded        1" in done.stdout
    after = path.read_text(encoding="utf-8").splitlines()
    assert after[:2] == before[:2]  # the header and the user's line, byte for byte
    written = json.loads(after[2])["toolCalls"][0]
    assert written["result"] == [{"functionResponse": {
        "id": "queryCustomer-1", "name": "queryCustomer",
        "response": {"output": "customer:长路,limit:5"}}}]
    assert written["status"] == "success"
    again = cli("replay", str(path), "-t", CRM, "--json")
    assert json.loads(again.stdout)["summary"]["matched"] == 1


def test_a_rename_is_migrated_in_the_call_and_its_function_response(cli, tmp_path):
    old = {**CALL, "name": "findCustomer", "result": [{"functionResponse": {
        **CALL["result"][0]["functionResponse"], "name": "findCustomer"}}]}
    path = session(tmp_path, "json", [MESSAGES[0], {**MESSAGES[1], "toolCalls": [old]}])
    done = cli("replay", str(path), "-t", CRM, "--update",
               "--rename-tool", "findCustomer=queryCustomer")
    assert done.exit_code == 0, done.stderr
    text = path.read_text(encoding="utf-8")
    assert "findCustomer" not in text and text.count('"name": "queryCustomer"') == 2
    assert json.loads(cli("replay", str(path), "-t", CRM, "--json").stdout)["summary"][
        "matched"] == 1


@pytest.mark.parametrize(("change", "where", "reason"), [
    ({"toolCalls": {"id": "x"}}, "line 3, toolCalls",
     '"toolCalls" must be an array, got {"id":"x"}'),
    ({"toolCalls": [{**CALL, "args": "limit=5"}]}, "line 3, toolCalls[0], args",
     'a tool call\'s "args" must be an object, got "limit=5"'),
    ({"toolCalls": [{**CALL, "status": 1}]}, "line 3, toolCalls[0], status",
     '"status" must be a string, got 1'),
    ({"toolCalls": [{**CALL, "result": [{"functionResponse": {"name": "x"}}]}]},
     "line 3, toolCalls[0], result[0]", 'a functionResponse needs a "response" object'),
    ({"content": 5}, "line 3, content", "a message's content must be text or parts, got 5")])
def test_a_malformed_session_is_refused_naming_the_family(cli, tmp_path, change, where,
                                                          reason):
    path = session(tmp_path, "jsonl", [MESSAGES[0], {**MESSAGES[1], **change}])
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 3
    said = " ".join(done.stderr.split())
    assert f"{path}, {where}: {reason} (in a Gemini CLI session)" in said
    assert "Traceback" not in done.stderr


def test_a_truncated_session_is_refused_at_its_place(cli, tmp_path):
    path = session(tmp_path, "json")
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    done = cli("replay", str(path), "-t", CRM)
    assert done.exit_code == 3
    assert "invalid JSON" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""  # a document is read through before anything runs
