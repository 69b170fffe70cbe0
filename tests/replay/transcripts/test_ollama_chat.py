"""Ollama's native chat (``/api/chat``): message files told by object arguments and
``tool_name``, results paired by id, by tool name or in order, and cassette calls answered
in JSON or streamed JSON lines; bad input refused by place and by family."""

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
TOOLCALL = CORPUS / "oi-ollama-toolcall" / "test_chat_with_tool_call.yaml"
URI = "http://127.0.0.1:11434/api/chat"
ASK = {"role": "user", "content": "查一下客户长路和小明"}
TOOLS = '''
from agentforge_cli import tool

@tool
def queryCustomer(name: str, limit: int = 1) -> str:
    """Look a customer up."""
    return f"customer:{name},limit:{limit}"

@tool
def countOrders(name: str) -> int:
    """Count a customer's orders."""
    return len(name)
'''


def call(tool: str, **arguments: object) -> dict:
    return {"function": {"name": tool, "arguments": arguments}}


def results(path: Path, fmt: str = "auto") -> list[tuple]:
    """Each result with the name and arguments of the call it answers."""
    events = list(open_transcript(path, fmt).events())
    calls = {e.index: (e.name, e.arguments) for e in events if isinstance(e, ToolCall)}
    return [(*calls[e.call_index], e.content) for e in events if isinstance(e, ToolResult)]


def chunk(message: dict, done: bool = False) -> str:
    return json.dumps({"model": "qwen3", "created_at": "2026-01-01T00:00:00Z",
                       "message": {"role": "assistant", **message}, "done": done})


def interaction(messages: list, body: str, content_type: str) -> dict:
    return {"request": {"body": json.dumps({"model": "qwen3", "messages": messages,
                                            "stream": True}),
                        "headers": {}, "method": "POST", "uri": URI},
            "response": {"body": {"string": body}, "headers": {"Content-Type": [content_type]},
                         "status": {"code": 200, "message": "OK"}}}


def cassette(tmp_path: Path, *interactions: dict) -> Path:
    path = tmp_path / "ollama.yaml"
    path.write_text(yaml.safe_dump({"interactions": list(interactions), "version": 1},
                                   allow_unicode=True), encoding="utf-8")
    return path


STREAMED = "\n".join([
    chunk({"content": "", "thinking": "Two customers: "}),
    chunk({"content": "", "thinking": "two calls."}),
    chunk({"content": "", "tool_calls": [call("queryCustomer", name="长路", limit=5)]}),
    chunk({"content": "", "tool_calls": [call("countOrders", name="小明")]}),
    chunk({"content": ""}, done=True)]) + "\n"
ANSWERED = [ASK, {"role": "assistant", "content": "", "tool_calls": [
    call("queryCustomer", name="长路", limit=5), call("countOrders", name="小明")]},
    {"role": "tool", "tool_name": "countOrders", "content": "2"},
    {"role": "tool", "tool_name": "queryCustomer", "content": "customer:长路,limit:5"}]


def test_the_corpus_call_is_read():
    """Before, the response (``message.tool_calls``, object arguments) was refused."""
    events = list(open_transcript(TOOLCALL).events())
    calls = [(e.id, e.name, e.arguments) for e in events if isinstance(e, ToolCall)]
    assert calls == [("call_gsiiy8py", "get_current_weather", '{"city":"Paris"}')]
    assert not any(isinstance(e, ToolResult) for e in events)
    thinking = [e.content for e in events if isinstance(e, AssistantMessage) and e.thinking]
    assert thinking and thinking[0].startswith("Thinking Process:")


