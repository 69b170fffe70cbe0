"""Cassettes as real clients record them: each recorded call runs exactly once (interleaved
conversations, ids added or changed by the client, calls only in a streamed response or
only in the next request), interactions that are no model call are skipped, and a model
call that cannot be read is named, never read as "no tool calls"."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml

from agentforge_cli.replay.transcripts import (
    ConversationStart,
    ToolCall,
    ToolResult,
    TranscriptError,
    open_transcript,
)

CHAT = "https://api.openai.com/v1/chat/completions"
MESSAGES = "https://api.anthropic.com/v1/messages"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/g:generateContent"
RESPONSES = "https://api.openai.com/v1/responses"

COUNTING_TOOLS = '''
import json, os
from agentforge_cli import tool

def _ran(name, **arguments):
    with open(os.environ["RAN_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"tool": name, **arguments}) + "\\n")

@tool
def lookup(city: str) -> str:
    """Look a city up."""
    _ran("lookup", city=city)
    return f"{city}: found"

@tool
def ask_coworker(question: str) -> str:
    """Ask a coworker (another agent) a question."""
    _ran("ask_coworker", question=question)
    return f"asked: {question}"
'''


def exchange(request: object, response: object, uri: str = CHAT, *, method: str = "POST",
             status: int = 200, headers: dict | None = None) -> dict:
    body = request if isinstance(request, str | bytes) or request is None else json.dumps(
        request)
    reply = response if isinstance(response, str | bytes) else json.dumps(response)
    return {"request": {"body": body, "headers": {}, "method": method, "uri": uri},
            "response": {"body": {"string": reply}, "headers": headers or {},
                         "status": {"code": status, "message": "OK"}}}


def cassette(tmp_path: Path, *interactions: dict, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"interactions": list(interactions), "version": 1},
                                   allow_unicode=True), encoding="utf-8")
    return path


def chat_reply(**message: object) -> dict:
    return {"choices": [{"index": 0, "message": {"role": "assistant", **message}}]}


def call(call_id: str | None, name: str, **arguments: object) -> dict:
    entry = {"type": "function", "function": {"name": name,
                                              "arguments": json.dumps(arguments)}}
    return entry if call_id is None else {"id": call_id, **entry}


def result(call_id: str, text: str) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def calls_and_results(path: Path) -> list[tuple]:
    found = []
    for event in open_transcript(path).events():
        if isinstance(event, ToolCall):
            found.append(("call", event.name, event.index, event.conversation))
        elif isinstance(event, ToolResult):
            found.append(("result", event.call_index, event.content))
    return found


@pytest.fixture
def counted(cli, tmp_path, monkeypatch):
    """Replay a cassette with tools that log each execution: (exit code, JSON, ran)."""
    module = tmp_path / "counting_tools.py"
    module.write_text(COUNTING_TOOLS, encoding="utf-8")
    log = tmp_path / "ran.jsonl"
    monkeypatch.setenv("RAN_LOG", str(log))

    def run(path: Path, *options: str) -> tuple[int, dict, list[dict]]:
        log.write_text("", encoding="utf-8")
        done = cli("replay", str(path), "-t", str(module), "--json", *options)
        ran = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        return done.exit_code, json.loads(done.stdout) if done.stdout.strip() else {}, ran

    return run


# -- interleaved conversations: a manager agent and the coworker its tool asks --------------

MANAGER = [{"role": "system", "content": "You manage."}, {"role": "user", "content": "Plan."}]
COWORKER = [{"role": "system", "content": "You research."},
            {"role": "user", "content": "What is new in Paris?"}]
ASK = call("call_m1", "ask_coworker", question="What is new in Paris?")
LOOK = call("call_c1", "lookup", city="Paris")


def interleaved(tmp_path: Path) -> Path:
    return cassette(
        tmp_path,
        exchange({"messages": MANAGER}, chat_reply(content=None, tool_calls=[ASK])),
        # the tool runs another agent: its conversation starts inside the manager's call
        exchange({"messages": COWORKER}, chat_reply(content=None, tool_calls=[LOOK])),
        exchange({"messages": [*COWORKER, {"role": "assistant", "tool_calls": [LOOK]},
                               result("call_c1", "Paris: found")]},
                 chat_reply(content="Paris has news.")),
        exchange({"messages": [*MANAGER, {"role": "assistant", "tool_calls": [ASK]},
                               result("call_m1", "asked: What is new in Paris?")]},
                 chat_reply(content="Done.")),
    )


def test_interleaved_conversations_run_each_call_once(counted, tmp_path):
    code, data, ran = counted(interleaved(tmp_path))
    assert code == 0, data
    assert [entry["tool"] for entry in ran] == ["ask_coworker", "lookup"]
    assert data["summary"]["matched"] == 2 and data["summary"]["unrecorded"] == 0


def test_interleaved_conversations_are_numbered_and_started(tmp_path):
    events = list(open_transcript(interleaved(tmp_path)).events())
    starts = [e for e in events if isinstance(e, ConversationStart)]
    assert [(s.conversation, s.alongside) for s in starts] == [(1, True)]
    assert calls_and_results(interleaved(tmp_path)) == [
        ("call", "ask_coworker", 0, 0), ("call", "lookup", 1, 1),
        ("result", 1, "Paris: found"), ("result", 0, "asked: What is new in Paris?")]


def test_the_same_request_twice_after_the_history_moved_on_is_a_new_conversation(tmp_path):
    """The same agent run twice in one cassette: two conversations, each call its own."""
    first = interleaved(tmp_path).read_text(encoding="utf-8")
    data = yaml.safe_load(first)
    path = cassette(tmp_path, *data["interactions"], *data["interactions"], name="twice.yaml")
    names = [entry[1] for entry in calls_and_results(path) if entry[0] == "call"]
    assert names == ["ask_coworker", "lookup", "ask_coworker", "lookup"]


# -- ids the client adds or changes in the next request ---------------------------------------

def test_gemini_calls_without_ids_are_known_again_when_the_client_adds_ids(counted, tmp_path):
    ask = {"role": "user", "parts": [{"text": "Paris?"}]}
    made = {"functionCall": {"name": "lookup", "args": {"city": "Paris"}}}
    sent = {"functionCall": {"name": "lookup", "args": {"city": "Paris"}, "id": "client_1"}}
    answer = {"functionResponse": {"name": "lookup", "id": "client_1",
                                   "response": {"return_value": "Paris: found"}}}
    path = cassette(
        tmp_path,
        exchange({"contents": [ask]},
                 {"candidates": [{"content": {"role": "model", "parts": [made]}}]}, GEMINI),
        exchange({"contents": [ask, {"role": "model", "parts": [sent]},
                               {"role": "user", "parts": [answer]}]},
                 {"candidates": [{"content": {"role": "model",
                                              "parts": [{"text": "Found."}]}}]}, GEMINI))
    code, data, ran = counted(path)
    assert code == 0, data
    assert ran == [{"tool": "lookup", "city": "Paris"}]
    assert data["summary"]["matched"] == 1  # {"return_value": ...} compares as the value


def resumed_runs(tmp_path: Path, runs: int = 3) -> Path:
    """Mirascope's cross-provider resume, run ``runs`` times in one cassette: each run's
    call is made by Gemini (no id) and answered in an OpenAI Responses request, under the
    placeholder id the client makes up for a call without one (the same in every run)."""
    ask = {"role": "user", "parts": [{"text": "Paris?"}]}
    made = {"functionCall": {"name": "lookup", "args": {"city": "Paris"}}}
    resumed = [{"role": "user", "content": "Paris?"},
               {"type": "function_call", "call_id": "google_unknown_tool_id",
                "name": "lookup", "arguments": '{"city": "Paris"}'},
               {"type": "function_call_output", "call_id": "google_unknown_tool_id",
                "output": "Paris: found"}]
    said = {"id": "resp_1", "output": [{"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "Paris is found."}]}]}
    interactions = []
    for _ in range(runs):
        interactions += [
            exchange({"contents": [ask]},
                     {"candidates": [{"content": {"role": "model", "parts": [made]}}]},
                     GEMINI),
            exchange({"input": resumed, "model": "gpt-4o"}, said, RESPONSES)]
    return cassette(tmp_path, *interactions)


def test_a_call_resumed_in_another_providers_request_runs_once_per_run(counted, tmp_path):
    """Each run's Gemini call is answered by the Responses request after it: three calls,
    each run once and matched, three conversations (never merged, though the Gemini and
    the Responses requests of every run are byte for byte the same)."""
    code, data, ran = counted(resumed_runs(tmp_path))
    assert code == 0, data
    assert ran == [{"tool": "lookup", "city": "Paris"}] * 3
    assert data["summary"] == {"matched": 3, "mismatched": 0, "unrecorded": 0}
    assert calls_and_results(resumed_runs(tmp_path)) == [
        ("call", "lookup", 0, 0), ("result", 0, "Paris: found"),
        ("call", "lookup", 1, 1), ("result", 1, "Paris: found"),
        ("call", "lookup", 2, 2), ("result", 2, "Paris: found")]


def test_a_request_repeated_with_nothing_waiting_stays_in_its_conversation(tmp_path):
    """The same request twice, no other conversation waiting for its call: a retry of
    the one conversation, its call known again (not a second conversation)."""
    made = exchange({"messages": COWORKER}, chat_reply(content=None, tool_calls=[LOOK]))
    answered = exchange({"messages": [*COWORKER, {"role": "assistant", "tool_calls": [LOOK]},
                                      result("call_c1", "Paris: found")]},
                        chat_reply(content="ok"))
    path = cassette(tmp_path, made, answered, answered)
    assert calls_and_results(path) == [("call", "lookup", 0, 0), ("result", 0, "Paris: found")]


def test_an_id_the_client_rewrites_is_the_same_call(tmp_path):
    path = cassette(
        tmp_path,
        exchange({"messages": COWORKER},
                 chat_reply(content=None, tool_calls=[call("lookup:0", "lookup", city="P")])),
        exchange({"messages": [*COWORKER, {"role": "assistant",
                                           "tool_calls": [call("0", "lookup", city="P")]},
                               result("0", "P: found")]}, chat_reply(content="ok")))
    assert calls_and_results(path) == [("call", "lookup", 0, 0), ("result", 0, "P: found")]


# -- streamed responses ---------------------------------------------------------------------

def sse(*chunks: dict) -> str:
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"


def delta(**fields: object) -> dict:
    return {"choices": [{"index": 0, "delta": fields}]}


def test_a_call_only_in_a_streamed_chat_response_is_read(counted, tmp_path):
    pieces = sse(delta(role="assistant", content=None, tool_calls=[
                     {"index": 0, "id": "call_s", "type": "function",
                      "function": {"name": "lookup", "arguments": ""}}]),
                 delta(tool_calls=[{"index": 0, "function": {"arguments": '{"city": '}}]),
                 delta(tool_calls=[{"index": 0, "function": {"arguments": '"Oslo"}'}}]))
    path = cassette(tmp_path, exchange({"messages": COWORKER, "stream": True}, pieces,
                                       headers={"Content-Type": ["text/event-stream"]}))
    code, data, ran = counted(path)
    assert ran == [{"tool": "lookup", "city": "Oslo"}]
    assert data["summary"]["unrecorded"] == 1 and code == 0


def test_a_streamed_anthropic_response_is_joined_into_its_blocks(tmp_path):
    events = [
        {"type": "message_start", "message": {"id": "m", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text",
                                                                      "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta",
                                                              "text": "Looking."}},
        {"type": "content_block_start", "index": 1, "content_block": {
            "type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {
            "type": "input_json_delta", "partial_json": '{"city": "Rome"}'}},
    ]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    path = cassette(tmp_path, exchange({"messages": [{"role": "user", "content": "Rome?"}]},
                                       body, MESSAGES))
    found = [e for e in open_transcript(path).events() if isinstance(e, ToolCall)]
    assert [(e.name, json.loads(e.arguments), e.id) for e in found] == [
        ("lookup", {"city": "Rome"}, "toolu_1")]


def test_a_streamed_responses_call_is_read_from_its_completed_event(tmp_path):
    item = {"type": "function_call", "call_id": "fc_1", "name": "lookup",
            "arguments": '{"city": "Lima"}'}
    body = sse({"type": "response.output_item.done", "item": item},
               {"type": "response.completed", "response": {"id": "resp_1",
                                                           "output": [item]}})
    path = cassette(tmp_path, exchange({"input": "Lima?"}, body, RESPONSES))
    assert calls_and_results(path) == [("call", "lookup", 0, 0)]


def test_a_gemini_stream_array_is_joined(tmp_path):
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"text": "Look"}]}}]},
              {"candidates": [{"content": {"role": "model", "parts": [
                  {"function_call": {"name": "lookup", "args": {"city": "Kyiv"}}}]}}]}]
    uri = GEMINI.replace(":generateContent", ":streamGenerateContent")
    path = cassette(tmp_path, exchange({"contents": [{"role": "user",
                                                      "parts": [{"text": "Kyiv?"}]}]},
                                       chunks, uri))
    assert calls_and_results(path) == [("call", "lookup", 0, 0)]


def test_a_response_never_read_and_never_continued_is_named(tmp_path):
    path = cassette(tmp_path, exchange({"messages": COWORKER}, "data: not json at all\n\n",
                                       headers={"Content-Type": ["text/event-stream"]}))
    with pytest.raises(TranscriptError, match=r"interactions\[0\], response body: the "
                                              "response cannot be read"):
        list(open_transcript(path).events())


def test_a_response_not_read_is_told_by_the_next_request(counted, tmp_path):
    looked = call("call_x", "lookup", city="Bern")
    path = cassette(
        tmp_path,
        exchange({"messages": COWORKER}, b"\x00\x01binary"),
        exchange({"messages": [*COWORKER, {"role": "assistant", "tool_calls": [looked]},
                               result("call_x", "Bern: found")]}, chat_reply(content="ok")))
    code, data, ran = counted(path)
    assert code == 0 and ran == [{"tool": "lookup", "city": "Bern"}]
    assert data["summary"]["matched"] == 1


def test_a_repeated_request_answered_with_no_body_is_passed_over(counted, tmp_path):
    """BeeAI's shape: the same request twice, the second answered by an empty 200 body.
    The call of the first answer runs once, unrecorded (the test never answered it)."""
    ask = exchange({"messages": COWORKER}, chat_reply(content=None, tool_calls=[LOOK]))
    again = exchange({"messages": COWORKER}, "")
    code, data, ran = counted(cassette(tmp_path, ask, again))
    assert code == 0, data
    assert ran == [{"tool": "lookup", "city": "Paris"}]
    assert data["summary"] == {"matched": 0, "mismatched": 0, "unrecorded": 1}


def test_an_empty_body_after_a_repeat_keeps_what_the_conversation_waits_for(counted,
                                                                             tmp_path):
    """The empty repeat changes nothing: a later request still answers the first
    response's call (known again by id, and without ids by name and arguments)."""
    bare = call(None, "lookup", city="Paris")
    for made, answered in ((LOOK, "call_c1"), (bare, "call_new")):
        path = cassette(
            tmp_path,
            exchange({"messages": COWORKER}, chat_reply(content=None, tool_calls=[made])),
            exchange({"messages": COWORKER}, ""),
            exchange({"messages": [*COWORKER, {"role": "assistant", "tool_calls": [
                {**made, "id": answered}]}, result(answered, "Paris: found")]},
                chat_reply(content="ok")))
        code, data, ran = counted(path)
        assert code == 0 and len(ran) == 1, data
        assert data["summary"]["matched"] == 1


