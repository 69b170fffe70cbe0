"""The transcript readers and writers (core, standard library only)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from cli_support import TRANSCRIPTS

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.errors import AgentForgeError
from agentforge_cli.replay.transcripts import (
    AssistantMessage,
    Claim,
    ToolCall,
    ToolResult,
    TranscriptError,
    TranscriptFormat,
    UserMessage,
    open_transcript,
    registry,
)
from agentforge_cli.replay.transcripts.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.place import Place


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(*records: object) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def kinds(transcript) -> list[str]:
    return [type(e).__name__ for e in transcript.events()]


CRM_EVENTS = ["UserMessage", "ToolCall", "ToolResult", "AssistantMessage"]


@pytest.mark.parametrize(("name", "fmt", "container", "is_error"), [
    ("crm.jsonl", "agentforge", "jsonl", False),
    ("crm_openai.json", "openai", "json", None),
    ("crm_anthropic.json", "anthropic", "json", False),
    ("crm_responses.json", "openai-responses", "json", None),
    ("crm_gemini.json", "gemini", "json", False),
])
def test_sample_transcripts_read_into_the_same_events(name, fmt, container, is_error):
    transcript = open_transcript(TRANSCRIPTS / name)
    assert (transcript.format, transcript.container) == (fmt, container)
    events = list(transcript.events())
    assert [type(e).__name__ for e in events] == CRM_EVENTS
    call, result = events[1], events[2]
    assert (call.index, call.id, call.name) == (0, "call_1", "queryCustomer")
    assert json.loads(call.arguments) == {"name": "长路", "limit": 5}
    assert (result.call_index, result.content, result.is_error) == (
        0, "customer:长路,limit:5", is_error)
    assert events[0] == UserMessage(content='查一下客户"长路"的信息', where=events[0].where)


def test_transcript_error_is_an_agentforge_error():
    assert issubclass(TranscriptError, AgentForgeError)


def test_bare_function_call_line_is_an_unanswered_call(tmp_path):
    path = write(tmp_path, "t.jsonl", jsonl(
        {"name": "queryCustomer", "arguments": '{"name":"长路","limit":5}'}))
    (event,) = open_transcript(path).events()
    assert isinstance(event, ToolCall)
    assert event.id is None
    assert event.raw == {"name": "queryCustomer", "arguments": '{"name":"长路","limit":5}'}


def test_results_without_ids_answer_the_oldest_waiting_anonymous_call(tmp_path):
    path = write(tmp_path, "t.jsonl", jsonl(
        {"type": "tool_call", "id": "a", "name": "x", "arguments": "{}"},
        {"name": "y", "arguments": "{}"},
        {"type": "tool_result", "content": "for y"},
        {"type": "tool_result", "id": "a", "content": "for x"}))
    results = [e for e in open_transcript(path).events() if isinstance(e, ToolResult)]
    assert [(r.call_index, r.content) for r in results] == [(1, "for y"), (0, "for x")]


def test_openai_jsonl_of_messages_and_legacy_function_call(tmp_path):
    path = write(tmp_path, "t.jsonl", jsonl(
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": "checking", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "queryCustomer", "arguments": '{"limit":1}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "r1"},
        {"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "function", "name": "f", "content": "r2"}))
    transcript = open_transcript(path)
    assert (transcript.format, transcript.container) == ("openai", "jsonl")
    events = list(transcript.events())
    assert kinds(transcript) == ["SystemPrompt", "UserMessage", "AssistantMessage", "ToolCall",
                                 "ToolResult", "ToolCall", "ToolResult"]
    assert events[0].content == "be brief"
    assert events[1].content == "hi"
    assert events[-1].call_index == 1


def test_anthropic_blocks(tmp_path):
    path = write(tmp_path, "t.json", json.dumps({"system": "s", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "plan", "signature": "x"},
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "t1", "name": "queryCustomer",
             "input": {"name": "长路", "limit": 5}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
             "content": [{"type": "text", "text": "bad"}]}]},
    ]}, ensure_ascii=False))
    events = list(open_transcript(path).events())
    assert (type(events[0]).__name__, events[0].content) == ("SystemPrompt", "s")
    assert isinstance(events[2], AssistantMessage) and events[2].thinking
    call, result = events[4], events[5]
    assert call.arguments == '{"name":"长路","limit":5}'
    assert (result.content, result.is_error) == ("bad", True)


def test_jsonl_is_streamed(tmp_path):
    path = write(tmp_path, "t.jsonl", jsonl({"type": "user", "content": "a"}) + "{not json\n")
    events = open_transcript(path).events()
    assert next(events) == UserMessage(content="a", where=Place(1))
    with pytest.raises(TranscriptError) as info:
        next(events)
    assert str(info.value.where) == "line 2"


@pytest.mark.parametrize(("text", "where", "reason"), [
    ('{"type":"user","content":"a"}\n[1, 2]\n', "line 2", "expected a JSON object"),
    ('{"type":"user","content":"a"}\n{"type":"tool_calls","name":"x"}\n', "line 2",
     'unknown "type"'),
    ('{"type":"tool_call","id":"a","arguments":"{}"}\n', "line 1", '"name"'),
    ('{"type":"tool_result","id":"nope","content":"x"}\n', "line 1", "'nope'"),
    ('{"type":"tool_call","id":"a","name":"x","arguments":5}\n', "line 1", "arguments"),
    ('{"type":"tool_result","content":"x"}\n', "line 1", "no call is waiting"),
    ('{"type":"tool_call","id":"a","name":"x"}\n{"type":"tool_result","id":"a",'
     '"content":"x","is_error":"no"}\n', "line 2", "is_error"),
    ('{"type":"user","content":"a"}\n{"type":"user","content":"b",}\n', "line 2",
     "invalid JSON"),
])
def test_malformed_agentforge_lines(tmp_path, text, where, reason):
    path = write(tmp_path, "bad.jsonl", text)
    with pytest.raises(TranscriptError) as info:
        list(open_transcript(path, "agentforge").events())
    assert str(info.value.where) == where
    assert reason in info.value.reason
    assert str(path) in str(info.value)


@pytest.mark.parametrize(("document", "fmt", "where"), [
    ([{"role": "user", "content": "a"}, {"content": "b"}], "openai", "messages[1]"),
    ([{"role": "assistant", "tool_calls": [{"id": "a"}]}], "openai",
     "messages[0], tool_calls[0]"),
    ([{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "x",
                                         "input": [1]}]}], "anthropic",
     "messages[0], content[0]"),
])
def test_malformed_messages_name_the_message(tmp_path, document, fmt, where):
    path = write(tmp_path, "bad.json", json.dumps(document))
    with pytest.raises(TranscriptError) as info:
        list(open_transcript(path, fmt).events())
    assert str(info.value.where) == where


@pytest.mark.parametrize(("text", "reason"), [
    ("", "empty"),
    ("\n\n", "empty"),
    ('{"role": "user",\n "content": ', "invalid JSON"),
    ('{"foo": 1}\n', "not a known transcript format"),
    ("42\n", "not a known transcript format"),
])
def test_unreadable_files(tmp_path, text, reason):
    path = write(tmp_path, "t.json", text)
    with pytest.raises(TranscriptError) as info:
        list(open_transcript(path).events())
    assert reason in str(info.value)


def test_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type":"user","content":"a"}\n{"type":"user","content":"\xff"}\n')
    with pytest.raises(TranscriptError) as info:
        list(open_transcript(path).events())
    assert str(info.value.where) == "line 2"


def test_missing_file_and_bad_format_name(tmp_path):
    with pytest.raises(TranscriptError, match="no such file"):
        open_transcript(tmp_path / "none.jsonl")
    with pytest.raises(ValueError, match="unknown transcript format"):
        open_transcript(TRANSCRIPTS / "crm.jsonl", "yaml")


# -- writing results back -------------------------------------------------------------------


def test_agentforge_rewrite_preserves_fields_and_inserts_results(tmp_path):
    path = write(tmp_path, "t.jsonl",
                 '{"type":"tool_call","id":"a","name":"x","arguments":"{}","meta":{"k":1}}\n'
                 '\n'
                 '{"note":"r", "type":"tool_result","id":"a","content":"old","is_error":false}\n'
                 '{"name":"y","arguments":"{}"}')
    transcript = open_transcript(path)
    assert transcript.write_results({0: ("new", True), 1: ("added", False)}) == 2
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[0] == '{"type":"tool_call","id":"a","name":"x","arguments":"{}","meta":{"k":1}}'
    assert lines[1] == ""
    assert json.loads(lines[2]) == {"note": "r", "type": "tool_result", "id": "a",
                                    "content": "new", "is_error": True}
    assert list(json.loads(lines[2])) == ["note", "type", "id", "content", "is_error"]
    assert lines[3] == '{"name":"y","arguments":"{}"}'
    assert json.loads(lines[4]) == {"type": "tool_result", "content": "added",
                                    "is_error": False}
    results = [e for e in open_transcript(path).events() if isinstance(e, ToolResult)]
    assert [(r.call_index, r.content) for r in results] == [(0, "new"), (1, "added")]


def test_openai_rewrite_inserts_after_existing_tool_messages(tmp_path):
    document = {"model": "m", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "x", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": [{"type": "text", "text": "old"}]},
        {"role": "assistant", "content": "done"}]}
    path = write(tmp_path, "t.json", json.dumps(document))
    open_transcript(path).write_results({0: ("A", False), 1: ("B", True)})
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["model"] == "m"
    messages = data["messages"]
    assert messages[1] == {"role": "tool", "tool_call_id": "a",
                           "content": [{"type": "text", "text": "A"}]}
    assert messages[2] == {"role": "tool", "tool_call_id": "b", "content": "B"}
    assert messages[3] == {"role": "assistant", "content": "done"}


def test_anthropic_rewrite_merges_into_the_next_user_message(tmp_path):
    path = write(tmp_path, "t.json", json.dumps([
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "x", "input": {}},
            {"type": "tool_use", "id": "b", "name": "x", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "old", "extra": 1},
            {"type": "text", "text": "more?"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "x",
                                           "input": {}}]},
    ]))
    open_transcript(path).write_results({0: ("A", False), 1: ("B", True), 2: ("C", False)})
    messages = json.loads(path.read_text(encoding="utf-8"))
    assert messages[1]["content"] == [
        {"type": "tool_result", "tool_use_id": "a", "content": "A", "extra": 1},
        {"type": "tool_result", "tool_use_id": "b", "content": "B", "is_error": True},
        {"type": "text", "text": "more?"}]
    assert messages[3] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "c", "content": "C"}]}
    assert [e.content for e in open_transcript(path).events()
            if isinstance(e, ToolResult)] == ["A", "B", "C"]


def test_rewrite_is_atomic(tmp_path, monkeypatch):
    path = write(tmp_path, "t.jsonl", (TRANSCRIPTS / "crm.jsonl").read_text(encoding="utf-8"))
    before = path.read_bytes()
    transcript = open_transcript(path)

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        transcript.write_results({0: ("changed", False)})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]


def test_rewrite_keeps_the_file_mode(tmp_path):
    path = write(tmp_path, "t.jsonl", (TRANSCRIPTS / "crm.jsonl").read_text(encoding="utf-8"))
    path.chmod(0o640)
    open_transcript(path).write_results({0: ("changed", False)})
    assert path.stat().st_mode & 0o777 == 0o640


def test_rewrite_escapes_lone_surrogates(tmp_path):
    path = write(tmp_path, "t.jsonl", jsonl({"name": "x", "arguments": "{}"}))
    open_transcript(path).write_results({0: ("bad\udcff", False)})
    path.read_bytes().decode("utf-8")  # still valid UTF-8
    (_, result) = open_transcript(path).events()
    assert result.content == "bad\udcff"


# -- the format registry ---------------------------------------------------------------------


def test_every_registered_format_is_a_declared_format():
    formats = registry.transcript_formats()
    assert formats, "no format registered"
    for fmt in formats:
        assert isinstance(fmt, TranscriptFormat), fmt
        assert fmt.name.islower() and fmt.name.replace("-", "_").isidentifier() and fmt.title
        for data in (None, 42, "text", [], {}, {"role": 1}, {"content": [1, None]}):
            assert isinstance(fmt.claims(data), Claim), (fmt.name, data)
            assert isinstance(fmt.claim(data, formats), Claim), (fmt.name, data)
    assert len(set(registry.format_names())) == len(formats)
    with pytest.raises(TypeError, match="TranscriptFormat value"):
        registry.TRANSCRIPT_FORMATS.register(object())  # the check does check something


def test_registry_lookups(monkeypatch):
    names = registry.format_names()
    # declared order, but a format is asked before the formats its `before` names
    assert [name for name in names if name in ("agentforge", "tau2", "openai", "anthropic")] == [
        "agentforge", "tau2", "openai", "anthropic"]
    assert names.index("gemini-cli") < names.index("agentforge")
    assert names.index("swe-agent") < names.index("openai")
    assert registry.find_format("openai").name == "openai"
    assert registry.find_format("yaml") is None
    titles = [SimpleNamespace(name=name, title=name.upper()) for name in "abc"]
    for count, joined in [(1, "A"), (2, "A or B"), (3, "A, B or C")]:
        monkeypatch.setattr(registry, "TRANSCRIPT_FORMATS",
                            ExtensionPoint("transcript format", "none", titles[:count]))
        assert registry.join_titles() == joined


def test_plain_text_chat_is_read_as_openai(tmp_path):
    path = write(tmp_path, "t.json", json.dumps([{"role": "system", "content": "s"},
                                                 {"role": "user", "content": "hi"},
                                                 {"role": "assistant", "content": "yo"}]))
    assert open_transcript(path).format == "openai"


def test_a_later_record_a_format_owns_decides_over_shared_ones(tmp_path):
    path = write(tmp_path, "t.jsonl", jsonl(
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "x",
                                           "input": {}}]}))
    assert open_transcript(path).format == "anthropic"


def test_a_record_both_chat_formats_own_goes_to_the_earlier_one(tmp_path):
    path = write(tmp_path, "t.json", json.dumps([
        {"role": "assistant", "tool_calls": [],
         "content": [{"type": "tool_use", "id": "a", "name": "x", "input": {}}]}]))
    transcript = open_transcript(path)
    assert transcript.format == "openai"
    with pytest.raises(TranscriptError, match="use --format anthropic"):
        list(transcript.events())


def test_an_unknown_record_names_every_registered_format(tmp_path):
    path = write(tmp_path, "t.jsonl", jsonl({"foo": 1}))
    with pytest.raises(TranscriptError) as info:
        open_transcript(path)
    assert str(info.value.where) == "line 1"
    assert all(fmt.title in info.value.reason for fmt in registry.transcript_formats())


# -- positive detection: a record is a format's only when it has that format's fields ----------

WRAPPED_TURNS = [  # a chat log wrapping each turn in "message", no session ids
    {"type": "user", "message": {"role": "user", "content": "look up 长路"}, "turn": "u1"},
    {"type": "assistant", "turn": "u2", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "queryCustomer",
         "input": {"name": "长路", "limit": 5}}]}},
]
GEMINI_CONTENTS = [
    {"role": "user", "parts": [{"text": "look up 长路"}]},
    {"role": "model", "parts": [{"functionCall": {"name": "queryCustomer",
                                                  "args": {"name": "长路", "limit": 5}}}]},
    {"role": "user", "parts": [{"functionResponse": {"name": "queryCustomer",
                                                     "response": {"result": "ok"}}}]},
]
UNKNOWN_TURNS = [{"speaker": "user", "says": "look up 长路"}]  # a format nobody reads


@pytest.mark.parametrize(("name", "text", "where"), [
    ("session.jsonl", jsonl(*WRAPPED_TURNS), "line 1"),
    ("session.jsonl", jsonl({"type": "system", "content": "started"}, *WRAPPED_TURNS),
     "line 2"),
    ("turns.json", json.dumps(UNKNOWN_TURNS), "messages[0]"),
    ("turns.jsonl", jsonl(*UNKNOWN_TURNS), "line 1"),
    ("turns.json", json.dumps({"turns": UNKNOWN_TURNS}), "line 1"),
    ("turns.json", json.dumps({"turns": UNKNOWN_TURNS}, indent=2), ""),
    ("gemini.json", json.dumps({"contents": WRAPPED_TURNS}), "contents[0]"),
])
def test_a_file_no_format_reads_is_not_a_known_format(tmp_path, name, text, where):
    path = write(tmp_path, name, text)
    with pytest.raises(TranscriptFormatError) as info:
        open_transcript(path)
    assert str(info.value.where) == where
    assert "not a known transcript format" in info.value.reason
    assert all(fmt.title in info.value.reason for fmt in registry.transcript_formats())
    assert "unknown role" not in str(info.value)


def test_the_first_record_that_does_not_fit_is_shown_by_its_keys(tmp_path):
    path = write(tmp_path, "session.jsonl", jsonl(*WRAPPED_TURNS))
    with pytest.raises(TranscriptFormatError) as info:
        open_transcript(path)
    assert "keys: type, message, turn" in info.value.reason


@pytest.mark.parametrize(("fmt", "text", "where", "reason"), [
    ("agentforge", jsonl({"type": "user", "content": "a"}, *WRAPPED_TURNS), "line 2",
     'a "user" line needs "content"'),
    ("agentforge", jsonl({"type": "assistant", "message": {"content": "b"}}), "line 1",
     'found keys: type, message'),
    ("agentforge", jsonl({"name": "x"}), "line 1", '"arguments"'),
    ("openai", json.dumps(GEMINI_CONTENTS), "messages[0]", '"parts"'),
    ("openai", json.dumps([{"role": "assistant"}]), "messages[0]", 'needs "content"'),
    ("anthropic", json.dumps([{"role": "user", "message": {"content": "x"}}]), "messages[0]",
     'needs "content"'),
])
def test_a_reader_never_takes_misplaced_content_for_an_empty_turn(tmp_path, fmt, text, where,
                                                                   reason):
    path = write(tmp_path, "t.json" if text.startswith("[") else "t.jsonl", text)
    with pytest.raises(TranscriptError) as info:
        list(open_transcript(path, fmt).events())
    assert str(info.value.where) == where
    assert reason in info.value.reason


@pytest.mark.parametrize("data", [
    {"type": "user", "message": {"content": "x"}},          # content not where it is read
    {"type": "tool_result", "id": "a"},                      # a result needs content
    {"name": "x"},                                           # a bare call needs arguments
    {"role": "model", "text": "x"},                          # Gemini keeps text in parts
    {"type": "function_call", "arguments": "{}"},            # a Responses call needs a name
    {"type": "message", "role": "user"},                     # ... a message content
    {"role": "user"},
])
def test_no_format_claims_a_record_without_its_fields(data):
    formats = registry.transcript_formats()
    assert [fmt.claim(data, formats) for fmt in formats] == [Claim.NO] * len(formats)


@pytest.mark.parametrize("data", GEMINI_CONTENTS)
def test_gemini_contents_are_claimed_by_gemini_alone(data):
    formats = registry.transcript_formats()
    claims = {fmt.name: fmt.claim(data, formats) for fmt in formats}
    assert claims.pop("gemini") == Claim.OWN
    assert set(claims.values()) == {Claim.NO}


@pytest.mark.parametrize(("record", "family"), [
    ({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
      "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}]},
     "OpenAI chat completion responses"),
    ({"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}}]},
     "Gemini generateContent responses"),
])
def test_a_log_of_model_responses_says_what_it_is_and_what_replay_needs(tmp_path, record,
                                                                          family):
    path = write(tmp_path, "responses.jsonl", jsonl(record, record))
    with pytest.raises(TranscriptFormatError) as info:
        open_transcript(path)
    assert f"this looks like {family}" in info.value.reason
    assert "record the HTTP calls as a VCR cassette" in info.value.reason
