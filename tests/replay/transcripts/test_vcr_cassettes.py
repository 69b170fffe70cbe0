"""VCR cassettes (vcrpy / pytest-recording): provider request and response bodies read
into calls, each call replayed once however often later requests repeat it."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
import yaml
from cli_support import CRM, TRANSCRIPTS

from agentforge_cli.replay.transcripts import (
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
    open_transcript,
)

SAMPLES = ["crm_vcr_openai.yaml", "crm_vcr_anthropic.yaml", "crm_vcr_gemini.yaml",
           "crm_vcr_responses.yaml"]
CHAT = "https://api.openai.com/v1/chat/completions"
ASK = {"role": "user", "content": "查一下客户长路"}
CALL = {"id": "call_1", "type": "function",
        "function": {"name": "queryCustomer", "arguments": '{"name":"长路","limit":5}'}}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "customer:长路,limit:5"}


def chat_reply(message: dict) -> dict:
    return {"choices": [{"index": 0, "message": {"role": "assistant", **message}}]}


def interaction(request: object, response: object, uri: str = CHAT, *,
                request_headers: dict | None = None) -> dict:
    body = request if isinstance(request, str | bytes) else json.dumps(request)
    reply = response if isinstance(response, str | bytes) else json.dumps(response)
    return {"request": {"body": body, "headers": request_headers or {}, "method": "POST",
                        "uri": uri},
            "response": {"body": {"string": reply}, "headers": {},
                         "status": {"code": 200, "message": "OK"}}}


def cassette(tmp_path: Path, *interactions: dict, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"interactions": list(interactions), "version": 1},
                                   allow_unicode=True), encoding="utf-8")
    return path


def tool_events(path: Path, fmt: str = "auto") -> list[tuple]:
    return [(type(e).__name__, e.id, getattr(e, "index", getattr(e, "call_index", None)))
            for e in open_transcript(path, fmt).events() if isinstance(e, ToolCall | ToolResult)]


TWO_TURNS = (
    interaction({"messages": [ASK]}, chat_reply({"content": None, "tool_calls": [CALL]})),
    interaction({"messages": [ASK, {"role": "assistant", "tool_calls": [CALL]}, RESULT]},
                chat_reply({"content": "已查询到客户长路。"})),
)


@pytest.mark.parametrize("name", SAMPLES)
def test_every_sample_is_detected_and_matched(cli, name):
    result = cli("replay", str(TRANSCRIPTS / name), "-t", CRM, "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["format"] == "vcr"
    assert data["summary"] == {"matched": 2, "mismatched": 0, "unrecorded": 0}
    assert [call["name"] for call in data["calls"]] == ["queryCustomer", "queryCustomer"]


def test_repeated_history_is_replayed_once(tmp_path):
    path = cassette(tmp_path, *TWO_TURNS)
    assert tool_events(path) == [("ToolCall", "call_1", 0), ("ToolResult", "call_1", 0)]
    users = [e for e in open_transcript(path).events() if isinstance(e, UserMessage)]
    assert [e.content for e in users] == ["查一下客户长路"]


def test_calls_without_ids_are_known_again_by_position(tmp_path):
    url = "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent"
    ask = {"role": "user", "parts": [{"text": "查"}]}
    model = {"role": "model", "parts": [
        {"functionCall": {"name": "queryCustomer", "args": {"name": "长路", "limit": 5}}}]}
    answer = {"role": "user", "parts": [{"functionResponse": {
        "name": "queryCustomer", "response": {"result": "customer:长路,limit:5"}}}]}
    path = cassette(tmp_path,
                    interaction({"contents": [ask]}, {"candidates": [{"content": model}]}, url),
                    interaction({"contents": [ask, model, answer]},
                                {"candidates": [{"content": {"role": "model", "parts": [
                                    {"text": "好"}]}}]}, url))
    assert tool_events(path) == [("ToolCall", None, 0), ("ToolResult", None, 0)]


def test_unanswered_calls_of_the_last_response_are_unrecorded(cli, tmp_path):
    path = cassette(tmp_path, TWO_TURNS[0])
    result = cli("replay", str(path), "-t", CRM, "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["summary"]["unrecorded"] == 1


def test_a_body_that_is_no_tool_calling_request_is_skipped(tmp_path):
    other = interaction("grant_type=client_credentials", "not json", "https://auth/token")
    models = interaction("", {"data": [{"id": "gpt-4o"}]}, "https://api.openai.com/v1/models")
    url = "https://api.openai.com/v1/embeddings"
    texts = interaction({"input": ["长路", "远山"], "model": "text-embedding-3-small"},
                        {"data": []}, url)
    text = interaction({"input": "长路", "model": "text-embedding-3-small"}, {"data": []}, url)
    path = cassette(tmp_path, other, models, texts, text, *TWO_TURNS)
    assert tool_events(path) == [("ToolCall", "call_1", 0), ("ToolResult", "call_1", 0)]


def test_base64_and_gzip_encoded_bodies_are_read(tmp_path):
    first, second = TWO_TURNS
    raw = first["request"]["body"].encode()
    first = {**first, "request": {**first["request"], "body": raw}}  # !!binary in YAML
    zipped = gzip.compress(second["request"]["body"].encode())
    second = {**second, "request": {**second["request"], "body": zipped,
                                    "headers": {"Content-Encoding": ["gzip"]}}}
    path = cassette(tmp_path, first, second)
    assert "!!binary" in path.read_text(encoding="utf-8")
    assert tool_events(path) == [("ToolCall", "call_1", 0), ("ToolResult", "call_1", 0)]


def test_a_gz_cassette_and_a_json_cassette_are_read(tmp_path):
    source = cassette(tmp_path, *TWO_TURNS)
    packed = tmp_path / "c.yaml.gz"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    as_json = tmp_path / "c.json"
    as_json.write_text(json.dumps({"interactions": list(TWO_TURNS), "version": 1}, indent=4))
    for path in (packed, as_json):
        transcript = open_transcript(path)
        assert transcript.format == "vcr"
        assert tool_events(path) == [("ToolCall", "call_1", 0), ("ToolResult", "call_1", 0)]


def test_malformed_yaml_names_file_and_line(cli, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("interactions:\n- request: {body: '{}'\n  response: [\n", encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM)
    assert result.exit_code == 3
    assert f"{path}, line 3: invalid YAML" in result.stderr


def test_malformed_interactions_name_file_and_interaction(cli, tmp_path):
    broken_call = interaction({"messages": [ASK]}, chat_reply({"tool_calls": [{"id": "x"}]}))
    for bad, reason in [("just text", 'a cassette interaction needs a "request" object'),
                        (broken_call, 'a tool call needs a "function" object')]:
        path = cassette(tmp_path, TWO_TURNS[0], bad)
        result = cli("replay", str(path), "-t", CRM)
        assert result.exit_code == 3, result.stdout + result.stderr
        assert f"{path}, line " in result.stderr and "interactions[1]" in result.stderr
        assert reason in result.stderr


def test_a_damaged_gzip_body_is_named(tmp_path):
    first = TWO_TURNS[0]
    bad = {**first, "request": {**first["request"], "body": b"\x1f\x8b\x08garbage",
                                "headers": {"Content-Encoding": ["gzip"]}}}
    with pytest.raises(TranscriptError, match=r"interactions\[0\], request body: .*a "
                                              "compressed body that does not decompress"):
        tool_events(cassette(tmp_path, bad))


def test_a_yaml_file_that_is_no_cassette_is_a_usage_error(cli, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("name: x\nitems: [1, 2]\n", encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM)
    assert result.exit_code == 2
    assert 'not a VCR cassette: expected a mapping with an "interactions" list' in result.stderr


@pytest.mark.parametrize("named", ["claude-code", "openai", "inspect"])
def test_a_yaml_file_that_is_no_cassette_is_said_so_with_a_format_named(cli, tmp_path,
                                                                        named):
    """With a format named, a YAML file of something else is refused as auto-detection
    refuses it (not a cassette), never said to hold cassettes."""
    path = tmp_path / "messages.yaml"
    path.write_text("messages:\n- type: user\n  content: hi\n", encoding="utf-8")
    auto = cli("replay", str(path), "-t", CRM)
    result = cli("replay", str(path), "-t", CRM, "--format", named)
    assert result.exit_code == auto.exit_code == 2
    said = " ".join(result.stderr.split())
    assert " ".join(auto.stderr.split()).removeprefix("error: ") in said
    assert f"nor does --format {named} read it" in said
    assert "holds VCR cassettes" not in said


def test_format_is_selectable_and_other_formats_are_refused_for_a_cassette(cli, tmp_path):
    path = cassette(tmp_path, *TWO_TURNS)
    assert open_transcript(path, "vcr").format == "vcr"
    result = cli("replay", str(path), "-t", CRM, "--format", "openai")
    assert result.exit_code == 2
    assert "read it with --format vcr" in result.stderr
    result = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM, "--format", "vcr")
    assert result.exit_code == 2


def test_update_is_refused_with_a_clear_message(cli, tmp_path):
    path = cassette(tmp_path, TWO_TURNS[0])
    before = path.read_bytes()
    result = cli("replay", str(path), "-t", CRM, "--update")
    assert result.exit_code == 3
    assert "--update cannot write into a VCR cassette" in result.stderr
    assert path.read_bytes() == before


def test_a_folder_with_a_cassette_and_a_jsonl_replays_in_one_command(cli, tmp_path):
    folder = tmp_path / "recorded"
    folder.mkdir()
    shutil.copy(TRANSCRIPTS / "crm_vcr_openai.yaml", folder / "a.yml")
    shutil.copy(TRANSCRIPTS / "crm.jsonl", folder / "b.jsonl")
    packed = folder / "c.yaml.gz"
    packed.write_bytes(gzip.compress((TRANSCRIPTS / "crm_vcr_gemini.yaml").read_bytes()))
    result = cli("replay", str(folder), "-t", CRM, "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    files = json.loads(result.stdout)["files"]
    assert [(Path(f["transcript"]).name, f["format"]) for f in files] == [
        ("a.yml", "vcr"), ("b.jsonl", "agentforge"), ("c.yaml.gz", "vcr")]
    assert all(f["summary"]["mismatched"] == 0 for f in files)


def test_yaml_is_streamed_one_interaction_at_a_time(tmp_path):
    path = cassette(tmp_path, TWO_TURNS[0], "just text")
    events = open_transcript(path).events()
    assert isinstance(next(events), UserMessage)  # read before the bad interaction
    with pytest.raises(TranscriptError, match=r"interactions\[1\]"):
        list(events)