def test_an_empty_body_that_asks_something_new_is_still_refused(tmp_path):
    """An empty body to a request that is no repeat may have held calls: refused, unless
    a later request tells what it said."""
    path = cassette(
        tmp_path,
        exchange({"messages": COWORKER}, chat_reply(content="Which city?")),
        exchange({"messages": [*COWORKER, {"role": "assistant", "content": "Which city?"},
                               {"role": "user", "content": "Paris"}]}, ""))
    with pytest.raises(TranscriptError, match=r"interactions\[1\], response body: the "
                                              r"response cannot be read \(no body\)"):
        list(open_transcript(path).events())


def test_an_error_status_is_a_turn_without_an_answer(tmp_path):
    path = cassette(
        tmp_path,
        exchange({"messages": COWORKER}, {"error": {"message": "rate limited"}}, status=429),
        exchange({"messages": COWORKER}, chat_reply(content=None, tool_calls=[LOOK])))
    assert calls_and_results(path) == [("call", "lookup", 0, 0)]


# -- what is not a model call, and what is one but cannot be read ------------------------------

def test_interactions_that_are_no_model_call_are_skipped(tmp_path):
    """A GET whose header says gzip over plain text, and a POST elsewhere, change nothing."""
    index = exchange(None, '{"info": {"name": "agentops"}}', "https://pypi.org/pypi/x/json",
                     method="GET", headers={"content-encoding": ["gzip"]})
    telemetry = exchange({"events": [1, 2]}, "ok", "https://telemetry.example.com/v1/t")
    path = cassette(tmp_path, index, telemetry,
                    exchange({"messages": COWORKER}, chat_reply(content=None,
                                                                tool_calls=[LOOK])))
    assert calls_and_results(path) == [("call", "lookup", 0, 0)]


