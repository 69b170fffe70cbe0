"""AWS Bedrock ConverseStream in cassettes: the binary event stream decoded frame by frame
(both CRC32 checksums verified) and its events joined into the Converse message; a damaged
or cut-short stream refused naming the frame, never a traceback."""

from __future__ import annotations

import json
import os
import struct
import zlib
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
from agentforge_cli.replay.transcripts.formats.bedrock_stream import (
    EventStreamError,
    decode_event_stream,
    looks_like_event_stream,
)

REPOSITORY = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("AGENTFORGE_CORPUS") or REPOSITORY.parent / "shared" / "corpus")
CONVERSE_STREAM = (CORPUS / "oi-bedrock-conversestream"
                   / "TestConverseStream.test_invoke_tool_response_message.yaml")
URI = ("https://bedrock-runtime.us-east-1.amazonaws.com/model/"
       "anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream")
ASK = {"role": "user", "content": [{"text": "查一下客户长路"}]}
TOOLS = '''
from agentforge_cli import tool

@tool
def queryCustomer(name: str, limit: int = 1) -> str:
    """Look a customer up."""
    return f"customer:{name},limit:{limit}"
'''


def _header(name: str, value: object) -> bytes:
    """One header as AWS encodes it (the types a test needs: string, bytes, bool, int32)."""
    raw = bytes([len(name)]) + name.encode()
    if isinstance(value, bool):
        return raw + bytes([0 if value else 1])
    if isinstance(value, int):
        return raw + b"\x04" + struct.pack(">i", value)
    if isinstance(value, bytes):
        return raw + b"\x06" + struct.pack(">H", len(value)) + value
    text = str(value).encode()
    return raw + b"\x07" + struct.pack(">H", len(text)) + text


def frame(payload: bytes, **headers: object) -> bytes:
    """An event-stream message: prelude, its CRC, headers, payload, message CRC."""
    encoded = b"".join(_header(name.replace("_", "-"), value) for name, value in headers.items())
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", zlib.crc32(body))


def event(event_type: str, data: dict) -> bytes:
    return frame(json.dumps(data).encode(), **{":event_type": event_type,
                                               ":content_type": "application/json",
                                               ":message_type": "event"})


def tool_use_stream(input_pieces: list[str]) -> bytes:
    """What Bedrock streams for one text block and one toolUse block."""
    return b"".join([
        event("messageStart", {"role": "assistant"}),
        event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Let me look."}}),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolUse": {
            "toolUseId": "tu_1", "name": "queryCustomer"}}}),
        *[event("contentBlockDelta", {"contentBlockIndex": 1,
                                      "delta": {"toolUse": {"input": piece}}})
          for piece in input_pieces],
        event("contentBlockStop", {"contentBlockIndex": 1}),
        event("messageStop", {"stopReason": "tool_use"}),
        event("metadata", {"usage": {"inputTokens": 10, "outputTokens": 5}}),
    ])


def interaction(messages: list, body: bytes) -> dict:
    return {"request": {"body": json.dumps({"messages": messages}), "headers": {},
                        "method": "POST", "uri": URI},
            "response": {"body": {"string": body}, "status": {"code": 200, "message": "OK"},
                         "headers": {"Content-Type": ["application/vnd.amazon.eventstream"]}}}


def cassette(tmp_path: Path, *interactions: dict) -> Path:
    path = tmp_path / "converse.yaml"
    path.write_text(yaml.safe_dump({"interactions": list(interactions), "version": 1},
                                   allow_unicode=True), encoding="utf-8")
    return path


