"""Cohere v2 chat (``/v2/chat``): message files detected by what only Cohere writes, and
cassette calls answered in JSON or server-sent events; bad input refused by place and by
family."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from agentforge_cli.replay.transcripts import (
    AssistantMessage,
    ToolCall,
    ToolResult,
    TranscriptError,
    open_transcript,
)

REPOSITORY = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("AGENTFORGE_CORPUS") or REPOSITORY.parent / "shared" / "corpus")
HISTORY = (CORPUS / "ol-cohere-v2-history"
           / "test_cohere_v2_chat_legacy_with_tool_calls_and_history.yaml")
STREAM = (CORPUS / "ol-cohere-v2-stream"
          / "test_cohere_v2_chat_legacy_with_tool_calls_and_streaming.yaml")
URI = "https://api.cohere.com/v2/chat"
ASK = {"role": "user", "content": "查一下客户长路"}
CALL = {"id": "q_1", "type": "function",
        "function": {"name": "queryCustomer", "arguments": '{"name":"长路","limit":5}'}}
TOOLS = '''
from agentforge_cli import tool

@tool
def queryCustomer(name: str, limit: int = 1) -> str:
    """Look a customer up."""
    return f"customer:{name},limit:{limit}"
'''


def calls_and_results(path: Path, fmt: str = "auto") -> list[tuple]:
    return [(type(e).__name__, e.id, getattr(e, "name", None), getattr(e, "arguments", None)
             or getattr(e, "content", None))
            for e in open_transcript(path, fmt).events() if isinstance(e, ToolCall | ToolResult)]


def interaction(request: dict, response: str, content_type: str = "application/json") -> dict:
    return {"request": {"body": json.dumps(request), "headers": {}, "method": "POST",
                        "uri": URI},
            "response": {"body": {"string": response}, "headers": {"content-type": [content_type]},
                         "status": {"code": 200, "message": "OK"}}}


def cassette(tmp_path: Path, *interactions: dict) -> Path:
    path = tmp_path / "cohere.yaml"
    path.write_text(yaml.safe_dump({"interactions": list(interactions), "version": 1},
                                   allow_unicode=True), encoding="utf-8")
    return path


def sse(*events: dict) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events) + (
        "data: [DONE]\n\n")


def streamed_call(arguments: list[str]) -> str:
    """A Cohere v2 stream: a tool plan, then one call whose arguments come in pieces."""
    return sse(
        {"type": "message-start", "id": "m1", "delta": {"message": {
            "role": "assistant", "content": [], "tool_plan": "", "tool_calls": []}}},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will look"}}},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " it up."}}},
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {
            "id": "q_1", "type": "function",
            "function": {"name": "queryCustomer", "arguments": ""}}}}},
        *[{"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {
            "function": {"arguments": piece}}}}} for piece in arguments],
        {"type": "tool-call-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}})


def test_the_corpus_history_is_read():
    """Before, the final answer (``message.content``, no ``choices``) was refused after
    both calls had run."""
    assert calls_and_results(HISTORY) == [
        ("ToolCall", "get_time_dp3men9jrvhf", "get_time", '{"location":"Tokyo"}'),
        ("ToolCall", "get_weather_d7arjgsc96yf", "get_weather", '{"location":"Tokyo"}'),
        ("ToolResult", "get_time_dp3men9jrvhf", None, "4:20 PM"),
        ("ToolResult", "get_weather_d7arjgsc96yf", None, "Sunny 20 degrees Celsius")]
    said = [(e.content, e.thinking) for e in open_transcript(HISTORY).events()
            if isinstance(e, AssistantMessage)]
    assert said[0] == ("I will search for the current time and weather in Tokyo.", True)
    assert said[-1][0].startswith("The current time in Tokyo is 4:20 PM")


def test_the_corpus_stream_is_read():
    """The calls exist only in the SSE events, their arguments in tool-call-delta pieces."""
    assert calls_and_results(STREAM) == [
        ("ToolCall", "get_time_dg5wwc00d8v5", "get_time", '{\n    "location": "Tokyo"\n}'),
        ("ToolCall", "get_weather_bc8241gkqss5", "get_weather",
         '{\n    "location": "Tokyo"\n}')]


def test_a_streamed_call_answered_in_the_next_request_replays_once(cli, write_module,
                                                                    tmp_path):
    path = cassette(
        tmp_path,
        interaction({"messages": [ASK]}, streamed_call(['{"name":', '"长路","limit":5}']),
                    "text/event-stream"),
        interaction({"messages": [ASK, {"role": "assistant", "tool_plan": "I will look it up.",
                                        "tool_calls": [CALL]},
                                  {"role": "tool", "tool_call_id": "q_1",
                                   "content": "customer:长路,limit:5"}]},
                    json.dumps({"id": "m2", "finish_reason": "COMPLETE", "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "已查询到客户长路。"}]}})))
    result = cli("replay", str(path), "-t", str(write_module("crm_tools", TOOLS)), "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["summary"] == {"matched": 1, "mismatched": 0, "unrecorded": 0}
    assert [c["id"] for c in data["calls"]] == ["q_1"]


def test_a_messages_file_is_detected_replayed_and_updated_in_its_shape(cli, write_module,
                                                                        tmp_path):
    path = tmp_path / "cohere.json"
    path.write_text(json.dumps({"messages": [
        ASK, {"role": "assistant", "tool_plan": "I will look it up.", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "q_1", "content": [
            {"type": "document", "document": {"data": "customer:长路,limit:50"}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "已查询到。"}]}]},
        ensure_ascii=False, indent=1), encoding="utf-8")
    assert open_transcript(path).format == "cohere"
    tools = str(write_module("crm_tools", TOOLS))
    assert cli("replay", str(path), "-t", tools).exit_code == 1
    result = cli("replay", str(path), "-t", tools, "--update")
    assert result.exit_code == 0, result.stdout + result.stderr
    tool_message = json.loads(path.read_text(encoding="utf-8"))["messages"][2]
    assert tool_message["content"] == [{"type": "document",
                                        "document": {"data": "customer:长路,limit:5"}}]
    assert cli("replay", str(path), "-t", tools).exit_code == 0


def test_a_document_block_holding_an_object_is_its_compact_json(tmp_path):
    path = tmp_path / "cohere.json"
    path.write_text(json.dumps([ASK, {"role": "assistant", "tool_calls": [CALL]},
                                {"role": "tool", "tool_call_id": "q_1", "content": [
                                    {"type": "document", "document": {"data": {"n": 1}}},
                                    {"type": "text", "text": "more"}]}]), encoding="utf-8")
    assert calls_and_results(path, "cohere")[-1] == ("ToolResult", "q_1", None, '{"n":1}\nmore')


@pytest.mark.parametrize(("message", "said"), [
    ({"role": "assistant", "tool_plan": "x", "tool_calls": {"id": "a"}},
     r'messages\[1\]: "tool_calls" must be an array'),
    ({"role": "assistant", "tool_plan": "x", "tool_calls": [{"id": "a", "function": "f"}]},
     r'messages\[1\], tool_calls\[0\]: a Cohere tool call needs a "function" object'),
    ({"role": "assistant", "tool_plan": "x", "tool_calls": [
        {"id": "a", "function": {"name": "f", "arguments": [1]}}]},
     r"tool_calls\[0\]: the call's arguments must be a JSON string or object"),
    ({"role": "assistant", "tool_plan": "x", "tool_calls": [
        {"id": 1.5, "function": {"name": "f", "arguments": "{}"}}]},
     r'"id" must be a string'),
])
def test_malformed_messages_are_refused_by_place(tmp_path, message, said):
    path = tmp_path / "cohere.json"
    path.write_text(json.dumps({"messages": [ASK, message]}), encoding="utf-8")
    with pytest.raises(TranscriptError, match=said):
        list(open_transcript(path, "cohere").events())


def test_a_response_that_is_no_cohere_message_is_refused_naming_the_family(cli, write_module,
                                                                             tmp_path):
    path = cassette(tmp_path, interaction({"messages": [ASK]}, "Service Unavailable"))
    result = cli("replay", str(path), "-t", str(write_module("crm_tools", TOOLS)))
    assert result.exit_code == 3
    assert ("the response cannot be read (text that is not JSON, in a Cohere v2 /v2/chat "
            "call)") in result.stderr
    assert "Traceback" not in result.stderr