def test_a_body_whose_declared_gzip_is_wrong_is_read_as_it_is(tmp_path):
    reply = exchange({"messages": COWORKER}, chat_reply(content=None, tool_calls=[LOOK]),
                     headers={"content-encoding": ["gzip"]})
    assert calls_and_results(cassette(tmp_path, reply)) == [("call", "lookup", 0, 0)]


def test_a_model_api_request_that_does_not_read_is_named(tmp_path):
    path = cassette(tmp_path, exchange({"prompt": "hi"}, chat_reply(content="x")))
    with pytest.raises(TranscriptError, match=r"interactions\[0\], request body: a request "
                                              "to /v1/chat/completions that does not hold"):
        list(open_transcript(path).events())


def test_an_api_replay_does_not_read_yet_is_refused_by_name(cli, tmp_path):
    stream = "https://bedrock-runtime.us-west-2.amazonaws.com/model/m/converse-stream"
    path = cassette(tmp_path, exchange({"messages": [{"role": "user", "content": [
        {"text": "hi"}]}]}, b"\x00\x00\x01\x0beventstream", stream))
    done = cli("replay", str(path), "-t", "sample_tools.crm:CrmTools")
    assert done.exit_code == 3
    assert "AWS Bedrock ConverseStream" in done.stderr and "no tool calls" not in done.stderr


