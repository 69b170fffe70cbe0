"""The transcript formats beyond chat: OpenAI Responses, Gemini contents, MCP sessions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import CRM, TRANSCRIPTS

from agentforge_cli.replay.transcripts import (
    AssistantMessage,
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
    open_transcript,
)
from agentforge_cli.replay.transcripts.place import WHOLE_FILE


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(*records: object) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def calls_and_results(path: Path, fmt: str = "auto") -> list[tuple]:
    return [(type(e).__name__, e.id, getattr(e, "index", getattr(e, "call_index", None)),
             getattr(e, "name", None) or e.content)
            for e in open_transcript(path, fmt).events() if isinstance(e, ToolCall | ToolResult)]


def replay_json(cli, path: Path, *options: str) -> dict:
    result = cli("replay", str(path), "-t", CRM, "--json", *options)
    assert result.exit_code == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


# -- OpenAI Responses ---------------------------------------------------------------------------

CALL = {"type": "function_call", "call_id": "c1", "name": "queryCustomer",
        "arguments": '{"name":"长路","limit":5}'}
OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "customer:长路,limit:5"}


def test_responses_sample_replays_matched_without_format(cli):
    data = replay_json(cli, TRANSCRIPTS / "crm_responses.json")
    assert data["format"] == "openai-responses"
    assert data["summary"] == {"matched": 1, "mismatched": 0, "unrecorded": 0}


def test_responses_dump_reads_input_then_output(tmp_path):
    path = write(tmp_path, "r.json", json.dumps({
        "input": "查一下",
        "output": [{"type": "reasoning", "summary": [{"type": "summary_text", "text": "hm"}]},
                   CALL]}))
    transcript = open_transcript(path)
    assert transcript.format == "openai-responses"
    events = list(transcript.events())
    assert events[0] == UserMessage(content="查一下", where=WHOLE_FILE.at("input"))
    assert events[1] == AssistantMessage(content="hm", where=WHOLE_FILE.at("output", 0),
                                         thinking=True)
    assert (events[2].id, events[2].name, events[2].where) == (
        "c1", "queryCustomer", WHOLE_FILE.at("output", 1))


@pytest.mark.parametrize("container", ["json", "jsonl"])
def test_responses_items_pair_outputs_by_call_id(tmp_path, container):
    items = [{"role": "user", "content": "hi"}, CALL, {**CALL, "call_id": "c2"},
             {**OUTPUT, "call_id": "c2", "output": [{"type": "input_text", "text": "two"}]},
             OUTPUT]
    text = json.dumps(items) if container == "json" else jsonl(*items)
    path = write(tmp_path, f"r.{container}", text)
    assert open_transcript(path).format == "openai-responses"
    assert calls_and_results(path) == [
        ("ToolCall", "c1", 0, "queryCustomer"), ("ToolCall", "c2", 1, "queryCustomer"),
        ("ToolResult", "c2", 1, "two"), ("ToolResult", "c1", 0, "customer:长路,limit:5")]


@pytest.mark.parametrize(("items", "where", "reason"), [
    ([CALL, {**OUTPUT, "call_id": "zz"}], "line 2", "no earlier call with that id"),
    ([{**CALL, "arguments": 5}], "line 1", "arguments must be a JSON string or object"),
    ([CALL, {"type": "message", "role": "assistant", "parts": ["x"]}], "line 2",
     'needs "content"'),
    ([CALL, {"type": "wat"}], "line 2", "not a Responses item"),
    ([CALL, {"type": "function_call_output", "call_id": 1.5, "output": "x"}], "line 2",
     '"call_id" must be a string'),
    ([CALL, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1"}]}],
     "line 2", "use --format anthropic"),
    ([CALL, {"role": "tool", "tool_call_id": "c1", "content": "x"}], "line 2",
     "use --format openai"),
])
def test_malformed_responses_items_name_file_and_line(cli, tmp_path, items, where, reason):
    path = write(tmp_path, "r.jsonl", jsonl(*items))
    result = cli("replay", str(path), "-t", CRM)
    assert result.exit_code == 3, result.stdout + result.stderr
    assert f"{path}, {where}: " in " ".join(result.stderr.split())
    assert reason in " ".join(result.stderr.split())


def test_responses_update_rewrites_outputs_and_adds_missing_ones(cli, tmp_path):
    path = tmp_path / "r.json"
    shutil.copy(TRANSCRIPTS / "crm_responses.json", path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["input"][2]["output"] = [{"type": "input_text", "text": "stale"}]
    data["output"].append({**CALL, "call_id": "c9", "arguments": '{"name":"小明","limit":1}'})
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM, "--update")
    assert result.exit_code == 0, result.stdout + result.stderr
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["model"] == data["model"]
    assert written["input"][2]["output"] == [{"type": "input_text",
                                              "text": "customer:长路,limit:5"}]
    assert written["output"][-1] == {"type": "function_call_output", "call_id": "c9",
                                     "output": "customer:小明,limit:1"}
    assert replay_json(cli, path)["summary"] == {"matched": 2, "mismatched": 0,
                                                 "unrecorded": 0}


def test_responses_string_input_is_kept_a_string_on_update(tmp_path):
    path = write(tmp_path, "r.json", json.dumps({"input": "hi", "output": [CALL]}))
    open_transcript(path).write_results({0: ("new", False)})
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == {"input": "hi", "output": [CALL, {**OUTPUT, "output": "new"}]}


def test_items_reader_works_on_decoded_json():
    from agentforge_cli.replay.transcripts.formats import openai_responses
    from agentforge_cli.replay.transcripts.reading.calls import CallBook

    book = CallBook(Path("cassette.yaml"))
    events = [e for i, item in enumerate([CALL, OUTPUT])
              for e in openai_responses.item_events(item, f"input[{i}]", book)]
    assert [type(e) for e in events] == [ToolCall, ToolResult]
    with pytest.raises(TranscriptError):
        openai_responses.item_events("x", "input[2]", book)


# -- Gemini contents ----------------------------------------------------------------------------

def g_call(name="queryCustomer", args=None, **extra):
    return {"functionCall": {"name": name, "args": args or {"name": "长路", "limit": 5},
                             **extra}}


def g_answer(response, name="queryCustomer", **extra):
    return {"functionResponse": {"name": name, "response": response, **extra}}


def test_gemini_sample_replays_matched_without_format(cli):
    data = replay_json(cli, TRANSCRIPTS / "crm_gemini.json")
    assert data["format"] == "gemini"
    assert data["summary"] == {"matched": 1, "mismatched": 0, "unrecorded": 0}


@pytest.mark.parametrize("container", ["json", "jsonl", "contents"])
def test_gemini_pairs_by_id_else_in_order_per_name(tmp_path, container):
    contents = [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "plan", "thought": True}, g_call("a"),
                                    g_call("b"), g_call("a"), g_call("c", id="x")]},
        {"role": "user", "parts": [g_answer({"result": "c!"}, "c", id="x"),
                                   g_answer({"output": {"n": 2}}, "a"),
                                   g_answer({"error": "boom"}, "b"),
                                   g_answer({"n": 1, "m": [1]}, "a")]},
    ]
    text = {"json": json.dumps(contents), "jsonl": jsonl(*contents),
            "contents": json.dumps({"contents": contents, "generationConfig": {}})}[container]
    path = write(tmp_path, "g.jsonl" if container == "jsonl" else "g.json", text)
    transcript = open_transcript(path)
    assert transcript.format == "gemini"
    events = list(transcript.events())
    assert events[1] == AssistantMessage(content="plan", where=events[1].where, thinking=True)
    results = [(e.call_index, e.id, e.content, e.is_error) for e in events
               if isinstance(e, ToolResult)]
    assert results == [(3, "x", "c!", False), (0, None, '{"n":2}', False),
                       (1, None, "boom", True), (2, None, '{"n":1,"m":[1]}', None)]


@pytest.mark.parametrize(("contents", "where", "reason"), [
    ([{"role": "model", "parts": [g_call()]}, {"role": "user", "parts": [g_answer({}, "x")]}],
     "line 2, parts[0]", 'no earlier functionCall of "x"'),
    ([{"role": "model", "parts": [g_call(args=[1])]}], "line 1, parts[0]",
     '"args" must be an object'),
    ([{"role": "model", "parts": [g_call()]},
      {"role": "user", "parts": [{"functionResponse": {"name": "queryCustomer"}}]}],
     "line 2, parts[0]", 'needs a "response" object'),
    ([{"role": "model", "parts": [g_call()]}, {"role": "model", "text": "x"}], "line 2",
     'needs a "parts" array'),
    ([{"role": "model", "parts": [g_call()]}, {"role": "robot", "parts": []}], "line 2",
     "unknown role"),
])
def test_malformed_gemini_contents_name_file_and_line(cli, tmp_path, contents, where, reason):
    path = write(tmp_path, "g.jsonl", jsonl(*contents))
    result = cli("replay", str(path), "-t", CRM)
    assert result.exit_code == 3, result.stdout + result.stderr
    assert f"{path}, {where}: " in " ".join(result.stderr.split())
    assert reason in " ".join(result.stderr.split())


def test_gemini_update_keeps_the_response_shape_and_adds_missing_responses(cli, tmp_path):
    contents = [
        {"role": "model", "parts": [g_call(), g_call(args={"name": "小明", "limit": 1}),
                                    g_call(args={"name": "老王", "limit": 2})]},
        {"role": "user", "parts": [g_answer({"output": "stale"}), g_answer({"x": 1})]},
        {"role": "model", "parts": [g_call(args={"name": "阿三", "limit": 3}, id="k")]},
    ]
    path = write(tmp_path, "g.json", json.dumps({"contents": contents, "tools": []}))
    result = cli("replay", str(path), "-t", CRM, "--update")
    assert result.exit_code == 0, result.stdout + result.stderr
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["tools"] == []
    assert written["contents"][1]["parts"] == [
        g_answer({"output": "customer:长路,limit:5"}),
        g_answer({"result": "customer:小明,limit:1"}),
        g_answer({"result": "customer:老王,limit:2"})]
    assert written["contents"][3] == {"role": "user", "parts": [
        g_answer({"result": "customer:阿三,limit:3"}, id="k")]}
    assert replay_json(cli, path)["summary"]["matched"] == 4


# -- MCP sessions -------------------------------------------------------------------------------

def rpc(**fields):
    return {"jsonrpc": "2.0", **fields}


def tools_call(id, name="queryCustomer", arguments=None):
    return rpc(id=id, method="tools/call",
               params={"name": name, "arguments": arguments or {"name": "长路", "limit": 5}})


def tools_result(id, *texts, is_error=None):
    result = {"content": [{"type": "text", "text": t} for t in texts]}
    if is_error is not None:
        result["isError"] = is_error
    return rpc(id=id, result=result)


def test_mcp_sample_replays_matched_without_format(cli):
    data = replay_json(cli, TRANSCRIPTS / "crm_mcp.jsonl")
    assert data["format"] == "mcp"
    assert data["summary"] == {"matched": 1, "mismatched": 0, "unrecorded": 0}


@pytest.mark.parametrize("container", ["json", "jsonl"])
def test_mcp_pairs_tools_call_responses_by_id(tmp_path, container):
    messages = [
        rpc(id=1, method="tools/list"), tools_call(2), tools_call("b"), tools_call(4),
        rpc(id=1, result={"tools": []}),                          # not a call's response
        {"direction": "in", "ts": 1, "message": tools_result("b", "x", "y", is_error=True)},
        rpc(id=4, error={"code": -32602, "message": "Unknown tool"}),
        rpc(method="notifications/progress", params={}),
        tools_result(2, "two"),
    ]
    text = json.dumps(messages) if container == "json" else jsonl(*messages)
    path = write(tmp_path, f"m.{container}", text)
    assert open_transcript(path).format == "mcp"
    results = [(e.call_index, e.id, e.content, e.is_error)
               for e in open_transcript(path).events() if isinstance(e, ToolResult)]
    # a JSON-RPC error is worded as an MCP target's failed call is; each call comes out
    # with its result once that is read, the calls in their order
    refused = "Error executing tool queryCustomer: Unknown tool"
    assert results == [(0, "2", "two", False), (1, "b", "x\ny", True),
                       (2, "4", refused, True)]


@pytest.mark.parametrize(("messages", "where", "reason"), [
    ([tools_call(1), tools_call(1)], "line 2", "used twice"),
    ([tools_call(1), rpc(id=1, result={"structuredContent": {}})], "line 2",
     'result needs "content"'),
    ([tools_call(1), rpc(id=2, method="tools/call", params="x")], "line 2", 'needs "params"'),
    ([tools_call(1), tools_result(1, is_error="yes")], "line 2", '"isError" must be true'),
    ([tools_call(1), {"direction": "in", "message": {"id": 1}}], "line 2",
     "not a JSON-RPC 2.0 message"),
])
def test_malformed_mcp_messages_name_file_and_line(cli, tmp_path, messages, where, reason):
    path = write(tmp_path, "m.jsonl", jsonl(*messages))
    result = cli("replay", str(path), "-t", CRM, "--format", "mcp")
    assert result.exit_code == 3, result.stdout + result.stderr
    assert f"{path}, {where}: " in " ".join(result.stderr.split())
    assert reason in " ".join(result.stderr.split())


def test_mcp_update_rewrites_responses_and_adds_missing_ones(cli, tmp_path):
    wrapped = {"direction": "out", "timestamp": "t", "message": tools_call(7)}
    path = write(tmp_path, "m.jsonl", jsonl(
        tools_call(1), rpc(id=1, error={"code": 1, "message": "old"}),
        wrapped, tools_call(9, arguments={"name": "小明", "limit": 2}),
        tools_result(9, "stale"), {**tools_result(9, "x"), "id": 10}))
    result = cli("replay", str(path), "-t", CRM, "--update")
    assert result.exit_code == 0, result.stdout + result.stderr
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines[1] == tools_result(1, "customer:长路,limit:5", is_error=False)
    assert lines[2] == wrapped
    assert lines[3] == {"message": tools_result(7, "customer:长路,limit:5", is_error=False)}
    assert lines[5] == tools_result(9, "customer:小明,limit:2", is_error=False)
    assert lines[6] == {**tools_result(9, "x"), "id": 10}
    assert replay_json(cli, path)["summary"]["matched"] == 3


# -- many conversations in one file -------------------------------------------------------------

def chat(call_id, name="长路", limit=5, result=None):
    messages = [{"role": "user", "content": f"look up {name}"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": call_id, "type": "function", "function": {
                        "name": "queryCustomer",
                        "arguments": json.dumps({"name": name, "limit": limit})}}]}]
    if result is not None:
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
    return messages


def test_conversations_sample_replays_matched_without_format(cli):
    data = replay_json(cli, TRANSCRIPTS / "crm_conversations.jsonl")
    assert data["format"] == "conversations"
    assert data["summary"] == {"matched": 2, "mismatched": 0, "unrecorded": 0}


@pytest.mark.parametrize("container", ["jsonl", "json"])
def test_each_conversation_keeps_its_own_call_ids_and_format(tmp_path, container):
    conversations = [
        chat("call_1", result="one"),
        {"messages": chat("call_1", "小明", 3, result="two"), "id": "b"},
        {"contents": [{"role": "model", "parts": [{"functionCall": {
            "name": "queryCustomer", "args": {"name": "x", "limit": 1}}}]}]},
        {"input": [CALL, OUTPUT]},
        [],
    ]
    text = (jsonl(*conversations) if container == "jsonl"
            else json.dumps(conversations, ensure_ascii=False))
    path = write(tmp_path, f"c.{container}", text)
    assert open_transcript(path).format == "conversations"
    assert calls_and_results(path) == [
        ("ToolCall", "call_1", 0, "queryCustomer"), ("ToolResult", "call_1", 0, "one"),
        ("ToolCall", "call_1", 1, "queryCustomer"), ("ToolResult", "call_1", 1, "two"),
        ("ToolCall", None, 2, "queryCustomer"),
        ("ToolCall", "c1", 3, "queryCustomer"),
        ("ToolResult", "c1", 3, "customer:长路,limit:5")]


@pytest.mark.parametrize(("line", "where", "reason"), [
    ({"note": 1}, "line 2", "expected a conversation"),
    ([{"role": "tool", "tool_call_id": "zz", "content": "x"}], "line 2, messages[0]",
     "no earlier call with that id"),
    ({"messages": [{"speaker": "x"}]}, "line 2, messages[0]", "not a known transcript format"),
    ({"contents": [{"role": "model", "parts": [{"functionCall": {"name": "q", "args": 1}}]}]},
     "line 2, contents[0], parts[0]", '"args" must be an object'),
])
def test_malformed_conversations_name_file_line_and_message(cli, tmp_path, line, where,
                                                            reason):
    path = write(tmp_path, "c.jsonl", jsonl(chat("a", result="r"), line))
    result = cli("replay", str(path), "-t", CRM)
    assert result.exit_code in (2, 3), result.stdout + result.stderr
    assert f"{path}, {where}: " in " ".join(result.stderr.split())
    assert reason in " ".join(result.stderr.split())


def test_conversations_update_rewrites_each_and_keeps_the_others_byte_for_byte(cli, tmp_path):
    first = json.dumps({"messages": chat("a", result="customer:长路,limit:5")},
                       ensure_ascii=False, indent=None) + "\n"
    path = write(tmp_path, "c.jsonl", first + jsonl(
        chat("a", "小明", 3, result="stale"), {"contents": [{"role": "model", "parts": [
            {"functionCall": {"name": "queryCustomer", "args": {"name": "x", "limit": 1}}}]}]}))
    result = cli("replay", str(path), "-t", CRM, "--update")
    assert result.exit_code == 0, result.stdout + result.stderr
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[0] == first
    assert json.loads(lines[1])[2]["content"] == "customer:小明,limit:3"
    assert json.loads(lines[2])["contents"][1] == {"role": "user", "parts": [
        g_answer({"result": "customer:x,limit:1"})]}
    assert replay_json(cli, path)["summary"]["matched"] == 3
