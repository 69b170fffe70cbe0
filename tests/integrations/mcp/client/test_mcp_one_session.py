"""One command, one session: ``tools call`` over streamable HTTP lists the tools plainly
(without the SDK) and the SDK's session goes on with that session for the call, instead
of opening a second one. Seen through ``agentforge record --url`` in front of the
reference server-everything (which speaks only the ``initialize`` handshake)."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from mcp_client_support import AGENTFORGE, ROOT, server_env
from test_mcp_plain_listing import everything  # noqa: F401  (the fixture)

BOUND = 60.0


def _recording(upstream: str, log: Path) -> tuple[subprocess.Popen[str], str]:
    proxy = subprocess.Popen([str(AGENTFORGE), "record", "--url", upstream, "-o", str(log)],
                             cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=server_env())
    assert proxy.stderr is not None
    line = proxy.stderr.readline()
    assert " at " in line, line
    return proxy, line.split(" at ")[1].split()[0]


def test_a_call_over_http_opens_one_session(everything: str, tmp_path: Path  # noqa: F811
                                            ) -> None:
    log = tmp_path / "session.jsonl"
    proxy, url = _recording(everything, log)
    try:
        done = subprocess.run([str(AGENTFORGE), "tools", "call", "echo",
                               '{"message": "hi"}', "-t", url], capture_output=True,
                              text=True, cwd=ROOT, env=server_env(), timeout=BOUND)
    finally:
        proxy.send_signal(signal.SIGINT)
        proxy.wait(timeout=BOUND)
        proxy.stderr.close()  # type: ignore[union-attr]
    assert done.returncode == 0, done.stderr
    assert "hi" in done.stdout
    sent = [json.loads(line)["message"] for line in log.read_text().splitlines()]
    methods = [message.get("method") for message in sent if "method" in message]
    assert methods.count("initialize") == 1, methods
    assert methods.count("tools/call") == 1, methods  # (the SDK lists again, in-session)