def test_a_bedrock_agents_invoke_agent_recording_is_refused_by_name(cli, tmp_path):
    """InvokeAgent's action-group calls are trace events of a binary event stream: the
    cassette is refused naming the API, never read as holding no tool call (which
    --allow-empty would pass)."""
    agent = ("https://bedrock-agent-runtime.ap-south-1.amazonaws.com/agents/FQBGXINMYT/"
             "agentAliases/PPY9UTNXJL/sessions/default_session_id/text")
    path = cassette(tmp_path, exchange({"inputText": "Find the sum of 10 and 20",
                                        "enableTrace": True},
                                       b"\x00\x00\x07\xd4\x00\x00\x00K:event-type", agent))
    for options in ((), ("--allow-empty",)):
        done = cli("replay", str(path), "-t", "sample_tools.crm:CrmTools", *options)
        assert done.exit_code == 3, done.stdout
        said = " ".join(done.stderr.split())
        assert "interactions[0]: an AWS Bedrock Agents InvokeAgent recording, which replay " \
               "does not read" in said
        assert "no tool calls" not in said


# -- AWS Bedrock Converse ----------------------------------------------------------------------

BEDROCK = "https://bedrock-runtime.us-west-2.amazonaws.com/model/m/converse"
USE = {"toolUse": {"toolUseId": "tu_1", "name": "lookup", "input": {"city": "Baku"}}}


