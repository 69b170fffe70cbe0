"""Hostile transcript files stay bounded: compressed bodies and cassettes that inflate to
gigabytes, YAML scalars as long, and millions of blank lines before the first record.
The files are built here, small on disk; the memory of a replay reading them is measured
in a child process."""

from __future__ import annotations

import gzip
import json
import os
import resource
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
import yaml
from cli_support import CRM, ROOT

from agentforge_cli.replay.transcripts import TranscriptError, open_transcript
from agentforge_cli.replay.transcripts.files.cassettes import body_value
from agentforge_cli.replay.transcripts.reading.exchanges import Unreadable

CHAT = "https://api.openai.com/v1/chat/completions"
ASK = {"role": "user", "content": "hi"}
MIB = 1 << 20


def gzip_of(head: bytes, filler: bytes, mebibytes: int, tail: bytes) -> bytes:
    """A gzip stream of ``head``, ``mebibytes`` MiB of ``filler`` and ``tail``, built in
    well under a second: one MiB is deflated once, flushed so that it refers to nothing
    before it, and its bytes repeated."""
    block = filler * (MIB // len(filler))
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    start = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    middle = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    end = packer.compress(tail) + packer.flush()
    crc = zlib.crc32(head)
    for _ in range(mebibytes):
        crc = zlib.crc32(block, crc)
    size = len(head) + mebibytes * MIB + len(tail)
    return b"".join([b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff", start,
                     middle * mebibytes, end, struct.pack("<II", crc, size & 0xFFFFFFFF)])


def bomb_cassette(tmp_path: Path, *, side: str, mebibytes: int = 1024) -> Path:
    """A cassette whose request or response body inflates to ``mebibytes`` MiB (1.5 MB
    for 1 GiB)."""
    body = gzip_of(b'{"messages": [], "x": "', b"a", mebibytes, b'"}')
    request = {"body": json.dumps({"messages": [ASK]}), "headers": {}, "method": "POST",
               "uri": CHAT}
    response = {"body": {"string": json.dumps({"choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hello"}}]})},
        "headers": {}, "status": {"code": 200, "message": "OK"}}
    packed = {"Content-Encoding": ["gzip"]}
    if side == "request":
        request = {**request, "body": body, "headers": packed}
    else:
        response = {**response, "body": {"string": body}, "headers": packed}
    path = tmp_path / f"{side}_bomb.yaml"
    path.write_text(yaml.safe_dump({"interactions": [{"request": request,
                                                      "response": response}]}))
    return path


def scalar_cassette(tmp_path: Path) -> Path:
    """A 2 MB .yaml.gz whose first interaction holds a 2 GiB scalar."""
    path = tmp_path / "scalar.yaml.gz"
    path.write_bytes(gzip_of(b"interactions:\n- request:\n    body: '", b"x", 2048,
                             b"'\n    method: POST\n    uri: " + CHAT.encode() + b"\n"))
    return path