def test_a_streamed_response_is_joined_and_its_calls_replay_once(cli, write_module,
                                                                  tmp_path):
    path = cassette(tmp_path, interaction([ASK], STREAMED, "application/x-ndjson"),
                    interaction(ANSWERED, chunk({"content": "好了。"}, done=True),
                                "application/json"))
    events = list(open_transcript(path).events())
    assert [e.content for e in events if isinstance(e, AssistantMessage)] == [
        "Two customers: two calls.", "好了。"]
    assert results(path) == [("countOrders", '{"name":"小明"}', "2"),
                             ("queryCustomer", '{"name":"长路","limit":5}',
                              "customer:长路,limit:5")]
    result = cli("replay", str(path), "-t", str(write_module("crm_tools", TOOLS)), "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["summary"] == {"matched": 2, "mismatched": 0,
                                                    "unrecorded": 0}


def test_results_pair_by_id_then_tool_name_then_order(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [
        ASK, {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", **call("queryCustomer", name="a")}, call("countOrders", name="b"),
            call("queryCustomer", name="c")]},
        {"role": "tool", "tool_call_id": "c1", "content": "by id"},
        {"role": "tool", "tool_name": "queryCustomer", "content": "by name"},
        {"role": "tool", "content": "in order"}]}), encoding="utf-8")
    assert open_transcript(path).format == "ollama"
    assert results(path) == [("queryCustomer", '{"name":"a"}', "by id"),
                             ("queryCustomer", '{"name":"c"}', "by name"),
                             ("countOrders", '{"name":"b"}', "in order")]


def test_an_update_adds_a_tool_message_with_its_tool_name(cli, write_module, tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": ANSWERED[:2] + ANSWERED[3:]}, ensure_ascii=False,
                               indent=1), encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    tools = str(write_module("crm_tools", TOOLS))
    result = cli("replay", str(path), "-t", tools, "--update")
    assert result.exit_code == 0, result.stdout + result.stderr
    messages = json.loads(path.read_text(encoding="utf-8"))["messages"]
    assert messages[2:] == [{"role": "tool", "tool_name": "queryCustomer",
                             "content": "customer:长路,limit:5"},
                            {"role": "tool", "content": "2", "tool_name": "countOrders"}]
    assert path.read_text(encoding="utf-8").startswith(before[:before.rindex("}\n ]")])
    assert cli("replay", str(path), "-t", tools).exit_code == 0


@pytest.mark.parametrize(("message", "said"), [
    ({"role": "assistant", "tool_calls": {"function": {}}}, r'"tool_calls" must be an array'),
    ({"role": "assistant", "tool_calls": [{"function": "queryCustomer"}]},
     r'tool_calls\[0\]: an Ollama tool call needs a "function" object with a "name"'),
    ({"role": "assistant", "tool_calls": [{"function": {"name": "q", "arguments": [1]}}]},
     r"tool_calls\[0\]: the call's arguments must be a JSON string or object"),
    ({"role": "tool", "tool_name": "q", "content": "x"},
     r"messages\[1\]: tool result without an id, and no call is waiting"),
    ({"role": "robot", "content": "x"}, r"expected an Ollama chat message with role user"),
])
def test_malformed_messages_are_refused_by_place(tmp_path, message, said):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [ASK, message]}), encoding="utf-8")
    with pytest.raises(TranscriptError, match=said):
        list(open_transcript(path, "ollama").events())


def test_a_cut_short_stream_is_refused_naming_the_family(cli, write_module, tmp_path):
    path = cassette(tmp_path, interaction([ASK], STREAMED[:-40], "application/x-ndjson"))
    result = cli("replay", str(path), "-t", str(write_module("crm_tools", TOOLS)))
    assert result.exit_code == 3
    assert ("the response cannot be read (text that is not JSON, in an Ollama /api/chat "
            "call)") in result.stderr
    assert "Traceback" not in result.stderr


def test_a_stream_ending_in_an_error_is_a_turn_without_an_answer(tmp_path):
    failed = chunk({"content": "Let"}) + "\n" + json.dumps({"error": "model crashed"}) + "\n"
    path = cassette(tmp_path, interaction([ASK], failed, "application/x-ndjson"),
                    interaction([ASK], STREAMED, "application/x-ndjson"))
    assert [e.name for e in open_transcript(path).events() if isinstance(e, ToolCall)] == [
        "queryCustomer", "countOrders"]
