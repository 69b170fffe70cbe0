"""nock recordings (a JavaScript test suite's HTTP calls) read as an envelope of model API
calls, as a cassette's interactions are: recordings of OpenAI chat exchanges written in the
shape nock's recorder writes (JSON bodies parsed, a gzipped body as hex chunks), the
corpus's Bedrock ConverseStream recording (a hex event stream) read, and malformed ones
refused naming the family."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import open_transcript

REPOSITORY = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("AGENTFORGE_CORPUS") or REPOSITORY.parent / "shared" / "corpus")
BEDROCK_TOOLS = "tests/corpus/tools/oi2_bedrock.py:BedrockWeatherTools"
BEDROCK = (CORPUS / "oi-js-bedrock-recording"
           / "should-handle-streaming-tool-calls-and-responses.json")
CRM = "sample_tools.crm:CrmTools"
SCOPE = "https://api.openai.com:443"
ASK = {"role": "user", "content": "查一下客户长路"}
CALLED = {"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_1", "type": "function",
    "function": {"name": "queryCustomer", "arguments": '{"name":"长路","limit":5}'}}]}
ANSWERED = {"role": "tool", "tool_call_id": "call_1", "content": "customer:长路,limit:5"}
HEADERS = ["Content-Type", "application/json", "Connection", "keep-alive"]


def completion(message: dict[str, object]) -> dict[str, object]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def recorded(messages: list[object], response: object, **more: object) -> dict[str, object]:
    """One call as ``nock.recorder`` writes it with ``output_objects: true``."""
    return {"scope": SCOPE, "method": "POST", "path": "/v1/chat/completions",
            "body": {"model": "gpt-4o", "messages": messages}, "status": 200,
            "response": response, "rawHeaders": HEADERS, **more}


CALLS = [recorded([ASK], completion(CALLED)),
         recorded([ASK, CALLED, ANSWERED],
                  completion({"role": "assistant", "content": "已查询到客户长路。"}))]


def recording(tmp_path: Path, calls: list[object]) -> Path:
    path = tmp_path / "should-look-up-a-customer.json"
    path.write_text(json.dumps(calls, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_recording_of_a_chat_exchange_replays_each_call_once(cli, tmp_path):
    path = recording(tmp_path, CALLS)
    transcript = open_transcript(path)
    assert transcript.format == "nock"
    assert [type(e).__name__ for e in transcript.events()] == [
        "UserMessage", "ToolCall", "ToolResult", "AssistantMessage"]
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "nock"
    assert data["summary"] == {"matched": 1, "mismatched": 0, "unrecorded": 0}


def test_a_gzipped_response_recorded_as_hex_chunks_is_read(cli, tmp_path):
    body = gzip.compress(json.dumps(completion(CALLED)).encode())
    chunks = [body[:10].hex(), body[10:].hex()]
    first = recorded([ASK], chunks, rawHeaders=[*HEADERS, "Content-Encoding", "gzip"])
    path = recording(tmp_path, [first, CALLS[1]])
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["matched"] == 1


def test_other_hosts_calls_are_skipped(cli, tmp_path):
    telemetry = {"scope": "https://telemetry.example.com:443", "method": "GET",
                 "path": "/ping", "status": 200, "response": "ok"}
    path = recording(tmp_path, [telemetry, *CALLS])
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["matched"] == 1


def test_the_corpus_bedrock_stream_recording_is_read(cli):
    """Its ConverseStream call is a binary event stream, hex-encoded: decoded and read as
    a Converse turn, the call found in it once (it was refused by name before the event
    stream was read). The recording holds no result for it: unrecorded."""
    done = cli("replay", str(BEDROCK), "-t", BEDROCK_TOOLS, "--json")
    assert done.exit_code == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["format"] == "nock"
    assert [(call["name"], call["status"]) for call in document["calls"]] == [
        ("get_weather", "unrecorded")]


def test_an_update_is_refused(cli, tmp_path):
    stale = {**ANSWERED, "content": "stale"}
    path = recording(tmp_path, [CALLS[0], recorded([ASK, CALLED, stale], completion(
        {"role": "assistant", "content": "done"}))])
    done = cli("replay", str(path), "-t", CRM, "--update")
    assert done.exit_code == 3
    assert "--update cannot write into a nock recording" in " ".join(done.stderr.split())


@pytest.mark.parametrize(("change", "where", "reason"), [
    ({"status": "200"}, "[1], status", '"status" must be a number, got "200"'),
    ({"path": None}, "[1], path", 'a recorded call needs a "path" string; found null'),
    ({"response": "zz", "responseIsBinary": True}, "[1], response",
     'a binary body must be hex text (or a list of hex chunks); found "zz"'),
    ({"body": {"model": "gpt-4o", "messages": "hi"}}, "[1], request body",
     "a request to /v1/chat/completions that does not hold OpenAI chat messages")])
def test_a_malformed_recording_is_refused_naming_the_family(cli, tmp_path, change, where,
                                                            reason):
    path = recording(tmp_path, [CALLS[0], {**CALLS[1], **change}])
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 3
    said = " ".join(done.stderr.split())
    assert f"{path}, {where}: {reason}" in said, said
    assert said.endswith("(in a nock recording)")
    assert "Traceback" not in done.stderr


def test_a_truncated_recording_is_refused_before_anything_runs(cli, tmp_path):
    path = recording(tmp_path, CALLS)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    done = cli("replay", str(path), "-t", CRM)
    assert done.exit_code == 3
    assert "invalid JSON" in done.stderr and done.stdout == ""
