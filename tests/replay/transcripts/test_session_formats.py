"""Agent session files read as transcripts: Claude Code sessions, Codex CLI rollouts and
MCP client logs (Claude Desktop's), in the shapes their writers produce; a malformed line
is named, and ``--update`` is refused for files that belong to another program."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import (
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
    open_transcript,
)

CRM = "sample_tools.crm:CrmTools"
ARGS = {"name": "长路", "limit": 5}
RESULT = "customer:长路,limit:5"


def lines(*records: object) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


CLAUDE_CODE = lines(
    {"type": "summary", "summary": "Customer lookup", "leafUuid": "a1"},
    {"parentUuid": None, "isSidechain": False, "type": "user", "sessionId": "s1",
     "uuid": "u1", "message": {"role": "user", "content": "查一下客户长路"}},
    {"parentUuid": "u1", "isSidechain": False, "type": "assistant", "sessionId": "s1",
     "uuid": "a1", "message": {"id": "msg_1", "role": "assistant", "content": [
         {"type": "text", "text": "Looking."},
         {"type": "tool_use", "id": "toolu_1", "name": "queryCustomer", "input": ARGS}]}},
    {"parentUuid": "a1", "type": "user", "sessionId": "s1", "uuid": "u2",
     "message": {"role": "user", "content": [
         {"type": "tool_result", "tool_use_id": "toolu_1", "content": RESULT}]},
     "toolUseResult": {"stdout": RESULT}},
    {"type": "system", "subtype": "info", "sessionId": "s1", "uuid": "x1",
     "content": "compacted"},
)
CODEX = lines(
    {"timestamp": "2026-05-02T17:09:00.000Z", "type": "session_meta",
     "payload": {"id": "r1", "cwd": "/w"}},
    {"timestamp": "2026-05-02T17:09:01.000Z", "type": "event_msg",
     "payload": {"type": "user_message", "message": "查一下客户长路"}},
    {"timestamp": "2026-05-02T17:09:01.000Z", "type": "response_item",
     "payload": {"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": "查一下客户长路"}]}},
    {"timestamp": "2026-05-02T17:09:02.000Z", "type": "response_item",
     "payload": {"type": "function_call", "name": "queryCustomer",
                 "arguments": json.dumps(ARGS, ensure_ascii=False), "call_id": "call_1"}},
    {"timestamp": "2026-05-02T17:09:03.000Z", "type": "response_item",
     "payload": {"type": "function_call_output", "call_id": "call_1", "output": RESULT}},
)
REQUEST = {"method": "tools/call", "params": {"name": "queryCustomer", "arguments": ARGS},
           "jsonrpc": "2.0", "id": 5}
RESPONSE = {"jsonrpc": "2.0", "id": 5, "result": {
    "content": [{"type": "text", "text": RESULT}], "isError": False}}
DESKTOP_LOG = (
    "2025-09-04T10:08:38.600Z [info] [crm] Message from client: "
    + json.dumps({"method": "initialize", "params": {}, "jsonrpc": "2.0", "id": 0}) + "\n"
    "2025-09-04T10:08:38.610Z [crm] [info] Server started and connected successfully\n"
    "2025-09-04T10:08:38.663Z [info] [crm] Message from client: "
    + json.dumps(REQUEST, ensure_ascii=False) + "\n"
    "2025-09-04T10:08:38.700Z [info] [crm] Message from server: "
    + json.dumps(RESPONSE, ensure_ascii=False) + "\n")

CASES = [("claude-code", "session.jsonl", CLAUDE_CODE),
         ("codex", "rollout-2026-05-02.jsonl", CODEX),
         ("mcp-log", "mcp-server-crm.log", DESKTOP_LOG)]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("fmt", "name", "text"), CASES)
def test_each_session_file_is_detected_and_replays_all_matched(cli, tmp_path, fmt, name,
                                                               text):
    path = write(tmp_path, name, text)
    assert open_transcript(path).format == fmt
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == fmt
    assert data["summary"]["matched"] == 1 and sum(data["summary"].values()) == 1


def test_a_folder_holding_logs_replays_the_ones_a_format_reads(cli, tmp_path):
    """A folder's ``.log`` files are collected when a registered format recognises them
    (a Claude Desktop MCP log); an application's own log beside them is left alone."""
    folder = tmp_path / "logs"
    folder.mkdir()
    write(folder, "mcp-server-crm.log", DESKTOP_LOG)
    write(folder, "app.log", "2025-09-04 10:08:38 INFO started\n")
    write(folder, "session.jsonl", CLAUDE_CODE)
    done = cli("replay", str(folder), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    files = json.loads(done.stdout)["files"]
    assert [(Path(f["transcript"]).name, f["format"]) for f in files] == [
        ("mcp-server-crm.log", "mcp-log"), ("session.jsonl", "claude-code")]


def test_the_folder_search_asks_the_registry_for_file_names():
    from agentforge_cli.replay.transcripts import registry

    names = registry.file_names()
    assert {"*.json", "*.jsonl", "*.yaml", "*.yml", "*.eval", "*.log"} <= set(names)
    assert len(names) == len(set(names))
    assert registry.join_file_names().endswith(f" and {names[-1]}")


@pytest.mark.parametrize(("fmt", "name", "text"), CASES[:2])
def test_the_user_turn_is_read_once(tmp_path, fmt, name, text):
    users = [e for e in open_transcript(write(tmp_path, name, text)).events()
             if isinstance(e, UserMessage)]
    assert [u.content for u in users] == ["查一下客户长路"]


@pytest.mark.parametrize(("fmt", "name", "text"), CASES)
def test_update_is_refused_for_a_file_another_program_writes(cli, tmp_path, fmt, name, text):
    changed = text.replace(RESULT, "customer:old")
    path = write(tmp_path, name, changed)
    done = cli("replay", str(path), "-t", CRM, "--update")
    assert done.exit_code == 3
    assert "--update does not write into" in done.stderr
    assert path.read_text(encoding="utf-8") == changed


def test_a_claude_code_line_without_its_message_is_named(tmp_path):
    path = write(tmp_path, "s.jsonl", CLAUDE_CODE + lines(
        {"type": "assistant", "sessionId": "s1", "uuid": "a9", "content": "where?"}))
    with pytest.raises(TranscriptError, match=r"line 6: a \"assistant\" line needs a "
                                              '"message" object'):
        list(open_transcript(path).events())


def test_a_codex_item_in_no_known_shape_is_named(tmp_path):
    path = write(tmp_path, "r.jsonl", CODEX + lines(
        {"timestamp": "t", "type": "response_item", "payload": {"type": "mystery"}}))
    with pytest.raises(TranscriptError, match=r"line 6, payload: not a Responses item"):
        list(open_transcript(path).events())


def test_a_logged_message_that_is_not_json_is_named(tmp_path):
    path = write(tmp_path, "mcp-server-crm.log", DESKTOP_LOG
                 + "2025-09-04T10:08:39.000Z [info] [crm] Message from server: {oops\n")
    with pytest.raises(TranscriptError, match=r"line 5: the logged message is not JSON"):
        list(open_transcript(path).events())


def test_calls_and_results_pair_in_a_desktop_log(tmp_path):
    events = list(open_transcript(write(tmp_path, "mcp-server-crm.log", DESKTOP_LOG)).events())
    assert [(type(e).__name__, str(getattr(e, "where", ""))) for e in events
            if isinstance(e, ToolCall | ToolResult)] == [("ToolCall", "line 3"),
                                                          ("ToolResult", "line 4")]


def test_a_codex_shell_call_is_shown_as_not_replayable(tmp_path):
    shell = lines(
        {"timestamp": "t", "type": "response_item", "payload": {
            "type": "local_shell_call", "call_id": "sh_1", "status": "completed",
            "action": {"type": "exec", "command": ["bash", "-lc", "ls"]}}},
        {"timestamp": "t", "type": "response_item", "payload": {
            "type": "local_shell_call_output", "call_id": "sh_1", "output": "README.md"}})
    events = list(open_transcript(write(tmp_path, "rollout.jsonl", CODEX + shell)).events())
    notes = [e.content for e in events if type(e).__name__ == "AssistantMessage"]
    assert notes == ["(not replayable: a local_shell_call that Codex ran in its own "
                     "sandbox: bash -lc ls)"]
    assert sum(isinstance(e, ToolCall) for e in events) == 1  # the function call only


@pytest.mark.parametrize("id_key", ["call_id", "id"])
def test_a_codex_shell_call_answered_by_a_function_call_output_is_read(cli, tmp_path,
                                                                        id_key):
    """As Codex writes it: a local_shell_call answered by a function_call_output of the
    same id. The rollout reads (the shell call not replayable, its output skipped) and its
    function call still replays."""
    shell = lines(
        {"timestamp": "t", "type": "response_item", "payload": {
            "type": "local_shell_call", id_key: "call_sh", "status": "completed",
            "action": {"type": "exec", "command": ["bash", "-lc", "ls"], "timeout_ms": None,
                       "working_directory": None, "env": None, "user": None}}},
        {"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_sh",
            "output": json.dumps({"output": "README.md\n", "metadata": {"exit_code": 0}})}})
    path = write(tmp_path, "rollout.jsonl", shell + CODEX)
    events = list(open_transcript(path).events())
    assert [type(e).__name__ for e in events if isinstance(e, ToolCall | ToolResult)] == [
        "ToolCall", "ToolResult"]
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["matched"] == 1