def test_bedrock_converse_calls_in_a_cassette_run_once(counted, tmp_path):
    ask = {"role": "user", "content": [{"text": "Baku?"}]}
    answer = {"role": "user", "content": [{"toolResult": {
        "toolUseId": "tu_1", "content": [{"text": "Baku: found"}], "status": "success"}}]}
    path = cassette(
        tmp_path,
        exchange({"messages": [ask]}, {"output": {"message": {
            "role": "assistant", "content": [{"text": "Looking."}, USE]}}}, BEDROCK),
        exchange({"messages": [ask, {"role": "assistant", "content": [USE]}, answer]},
                 {"output": {"message": {"role": "assistant",
                                         "content": [{"text": "Found."}]}}}, BEDROCK))
    code, data, ran = counted(path)
    assert code == 0, data
    assert ran == [{"tool": "lookup", "city": "Baku"}]
    assert data["summary"]["matched"] == 1


def test_bedrock_messages_replay_and_update(counted, tmp_path):
    path = tmp_path / "converse.json"
    path.write_text(json.dumps({"messages": [
        {"role": "user", "content": [{"text": "Baku?"}]},
        {"role": "assistant", "content": [USE]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tu_1", "content": [
            {"json": {"old": True}}]}}]}]}), encoding="utf-8")
    code, data, _ = counted(path)
    assert (code, data["format"], data["summary"]["mismatched"]) == (1, "bedrock", 1)
    assert open_transcript(path).write_results({0: ("Baku: found", False)}) == 1
    written = json.loads(path.read_text(encoding="utf-8"))["messages"][2]["content"][0]
    assert written == {"toolResult": {"toolUseId": "tu_1", "content": [
        {"text": "Baku: found"}]}}  # no status recorded, none written for a success
    code, data, _ = counted(path)
    assert (code, data["summary"]["matched"]) == (0, 1)


