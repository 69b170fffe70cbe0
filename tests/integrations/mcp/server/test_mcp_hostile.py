"""``agentforge serve`` facing hostile tools (``hostile_tools.py``) and hostile input: every
client keeps being answered, over stdio and streamable HTTP."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from typing import Any

import pytest
from mcp import ClientSession
from mcp_client_support import AGENTFORGE, HANDSHAKE, HERE, RawServer, call, serve
from test_mcp_http import Served, session_run

HOSTILE = str(HERE / "hostile_tools.py")

EXITS = [
    ("argparse_cli", {"argv": "--bogus"}, 'Tool "argparse_cli" raised SystemExit(2)'),
    ("exit_zero", {}, 'Tool "exit_zero" raised SystemExit(0)'),
    ("interrupt", {}, 'Tool "interrupt" raised KeyboardInterrupt'),
    ("async_exit", {"code": 3}, 'Tool "async_exit" raised SystemExit(3)'),
]


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory):
    session = serve(["serve", HOSTILE], tmp_path_factory.mktemp("mcp-hostile"),
                    command=str(AGENTFORGE))
    connected = next(session)
    yield connected
    next(session, None)
    assert connected.problems == []


@pytest.mark.parametrize(("name", "arguments", "text"), EXITS)
def test_stdio_a_tool_exit_is_an_error_result_and_the_server_goes_on(remote, name,
                                                                     arguments, text) -> None:
    result = remote.call(name, arguments)
    assert (result.is_error, remote.text(result)) == (True, text)
    assert remote.text(remote.call("ping")) == "pong"


@pytest.mark.parametrize("kind", ["result", "error"])
def test_stdio_a_lone_surrogate_is_escaped_and_the_server_goes_on(remote, kind) -> None:
    result = remote.call("surrogate", {"kind": kind})
    assert "\\udcff" in remote.text(result)
    assert result.is_error is (kind == "error")
    assert remote.text(remote.call("ping")) == "pong"


@pytest.fixture(scope="module")
def served():
    server = Served(HOSTILE)
    try:
        yield server
    finally:
        server.stop()


def test_http_exits_and_surrogates_are_error_results_and_the_server_goes_on(served) -> None:
    async def body(session: ClientSession) -> Any:
        results = [await session.call_tool(name, arguments) for name, arguments, _ in EXITS]
        results.append(await session.call_tool("surrogate", {}))
        results.append(await session.call_tool("ping", {}))
        return results

    _, results = session_run(served.url, body)
    texts = [(r.is_error, r.content[0].text) for r in results]
    assert texts[:len(EXITS)] == [(True, text) for _, _, text in EXITS]
    assert texts[len(EXITS):] == [(False, "file-\\udcff.txt"), (False, "pong")]


# ---------------------------------------------------------------- malformed JSON-RPC


def _error(reply: dict[str, Any]) -> tuple[Any, int]:
    return reply.get("id", "missing"), reply["error"]["code"]


@pytest.mark.parametrize(("line", "answer"), [
    (b"this is not json", (None, -32700)),
    (b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\"", (None, -32700)),
    (b"[" * 100_000 + b"]" * 100_000, (None, -32700)),
    (b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":" + b"[" * 100_000
     + b"]" * 100_000 + b"}", (None, -32700)),
    (json.dumps([call(8, "ping")]).encode(), (None, -32600)),
    (b"[]", (None, -32600)),
    (b"42", (None, -32600)),
    (json.dumps({"jsonrpc": "2.0", "id": 9}).encode(), (9, -32600)),
])
def test_stdio_a_malformed_line_gets_a_json_rpc_error(line, answer) -> None:
    server = RawServer(HOSTILE)
    try:
        server.send(*HANDSHAKE)
        server.reply(0)
        server.process.stdin.write(line + b"\n")
        server.send(call(1, "ping"))
        pong = server.reply(1)
    finally:
        server.close()
    errors = [_error(m) for m in server.received if "error" in m]
    assert errors == [answer]
    assert pong["result"]["content"][0]["text"] == "pong"


def test_stdio_two_requests_with_one_id_each_get_an_answer() -> None:
    server = RawServer(HOSTILE)
    server.send(*HANDSHAKE)
    server.reply(0)
    server.send(call(1, "ping"), call(1, "nap", {"seconds": 0.5}))
    stderr, code = server.close()
    answers = [m for m in server.received if m.get("id") == 1]
    assert len(answers) == 2, (server.received, stderr)
    [result] = [m["result"] for m in answers if "result" in m]
    [error] = [m["error"] for m in answers if "error" in m]
    assert result["content"][0]["text"] == "pong"
    assert error["code"] == -32600  # refused: that id is in flight
    assert "in flight" in error["message"]
    assert code == 0


def test_a_client_that_never_reads_stderr_is_still_answered_under_log():
    """MCP lets a client ignore the server's stderr: ``serve --log`` must not stop answering
    once the pipe's buffer (64 KB) is full of log lines."""
    server = RawServer("sample_tools.crm:CrmTools", "--log")  # its stderr is never read
    try:
        server.send(*HANDSHAKE)
        server.reply(0)
        name = "长路" * 200  # each call logs about 2 KB: 1 000 calls fill the pipe 30 times

        def send_all() -> None:  # a server that stops reading blocks the sender, not the test
            with contextlib.suppress(OSError):
                for start in range(1, 1001, 100):
                    server.send(*(call(i, "queryCustomer", {"name": name, "limit": i})
                                  for i in range(start, start + 100)))

        threading.Thread(target=send_all, daemon=True).start()
        answered: dict[int, dict] = {}
        deadline = time.monotonic() + 60
        while len(answered) < 1000:
            left = deadline - time.monotonic()
            assert left > 0, f"{len(answered)} of 1000 calls answered in 60 s"
            with contextlib.suppress(queue.Empty):
                message = server.replies.get(timeout=left)
                assert message is not None, "the server closed stdout"
                answered[message["id"]] = message
        assert sorted(answered) == list(range(1, 1001))
        assert all(not reply["result"]["isError"] for reply in answered.values())
    finally:
        server.process.kill()
        server.process.wait(timeout=30)
        for stream in (server.process.stdin, server.process.stdout, server.process.stderr):
            stream.close()