def test_a_function_call_output_answering_no_call_is_still_refused(tmp_path):
    orphan = lines({"timestamp": "t", "type": "response_item", "payload": {
        "type": "function_call_output", "call_id": "call_nobody", "output": "x"}})
    with pytest.raises(TranscriptError, match="call_nobody"):
        list(open_transcript(write(tmp_path, "rollout.jsonl", CODEX + orphan)).events())


def test_a_desktop_log_opening_with_the_server_s_own_lines_is_read(cli, tmp_path):
    """Claude Desktop's logs start with lines of its own before any message, and its 2025
    builds end each message line with ``{ metadata: undefined }``: the log is still
    recognised, in a folder too, and replays all-matched."""
    def tail(line: str) -> str:
        return line.replace("}\n", "} { metadata: undefined }\n") if "Message" in line else line

    text = ("2025-03-18T15:30:23.456Z [crm] [info] Initializing server...\n"
            "2025-03-18T15:30:23.512Z [crm] [info] Server started and connected successfully\n"
            + "".join(tail(line) for line in DESKTOP_LOG.splitlines(keepends=True)))
    folder = tmp_path / "logs"
    folder.mkdir()
    path = write(folder, "mcp-server-crm.log", text)
    assert open_transcript(path).format == "mcp-log"
    done = cli("replay", str(folder), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["matched"] == 1


def test_text_after_a_logged_message_other_than_its_known_tail_is_named(tmp_path):
    path = write(tmp_path, "mcp-server-crm.log", DESKTOP_LOG.replace(
        "}\n", "} and more\n", 1))
    with pytest.raises(TranscriptError, match=r"line 1: .*unexpected text after the message"):
        list(open_transcript(path).events())


def test_an_application_log_is_not_taken_for_a_desktop_log(tmp_path):
    path = write(tmp_path, "app.log", "2025-03-18T15:30:23.456Z [app] [info] started\n"
                 "2025-03-18T15:30:24.000Z [app] [info] Message from nobody: {}\n")
    with pytest.raises(TranscriptError):
        open_transcript(path)
