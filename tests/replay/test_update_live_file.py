"""``replay --update`` on a transcript another program still writes to, or that belongs to
another user: nothing appended is lost (the update is refused, exit 2) and the file keeps
its owner and mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cli_support import ROOT

AGENTFORGE = Path(sys.executable).parent / "agentforge"

TOOLS = '''\
import os

from agentforge_cli import tool


@tool
def echo(text: str) -> str:
    """Echo text; with LIVE_FILE set, append a call to that file first, as an application
    recording into it would."""
    live = os.environ.get("LIVE_FILE")
    if live:
        with open(live, "a") as stream:
            stream.write('{"type": "user", "content": "appended"}\\n')
    return f"echo:{text}"
'''


def transcript(path: Path, calls: int) -> None:
    lines = []
    for i in range(calls):
        lines.append(json.dumps({"type": "tool_call", "id": f"c{i}", "name": "echo",
                                 "arguments": json.dumps({"text": str(i)})}))
        lines.append(json.dumps({"type": "tool_result", "id": f"c{i}",
                                 "content": f"old:{i}", "is_error": False}))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    path = tmp_path / "echo_tools.py"
    path.write_text(TOOLS)
    return path


def update(path: Path, tools: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([str(AGENTFORGE), "replay", str(path), "-t", str(tools),
                           "--update"], capture_output=True, text=True, cwd=path.parent,
                          env=environment, timeout=120)


def test_a_file_written_to_during_the_replay_is_not_replaced(tmp_path, tools):
    path = tmp_path / "live.jsonl"
    transcript(path, 3)
    original = path.read_text()
    done = update(path, tools, LIVE_FILE=str(path))
    assert done.returncode == 2, done.stderr
    assert f"cannot write transcript {path}: it changed while it was read" in done.stderr
    assert "run again once it is done" in done.stderr
    assert path.read_text() == original + '{"type": "user", "content": "appended"}\n' * 3
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".live")] == []


def test_an_application_appending_throughout_loses_no_line(tmp_path, tools):
    """2 560 calls updated while another thread appends a line every millisecond: every
    appended line is still in the file afterwards."""
    path = tmp_path / "recording.jsonl"
    transcript(path, 2560)
    stop = threading.Event()
    appended: list[str] = []

    def application() -> None:
        while not stop.wait(0.001):
            line = json.dumps({"type": "user", "content": f"live {len(appended)}"})
            with path.open("a") as stream:
                stream.write(line + "\n")
            appended.append(line)

    writer = threading.Thread(target=application)
    writer.start()
    try:
        done = update(path, tools)
    finally:
        stop.set()
        writer.join()
    kept = set(path.read_text().splitlines())
    assert appended and [line for line in appended if line not in kept] == []
    assert done.returncode == 2, done.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a file to another user takes root")
def test_the_update_keeps_the_files_owner_and_mode(tmp_path, tools):
    path = tmp_path / "owned.jsonl"
    transcript(path, 2)
    os.chown(path, 4321, 4322)
    os.chmod(path, 0o640)
    done = update(path, tools)
    assert done.returncode == 0, done.stderr
    assert "echo:1" in path.read_text()
    info = path.stat()
    assert (info.st_uid, info.st_gid, info.st_mode & 0o7777) == (4321, 4322, 0o640)