def replay_in_child(path: Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """``agentforge replay PATH`` in a child process, its address space capped at 3 GiB
    (a reader that inflates everything fails there instead of taking the machine): its
    result and its own peak memory in MiB, which it writes last on its standard error
    (``RUSAGE_CHILDREN`` would be the largest child any earlier test of this worker
    waited for)."""
    script = ("import atexit, resource, sys; from agentforge_cli.cli.app import main; "
              "atexit.register(lambda: sys.stderr.write('\\npeak-kib %d\\n' % "
              "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)); "
              "sys.argv = ['agentforge', *sys.argv[1:]]; main()")

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run([sys.executable, "-c", script, "replay", str(path), "-t", CRM],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_COLOR": "1"}, preexec_fn=cap)
    *_, last = done.stderr.split("\npeak-kib ")
    return done, int(last) // 1024


def test_a_gzip_body_that_inflates_to_a_gibibyte_is_refused_in_bounded_memory(tmp_path):
    path = bomb_cassette(tmp_path, side="response")
    assert path.stat().st_size < 2 * MIB
    done, peak = replay_in_child(path)
    assert done.returncode == 3, done.stderr
    assert (f"{path}, line 2, interactions[0], response body: the response cannot be read "
            "(a gzip body that inflates to more than 67108864 bytes (the limit))"
            ) in done.stderr
    assert peak < 500, f"{peak} MiB"


def test_a_bomb_in_a_request_body_names_the_interaction(tmp_path, monkeypatch):
    from agentforge_cli.replay.transcripts.files import cassettes

    monkeypatch.setattr(cassettes, "MAX_LINE_BYTES", 100_000)
    path = bomb_cassette(tmp_path, side="request", mebibytes=1)
    with pytest.raises(TranscriptError, match=r"interactions\[0\], request body: .*a gzip "
                                              "body that inflates to more than 100000 bytes"):
        list(open_transcript(path).events())


@pytest.mark.parametrize(("encoding", "pack"), [("gzip", gzip.compress),
                                                ("deflate", zlib.compress)])
def test_a_body_is_inflated_up_to_its_limit_and_no_further(encoding, pack, monkeypatch):
    from agentforge_cli.replay.transcripts.files import cassettes

    monkeypatch.setattr(cassettes, "MAX_LINE_BYTES", 1000)
    found = body_value({"body": pack(b"{}" + b" " * 999),
                        "headers": {"Content-Encoding": [encoding]}})
    assert isinstance(found, Unreadable)
    assert found.found == f"a {encoding} body that inflates to more than 1000 bytes " \
                          "(the limit)"
    at_limit = {"body": pack(b"{}" + b" " * 998), "headers": {"Content-Encoding": [encoding]}}
    assert body_value(at_limit) == {}
    truncated = {"body": pack(b"{}" + b" " * 998)[:-12],
                 "headers": {"Content-Encoding": [encoding]}}
    assert "does not decompress" in body_value(truncated).found


@pytest.mark.parametrize("encoding", ["br", "zstd"])
def test_bodies_replay_does_not_decompress_are_named(encoding):
    found = body_value({"body": b"\x8b\x00\x80binary", "headers": {
        "Content-Encoding": [encoding]}})
    assert isinstance(found, Unreadable) and encoding in found.found


def test_a_gibibyte_yaml_scalar_in_a_small_gz_is_refused_in_bounded_memory(tmp_path):
    path = scalar_cassette(tmp_path)
    assert path.stat().st_size < 3 * MIB
    done, peak = replay_in_child(path)
    assert done.returncode == 3, done.stderr
    assert (f"{path}, line 2, interactions[0]: more than 67108864 bytes of YAML (the "
            "limit of an interaction); nothing more of it was read") in done.stderr
    assert peak < 500, f"{peak} MiB"


def test_a_cassette_over_the_transcript_limit_is_refused(tmp_path, monkeypatch):
    from agentforge_cli.replay.transcripts.files import cassettes

    interaction = {"request": {"body": "{}", "method": "GET", "uri": "http://x/"}}
    path = tmp_path / "many.yaml.gz"
    path.write_bytes(gzip.compress(yaml.safe_dump(
        {"interactions": [{**interaction, "n": n} for n in range(2000)]}).encode()))
    monkeypatch.setattr(cassettes, "MAX_DOCUMENT_BYTES", 20_000)
    with pytest.raises(TranscriptError, match="the cassette is more than the 20000 bytes a "
                                              r"cassette may have \(decompressed\)"):
        list(open_transcript(path).events())
    json_path = tmp_path / "many.json"
    json_path.write_text(json.dumps({"interactions": [{**interaction, "n": n}
                                                      for n in range(2000)]}))
    with pytest.raises(TranscriptError, match="more than the 20000 bytes a cassette"):
        list(open_transcript(json_path).events())


def test_an_interaction_under_its_limit_is_read_whatever_follows(tmp_path, monkeypatch):
    from agentforge_cli.replay.transcripts.files import cassettes, limits

    monkeypatch.setattr(cassettes, "MAX_LINE_BYTES", 4000)
    monkeypatch.setattr(cassettes, "_READ_AHEAD", 100_000)
    first = {"request": {"body": json.dumps({"messages": [ASK]}), "method": "POST",
                         "uri": CHAT}}
    big = {"request": {"body": "x" * 300_000, "method": "GET", "uri": "http://x/"}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"interactions": [first, first, big]}))
    events = open_transcript(path).events()
    with pytest.raises(TranscriptError, match=r"line \d+, interactions\[2\]: more than "
                                              "4000 bytes of YAML"):
        list(events)
    assert limits.MAX_LINE_BYTES == 64 * MIB  # the limit is the JSON message's


ANTHROPIC_CALL = [
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                                       "name": "queryCustomer", "input": {"name": "长路"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                  "content": "customer:长路,limit:10"}]},
]


def test_blank_lines_do_not_hide_the_records_after_them(tmp_path):
    path = tmp_path / "blank.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b"\n" * (64 * MIB))
        out.write(b"".join(json.dumps(r).encode() + b"\n" for r in [ASK, *ANTHROPIC_CALL]))
    assert path.stat().st_size < 100_000
    started = time.monotonic()
    transcript = open_transcript(path)
    events = list(transcript.events())
    assert transcript.format == "anthropic"
    assert [type(e).__name__ for e in events] == ["UserMessage", "ToolCall", "ToolResult"]
    assert str(events[1].where).startswith(f"line {64 * MIB + 2}")
    assert time.monotonic() - started < 60  # minutes before, a few seconds now


def test_text_messages_do_not_fill_a_detection_window(tmp_path):
    path = tmp_path / "late.jsonl"
    texts = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"}
             for i in range(5000)]
    path.write_text("".join(json.dumps(r) + "\n" for r in [*texts, *ANTHROPIC_CALL]),
                    encoding="utf-8")
    transcript = open_transcript(path)
    assert transcript.format == "anthropic"
    calls = [e for e in transcript.events() if type(e).__name__ == "ToolCall"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("queryCustomer", {"name": "长路"})]
    document = tmp_path / "late.json"
    document.write_text(json.dumps([*texts, *ANTHROPIC_CALL]), encoding="utf-8")
    assert open_transcript(document).format == "anthropic"


def test_read_progress_counts_every_line_of_a_run_of_blank_lines(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(ASK) + "\n" + "\n" * 1000 + " \t\n" + json.dumps(ASK) + "\n",
                    encoding="utf-8")
    transcript = open_transcript(path)
    assert len(list(transcript.events())) == 2
    assert transcript.progress.records == transcript.count_records() == 1003
