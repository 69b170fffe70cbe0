"""``replay --update`` never loses a transcript: killed mid-write, the original is intact."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
AGENTFORGE = Path(sys.executable).parent / "agentforge"


def _transcript(path: Path, calls: int, payload: int = 0) -> bytes:
    lines = [json.dumps({"type": "user", "content": "echo everything"})]
    for i in range(calls):
        lines.append(json.dumps({"type": "tool_call", "id": f"call_{i}", "name": "slow_echo",
                                 "arguments": json.dumps({"text": str(i)}),
                                 "x-keep": {"note": "a field replay does not own",
                                            "blob": "z" * payload}}))
        lines.append(json.dumps({"type": "tool_result", "id": f"call_{i}",
                                 "content": f"old:{i}", "is_error": False}))
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(data)
    return data


def _replay(path: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [str(AGENTFORGE), "replay", str(path), "-t", str(HERE / "slow_tools.py"), "--update",
         "--json", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=HERE,
        env={**os.environ, "NO_COLOR": "1"})


def _temporary_files(directory: Path, name: str) -> list[Path]:
    return [p for p in directory.iterdir() if p.name.startswith(f".{name}.")]


_HALF_WRITTEN = """
import sys, time
from agentforge_cli.core.observe.fileio import atomic_writer
with atomic_writer(sys.argv[1]) as stream:
    stream.write("half of the new content")
    stream.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


def test_sigkill_while_a_file_is_half_written_leaves_the_original_intact(tmp_path):
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(b'{"type":"user","content":"keep me"}\n')
    process = subprocess.Popen([sys.executable, "-c", _HALF_WRITTEN, str(path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline() == b"writing\n", process.stderr.read()
    assert _temporary_files(tmp_path, path.name), "the new content goes to a temporary file"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    process.stdout.close()
    process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    assert path.read_bytes() == b'{"type":"user","content":"keep me"}\n'


def test_sigkill_during_replay_update_leaves_old_or_complete_transcript(tmp_path):
    path = tmp_path / "long.jsonl"
    original = _transcript(path, calls=400, payload=50_000)  # ~20 MB to write back
    process = _replay(path)
    deadline = time.monotonic() + 30
    while not _temporary_files(tmp_path, path.name) and process.poll() is None:
        assert time.monotonic() < deadline, "the rewrite never started"
        time.sleep(0.001)
    process.send_signal(signal.SIGKILL)  # whenever it lands: mid-write or after
    process.wait(timeout=10)
    process.stderr.close()
    content = path.read_bytes()
    if content != original:  # the update finished first: it must be whole
        results = [json.loads(line) for line in content.decode().splitlines()
                   if '"tool_result"' in line]
        assert [r["content"] for r in results] == [f"echo:{i}" for i in range(400)]


def test_update_completes_rewrites_results_and_keeps_unowned_fields(tmp_path):
    path = tmp_path / "short.jsonl"
    _transcript(path, calls=3)
    process = _replay(path)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode in (0, 1), stderr.decode()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    results = [r for r in records if r["type"] == "tool_result"]
    assert [r["content"] for r in results] == ["echo:0", "echo:1", "echo:2"]
    calls = [r for r in records if r["type"] == "tool_call"]
    assert all(c["x-keep"] == {"note": "a field replay does not own", "blob": ""}
               for c in calls)
    assert not _temporary_files(tmp_path, path.name)


def test_a_line_over_the_limit_is_refused_with_its_number_without_reading_it_whole(
        tmp_path, monkeypatch):
    from agentforge_cli.replay.transcripts import open_transcript
    from agentforge_cli.replay.transcripts.errors import TranscriptError
    from agentforge_cli.replay.transcripts.files import limits

    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "huge.jsonl"
    call = {"type": "tool_call", "id": "c1", "name": "slow_echo", "arguments": "{}"}
    path.write_text(json.dumps(call) + "\n" + json.dumps({**call, "pad": "x" * 5000}) + "\n")
    with pytest.raises(TranscriptError) as info:
        list(open_transcript(path).events())
    assert str(info.value.where) == "line 2" and "longer than 1000 bytes" in info.value.reason
