"""``agentforge serve`` over stdio under load it must bound: a blocking ``async def``
tool, many slow sync calls, a client that sends but never reads, a very long line. Each
server is a subprocess serving ``hostile_tools.py``; every wait is bounded."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from typing import Any

from mcp_client_support import HANDSHAKE, HERE, TIMEOUT, RawServer, call, request

HOSTILE = str(HERE / "hostile_tools.py")


def _text(reply: dict[str, Any]) -> str:
    [block] = reply["result"]["content"]
    return block["text"]


def _answered(server: RawServer, ids: set[Any], within: float = TIMEOUT
              ) -> dict[Any, dict[str, Any]]:
    """Wait (at most ``within`` seconds) until each of ``ids`` is answered; return the
    answers by id (``server.received`` keeps the order they came in)."""
    answers = {m["id"]: m for m in server.received if m.get("id") in ids}
    deadline = time.monotonic() + within
    while set(answers) != ids:
        left = deadline - time.monotonic()
        assert left > 0, f"unanswered after {within} s: {sorted(ids - set(answers))}"
        with contextlib.suppress(queue.Empty):
            message = server.replies.get(timeout=left)
            assert message is not None, "the server closed stdout"
            server.received.append(message)
            if message.get("id") in ids:
                answers[message["id"]] = message
    return answers


def _order(server: RawServer) -> list[Any]:
    return [m.get("id") for m in server.received]


def _write_in_background(server: RawServer, *pieces: bytes) -> None:
    """Write ``pieces`` to the server's stdin from a daemon thread: a server that reads
    slowly holds up that thread, never the test."""
    def write() -> None:
        with contextlib.suppress(OSError, ValueError):
            for piece in pieces:
                server.process.stdin.write(piece)
            server.process.stdin.flush()

    threading.Thread(target=write, daemon=True).start()


def _stop(server: RawServer) -> None:
    server.process.kill()
    server.process.wait(timeout=30)
    for stream in (server.process.stdin, server.process.stdout, server.process.stderr):
        with contextlib.suppress(OSError):
            stream.close()


def test_an_async_tool_that_blocks_its_loop_times_out_and_holds_up_no_other_call() -> None:
    server = RawServer(HOSTILE, "--timeout", "5")
    try:
        server.send(*HANDSHAKE)
        _answered(server, {0})
        server.send(call(1, "async_block", {"seconds": 30}))  # time.sleep in an async def
        time.sleep(1.0)  # it holds its loop by now
        server.send(call(2, "ping"), call(3, "aping"))
        answers = _answered(server, {2, 3})
        assert (_text(answers[2]), _text(answers[3])) == ("pong", "apong")
        assert 1 not in _order(server)  # still blocked: answered after the others
        blocked = _answered(server, {1})[1]  # at about 5.5 s; the tool sleeps for 30
        assert blocked["result"]["isError"] is True
        assert _text(blocked) == 'Tool "async_block" timed out after 5 s'
        server.send(call(4, "aping"))  # async tools go on, on another loop
        assert _text(_answered(server, {4})[4]) == "apong"
        stderr, code = server.close()
    finally:
        _stop(server)
    assert code == 0, stderr
    assert "held its event loop" in stderr and "async_block" in stderr


def test_a_fast_call_is_answered_while_twenty_slow_sync_calls_are_in_flight() -> None:
    server = RawServer(HOSTILE)
    try:
        server.send(*HANDSHAKE)
        _answered(server, {0})
        server.send(*(call(n, "nap", {"seconds": 5}) for n in range(1, 21)), call(21, "ping"))
        answers = _answered(server, set(range(1, 22)), within=60)
        stderr, code = server.close()
    finally:
        _stop(server)
    assert code == 0, stderr
    assert _text(answers[21]) == "pong"
    assert all(_text(answers[n]) == "rested" for n in range(1, 21))
    assert next(n for n in _order(server) if n != 0) == 21  # before any of the naps


def test_a_client_that_sends_but_never_reads_is_no_longer_read() -> None:
    """3 000 requests for 20 KB answers from a client that reads none: the server stops
    reading once its answers wait (back-pressure), so the client's writes block long
    before it has sent them all; once it reads, every request is answered."""
    server = RawServer(HOSTILE, read=False)
    total, sent = 3000, [0]
    first: queue.Queue[bytes] = queue.Queue()

    def send_all() -> None:
        with contextlib.suppress(OSError, ValueError):
            server.send(*HANDSHAKE)
            first.put(server.process.stdout.readline())  # the server is up: it answered
            for n in range(1, total + 1):
                server.send(call(n, "big", {"size": 20_000, "pad": "p" * 4000}))
                sent[0] = n

    try:
        threading.Thread(target=send_all, daemon=True).start()
        assert json.loads(first.get(timeout=60))["id"] == 0
        last, still, deadline = -1, 0.0, time.monotonic() + 60
        while still < 5.0 and sent[0] < total and time.monotonic() < deadline:
            time.sleep(0.25)
            still = still + 0.25 if sent[0] == last else 0.0
            last = sent[0]
        # OPEN_LIMIT (256) requests, and what the pipes and the reader's buffer hold
        assert sent[0] < 1000, f"the server read {sent[0]} of {total} requests"
        server.start_reading()
        answers = _answered(server, set(range(1, total + 1)), within=120)
        stderr, code = server.close()
    finally:
        _stop(server)
    assert code == 0, stderr
    assert all(len(_text(answers[n])) == 20_000 for n in range(1, total + 1))
    assert len(server.received) == total  # each once


def test_a_long_line_is_read_in_linear_time() -> None:
    """A 32 MB request line: read in a second or two (it took about a minute, read in
    quadratic time), and the server goes on."""
    server = RawServer(HOSTILE)
    try:
        server.send(*HANDSHAKE)
        _answered(server, {0})
        line = json.dumps(request(1, "ping", {"_meta": {"pad": "p" * (32 << 20)}}))
        started = time.monotonic()
        _write_in_background(server, line.encode() + b"\n", json.dumps(call(2, "ping")).encode()
                             + b"\n")
        answers = _answered(server, {1}, within=60)
        took = time.monotonic() - started
        assert _text(_answered(server, {2})[2]) == "pong"  # the server goes on
        assert _text(_answered(server, {2})[2]) == "pong"
        stderr, code = server.close()
    finally:
        _stop(server)
    assert code == 0, stderr
    assert answers[1]["result"] == {}
    assert took < 20, f"a 32 MB line took {took:.1f} s"


def test_a_line_over_the_limit_is_skipped_and_answered_32600() -> None:
    server = RawServer(HOSTILE)
    try:
        server.send(*HANDSHAKE)
        _answered(server, {0})
        padding = b"p" * (1 << 20)  # 65 of them: more than the 64 MiB limit
        _write_in_background(server, b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"',
                             *[padding] * 65, b'"}\n', json.dumps(call(2, "ping")).encode()
                             + b"\n")
        _answered(server, {2}, within=60)
        stderr, code = server.close()
    finally:
        _stop(server)
    assert code == 0, stderr
    errors = [m for m in server.received if "error" in m]
    assert [(m["id"], m["error"]["code"]) for m in errors] == [(None, -32600)]
    assert "longer than the limit of 67108864 characters" in errors[0]["error"]["message"]
    assert 1 not in _order(server)