def answered(stream: bytes) -> tuple[dict, ...]:
    """A converse-stream call whose toolUse is answered in the next request."""
    call = {"toolUse": {"toolUseId": "tu_1", "name": "queryCustomer",
                        "input": {"name": "长路", "limit": 5}}}
    result = {"toolResult": {"toolUseId": "tu_1",
                             "content": [{"text": "customer:长路,limit:5"}]}}
    done = event("messageStart", {"role": "assistant"}) + event(
        "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "已查询到。"}})
    return (interaction([ASK], stream),
            interaction([ASK, {"role": "assistant", "content": [{"text": "Let me look."},
                                                                 call]},
                         {"role": "user", "content": [result]}], done))


# -- the decoder ---------------------------------------------------------------------------


def test_the_corpus_stream_decodes_as_botocore_decodes_it():
    """The real ConverseStream body, read by our decoder and by botocore's (the AWS SDK's
    own): the same messages, headers and payloads."""
    from botocore.eventstream import EventStreamBuffer

    body = yaml.safe_load(CONVERSE_STREAM.read_text(encoding="utf-8"))[
        "interactions"][0]["response"]["body"]["string"]
    ours = decode_event_stream(body)
    buffer = EventStreamBuffer()
    buffer.add_data(body)
    theirs = list(buffer)
    assert len(ours) == len(theirs) == 22
    assert [(m.headers, m.payload) for m in ours] == [(m.headers, m.payload) for m in theirs]
    assert ours[0].name == "messageStart" and ours[-1].name == "metadata"
    assert looks_like_event_stream(body)


def test_every_header_type_is_decoded():
    headers = b"".join([
        b"\x01t\x00", b"\x01f\x01", b"\x01b\x02\xff", b"\x01s\x03\x01\x00",
        b"\x01i\x04" + struct.pack(">i", -7), b"\x01l\x05" + struct.pack(">q", 2**40),
        b"\x01y\x06\x00\x02\x00\x01", b"\x01x\x07\x00\x02ok",
        b"\x01m\x08" + struct.pack(">q", 1700000000000), b"\x01u\x09" + bytes(range(16))])
    total = 12 + len(headers) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    data = prelude + headers
    data += struct.pack(">I", zlib.crc32(data))
    (message,) = decode_event_stream(data)
    assert message.headers == {"t": True, "f": False, "b": -1, "s": 256, "i": -7,
                               "l": 2**40, "y": b"\x00\x01", "x": "ok", "m": 1700000000000,
                               "u": "00010203-0405-0607-0809-0a0b0c0d0e0f"}
    assert message.payload == b"" and message.json() is None


@pytest.mark.parametrize(("damage", "said"), [
    (lambda data: data[:-3], "the stream is cut short: message 8 (byte"),
    (lambda data: data[:5], "message 1 (byte 0) has 5 of the 12 bytes of its prelude"),
    (lambda data: data[:-1] + bytes([data[-1] ^ 1]), "message 8 (byte"),
    (lambda data: data[:20] + b"X" + data[21:], "message 1 (byte 0) fails its message checksum"),
    (lambda data: data[:9] + b"\x00" + data[10:], "message 1 (byte 0) fails its prelude checksum"),
])
def test_a_damaged_stream_is_refused_naming_the_frame(damage, said):
    data = tool_use_stream(['{"name": "长路"}'])
    with pytest.raises(EventStreamError, match=said.replace("(", r"\(").replace(")", r"\)")):
        decode_event_stream(damage(data))


def test_a_header_of_an_unknown_type_and_impossible_lengths_are_refused():
    headers = b"\x01q\x0b"
    prelude = struct.pack(">II", 12 + len(headers) + 4, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    data = prelude + headers
    data += struct.pack(">I", zlib.crc32(data))
    with pytest.raises(EventStreamError, match="header 'q' of unknown type 11"):
        decode_event_stream(data)
    prelude = struct.pack(">II", 16, 50)
    prelude += struct.pack(">I", zlib.crc32(prelude))
    with pytest.raises(EventStreamError, match="impossible lengths: 16 bytes in all, 50 of"):
        decode_event_stream(prelude + b"\x00" * 4)


# -- the corpus file and our own samples ---------------------------------------------------


def test_the_corpus_converse_stream_is_read():
    """The call and its result are in the request's history; the streamed answer is text
    (before, the API was refused by name)."""
    events = list(open_transcript(CONVERSE_STREAM).events())
    calls = [e for e in events if isinstance(e, ToolCall)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [(c.name, c.arguments) for c in calls] == [("top_song", '{"sign":"WZPZ"}')]
    assert [(r.content, r.is_error) for r in results] == [("Rock and Roll Hall", None)]
    final = [e.content for e in events if isinstance(e, AssistantMessage)][-1]
    assert final.strip() == ('The most popular song played on radio station WZPZ is '
                             '"Rock and Roll Hall".')


def test_a_streamed_tool_use_is_one_call_replayed_once(cli, write_module, tmp_path):
    """A toolUse whose input streams in pieces is called once, and answered by the next
    request's toolResult."""
    path = cassette(tmp_path, *answered(tool_use_stream(['{"name": "长', '路", "limit"', ': 5}'])))
    events = [e for e in open_transcript(path).events() if isinstance(e, ToolCall | ToolResult)]
    assert [(type(e).__name__, e.id) for e in events] == [("ToolCall", "tu_1"),
                                                          ("ToolResult", "tu_1")]
    assert events[0].arguments == '{"name":"长路","limit":5}'
    tools = write_module("crm_tools", TOOLS)
    result = cli("replay", str(path), "-t", str(tools), "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["summary"] == {"matched": 1, "mismatched": 0,
                                                    "unrecorded": 0}


def test_a_damaged_stream_in_a_cassette_is_refused_by_frame(cli, write_module, tmp_path):
    stream = tool_use_stream(['{"name": "长路"}'])
    damaged = stream[:-1] + bytes([stream[-1] ^ 0xFF])
    path = cassette(tmp_path, interaction([ASK], damaged))
    result = cli("replay", str(path), "-t", str(write_module("crm_tools", TOOLS)))
    assert result.exit_code == 3
    assert "AWS Bedrock ConverseStream event stream that does not decode: message 8" in (
        result.stderr)
    assert "fails its message checksum" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_cut_short_stream_whose_call_a_later_request_repeats_is_read(tmp_path):
    """The next request tells what the damaged response said: nothing is lost."""
    first, second = answered(tool_use_stream(['{"name": "长路", "limit": 5}']))
    first["response"]["body"]["string"] = first["response"]["body"]["string"][:-10]
    path = cassette(tmp_path, first, second)
    assert [type(e).__name__ for e in open_transcript(path).events()
            if isinstance(e, ToolCall | ToolResult)] == ["ToolCall", "ToolResult"]


def test_a_tool_use_input_that_is_no_object_is_refused_by_place(tmp_path):
    path = cassette(tmp_path, interaction([ASK], tool_use_stream(["[1, 2]"])))
    with pytest.raises(TranscriptError, match=r"interactions\[0\].*response body, stream, "
                                              r"content\[1\].*must be an object"):
        list(open_transcript(path).events())


def test_a_stream_ending_in_an_exception_is_a_turn_without_an_answer(tmp_path):
    throttled = event("messageStart", {"role": "assistant"}) + frame(
        b'{"message": "Too many requests"}', **{":exception_type": "throttlingException",
                                                ":content_type": "application/json",
                                                ":message_type": "exception"})
    first, second = answered(tool_use_stream(['{"name": "长路", "limit": 5}']))
    path = cassette(tmp_path, interaction([ASK], throttled), first, second)
    events = [e for e in open_transcript(path).events() if isinstance(e, ToolCall | ToolResult)]
    assert [type(e).__name__ for e in events] == ["ToolCall", "ToolResult"]


def test_the_converse_reader_takes_the_stream_as_bytes_or_decoded_messages():
    """What another recording's envelope (a nock hex body) hands the Converse reader: the
    stream's bytes, or the messages ``decode_event_stream`` gave it; the same answer."""
    from agentforge_cli.replay.transcripts.formats import bedrock
    from agentforge_cli.replay.transcripts.place import WHOLE_FILE

    stream = tool_use_stream(['{"name": "长路"}'])
    answers = [bedrock.http_exchange({"messages": [ASK]}, body, URI, WHOLE_FILE)
               for body in (stream, decode_event_stream(stream))]
    assert answers[0] == answers[1]
    assert answers[0].answer[0].data["content"][1] == {"toolUse": {
        "toolUseId": "tu_1", "name": "queryCustomer", "input": {"name": "长路"}}}
