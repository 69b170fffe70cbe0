"""A tool that forks: the child ends where the tool's code ends (``sys.exit`` or a
return), with the exit code Python would give it, and serves nothing — over stdio, over
HTTP and in ``tools call``. Every server is a subprocess started and stopped by its test;
the tools wait for their child 10 s at most."""

from __future__ import annotations

import json
import signal
import subprocess

import pytest
from mcp_client_support import AGENTFORGE, HANDSHAKE, HERE, ROOT, TIMEOUT, RawServer, call
from test_mcp_http import Served, session_run

FORKING = str(HERE / "forking_tools.py")
CASES = [("fork_and_exit", {"code": 3}, "child exited 3"),
         ("fork_and_return", {}, "child exited 0"),
         ("afork_and_exit", {"code": 4}, "child exited 4")]


def test_over_stdio_each_child_ends_and_the_client_sees_end_of_output() -> None:
    server = RawServer(FORKING)
    server.send(*HANDSHAKE)
    server.reply(0)
    for index, (name, arguments, outcome) in enumerate(CASES, start=1):
        server.send(call(index, name, arguments))
        reply = server.reply(index)
        assert reply["result"]["content"][0]["text"] == outcome, reply
    stderr, code = server.close()  # end of output: no child holds stdout open
    assert code == 0, stderr
    ids = [message.get("id") for message in server.received]
    assert ids == [0, 1, 2, 3], ids  # each call answered once, by the parent


def test_over_http_each_child_ends_and_sigterm_frees_the_port() -> None:
    server = Served(FORKING)

    async def body(session: object) -> list[str]:
        texts = []
        for name, arguments, _ in CASES:
            result = await session.call_tool(name, arguments)  # type: ignore[attr-defined]
            texts.append(result.content[0].text)
        return texts

    try:
        _, texts = session_run(server.url, body)
    finally:
        code, out, err = server.stop(signal.SIGTERM)
    assert texts == [outcome for *_, outcome in CASES], err
    assert (code, out) == (0, ""), err


@pytest.mark.parametrize(("name", "arguments", "outcome"), CASES)
def test_tools_call_prints_one_result(name: str, arguments: dict[str, int],
                                      outcome: str) -> None:
    done = subprocess.run(
        [str(AGENTFORGE), "tools", "call", name, json.dumps(arguments), "--tools", FORKING],
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert (done.returncode, done.stdout) == (0, outcome + "\n"), done.stderr