def test_a_malformed_bedrock_call_is_named(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"role": "assistant", "content": [
        {"toolUse": {"toolUseId": "tu_1", "name": "lookup", "input": [1]}}]}]),
        encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"messages\[0\], content\[0\]: a toolUse "
                                              'block\'s "input" must be an object'):
        list(open_transcript(path).events())


# -- pydantic-ai's parsed_body cassettes --------------------------------------------------------

def test_parsed_body_mappings_are_read(tmp_path):
    ask = {"role": "user", "content": [{"type": "text", "text": "Oslo?"}]}
    use = {"type": "tool_use", "id": "toolu_9", "name": "lookup", "input": {"city": "Oslo"}}
    answer = {"type": "tool_result", "tool_use_id": "toolu_9", "content": "Oslo: found"}
    first = {"request": {"method": "POST", "uri": MESSAGES, "headers": {},
                         "parsed_body": {"messages": [ask]}},
             "response": {"status": {"code": 200}, "headers": {},
                          "parsed_body": {"content": [use], "role": "assistant"}}}
    second = {"request": {"method": "POST", "uri": MESSAGES, "headers": {},
                          "parsed_body": {"messages": [
                              ask, {"role": "assistant", "content": [use]},
                              {"role": "user", "content": [answer]}]}},
              "response": {"status": {"code": 200}, "headers": {},
                           "parsed_body": {"content": [{"type": "text", "text": "ok"}]}}}
    path = cassette(tmp_path, first, second)
    assert calls_and_results(path) == [("call", "lookup", 0, 0), ("result", 0, "Oslo: found")]


def test_a_gzipped_cassette_reads_the_same(tmp_path):
    plain = interleaved(tmp_path)
    packed = tmp_path / "c.yaml.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert calls_and_results(packed) == calls_and_results(plain)


def test_a_body_nested_too_deeply_is_named_not_a_crash(cli, tmp_path):
    deep = "[" * 3000 + '"x"' + "]" * 3000
    body = '{"messages": [{"role": "user", "content": "hi", "extra": ' + deep + "}]}"
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"interactions": [exchange(body, chat_reply(content="ok"))],
                                "version": 1}), encoding="utf-8")
    done = cli("replay", str(path), "-t", "sample_tools.crm:CrmTools")
    assert done.exit_code == 3
    assert "interactions[0], request body" in done.stderr
    assert "JSON nested too deeply" in " ".join(done.stderr.split())
