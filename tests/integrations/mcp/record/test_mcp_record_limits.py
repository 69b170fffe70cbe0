"""``agentforge record`` at its limits: a log that cannot grow (disk full, ``ulimit -f``),
a client or recorder that goes away while the server writes, a server that will not end,
and an output that is not a regular file. The session itself must go on, or end, as it
would without the recorder."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from mcp_client_support import AGENTFORGE, HERE, INITIALIZE, ROOT, server_env

FAULTY = [sys.executable, str(HERE / "faulty_server.py")]
_LOG_LIMIT = 1 << 20  # RLIMIT_FSIZE for the recorder: about three answers fit


def _record(log: Path, *command: str) -> list[str]:
    return [str(AGENTFORGE), "record", "-o", str(log), "--", *command]


def _flood_calls(count: int, size: int) -> bytes:
    messages = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INITIALIZE},
                {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    messages += [{"jsonrpc": "2.0", "id": n, "method": "tools/call",
                  "params": {"name": "flood", "arguments": {"size": size}}}
                 for n in range(1, count + 1)]
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def _small_files() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (_LOG_LIMIT, _LOG_LIMIT))


def test_a_full_log_stops_recording_not_the_session(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    log.write_bytes(b'{"direction":"client_to_server","timestamp":"x","message":{}}\n')
    done = subprocess.run(_record(log, *FAULTY, "huge"), input=_flood_calls(8, 300_000),
                          capture_output=True, cwd=ROOT, env=server_env(), timeout=60,
                          preexec_fn=_small_files)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == list(range(9))  # every answer reached the client
    assert all(len(a["result"]["content"][0]["text"]) == 300_000 for a in answers[1:])
    stderr = done.stderr.decode()
    assert stderr.count("agentforge record: recording stopped: cannot write to") == 1
    assert "File too large" in stderr
    data = log.read_bytes()
    assert data.endswith(b"\n") and len(data) <= _LOG_LIMIT
    entries = [json.loads(line) for line in data.splitlines()]  # whole lines only
    assert 3 <= len(entries) < 18
    assert entries[1]["message"]["method"] == "initialize"


# A server that writes its pid, then floods its output and ignores SIGTERM and the end of
# its input: only SIGKILL ends it.
STUBBORN = '''
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
with open(sys.argv[1], "w") as pidfile:
    pidfile.write(str(os.getpid()))
while True:
    try:
        sys.stdout.write("x" * 65536 + "\\n")
        sys.stdout.flush()
    except OSError:
        time.sleep(0.05)
'''
# A server that writes its pid and sleeps, reading nothing: it never sees its input end.
SLEEPER = '''
import os, sys, time
with open(sys.argv[1], "w") as pidfile:
    pidfile.write(str(os.getpid()))
time.sleep(60)
'''


def _pid(path: Path) -> int:
    deadline = time.monotonic() + 20
    while not path.exists() or not path.read_text():
        assert time.monotonic() < deadline, "the server never started"
        time.sleep(0.05)
    return int(path.read_text())


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie no one reaped has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _ended_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def test_a_client_killed_while_the_server_writes_ends_a_stubborn_server(tmp_path: Path
                                                                         ) -> None:
    pidfile = tmp_path / "server.pid"
    command = _record(tmp_path / "s.jsonl", sys.executable, "-c", STUBBORN, str(pidfile))
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=server_env()) as recorder:
        assert recorder.stdin is not None and recorder.stdout is not None
        server = _pid(pidfile)
        try:
            assert recorder.stdout.read(65536)  # the flood passes
            started = time.monotonic()
            recorder.stdout.close()  # the client dies: both its pipe ends close
            recorder.stdin.close()
            # end of input, then 5 s, SIGTERM (ignored), 5 s, SIGKILL
            assert recorder.wait(timeout=30) == 128 + signal.SIGKILL
            assert 9 < time.monotonic() - started < 20
            assert not _running(server)
        finally:
            _kill(server)
            recorder.kill()


def test_a_recorder_killed_takes_its_server_along(tmp_path: Path) -> None:
    pidfile = tmp_path / "server.pid"
    command = _record(tmp_path / "s.jsonl", sys.executable, "-c", SLEEPER, str(pidfile))
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=server_env()) as recorder:
        server = _pid(pidfile)
        try:
            recorder.kill()
            recorder.wait(timeout=20)
            assert _ended_within(server, 10), "the server outlived its recorder"
        finally:
            _kill(server)


def test_a_fifo_output_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)  # no one reads it: opening it to write would wait forever
    done = subprocess.run([str(AGENTFORGE), "record", "-o", str(fifo), "--", *FAULTY,
                           "huge"], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 2, done.stderr
    assert (f"--output {fifo}: cannot be opened for appending: not a regular file"
            in done.stderr)
    assert done.stdout == ""
