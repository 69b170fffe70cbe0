"""``agentforge record`` at its limits: a log that cannot grow (disk full, ``ulimit -f``),
a client or recorder that goes away while the server writes, a server that will not end,
and an output that is not a regular file. The session itself must go on, or end, as it
would without the recorder."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
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
