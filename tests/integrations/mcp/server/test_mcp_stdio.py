"""``agentforge serve`` on stdio as real clients use it: the installed command serving
``stdio_tools.py``, driven by the SDK's own client (``ClientSession``) or by raw JSON-RPC
lines when the test must see exactly what arrives.

* stdout is the protocol stream only: prints at import, ``print``, ``sys.stdout.write``,
  ``os.write(1, ...)`` and a child process all end up on stderr;
* every request read is answered, also when stdin closes right after the last one;
* 1 000 concurrent calls: each answered exactly once, with its own result;
* ``--timeout`` turns a hung tool into an error result naming the limit; ``--strict``;
* ``notifications/cancelled``: an async tool is interrupted, a sync tool's late result is
  dropped, and neither is answered;
* ``--log`` masks secrets.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types
from mcp_client_support import (
    AGENTFORGE,
    HANDSHAKE,
    ROOT,
    RawServer,
    Remote,
    call,
    lines_of,
    request,
    run_closed,
    serve,
    server_env,
)

TOOLS = "tests/integrations/stdio_tools.py"
FORKED = Path(__file__).resolve().parents[2] / "forked_serve.py"


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory):
    """The SDK client connected to ``agentforge serve tests/integrations/stdio_tools.py``."""
    session = serve(["serve", TOOLS], tmp_path_factory.mktemp("mcp-stdio"),
                    command=str(AGENTFORGE))
    connected = next(session)
    yield connected
    next(session, None)  # the client closes stdin; the server exits
    assert connected.problems == []  # no stdout line the client could not parse


def _text(reply: dict[str, Any]) -> str:
    [block] = reply["result"]["content"]
    return block["text"]


def _by_id(replies: list[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
    grouped: dict[Any, list[dict[str, Any]]] = {}
    for reply in replies:
        grouped.setdefault(reply.get("id"), []).append(reply)
    return grouped


# ---------------------------------------------------------------- stdout discipline


def test_whatever_a_tool_prints_goes_to_stderr(remote: Remote) -> None:
    for word in ("first", "second"):
        result = remote.call("shout", {"text": word})
        assert (result.is_error, remote.text(result)) == (False, word)
    assert remote.text(remote.call("add", {"a": 2, "b": 3})) == "5"
    assert remote.problems == []  # no stdout line the client could not parse
    stderr = remote.stderr.read_text(encoding="utf-8")
    assert "stdio_tools: printed at import" in stderr
    for word in ("first", "second"):
        for way in ("print", "sys.stdout.write", "os.write", "child process"):
            assert f"{way}: {word}" in stderr
    assert "Traceback" not in stderr


# ---------------------------------------------------------------- stdin closes


def test_stdin_closed_right_after_the_last_request_every_request_is_answered() -> None:
    """20 servers at once, each sent the handshake, tools/list and six calls (one failing,
    one with bad arguments, one for an unknown tool), its stdin closed right after."""
    messages = [*HANDSHAKE, request(1, "tools/list"),
                call(2, "echo", {"n": 2}), call(3, "fail", {"reason": "on purpose"}),
                call(4, "aecho", {"n": 4}), call(5, "add", {"a": "x", "b": 1}),
                call(6, "nope"), call(7, "echo", {"n": 7})]
    done = subprocess.run([sys.executable, str(FORKED), "20", TOOLS], input=lines_of(messages),
                          capture_output=True, cwd=ROOT, env=server_env(), timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    runs = json.loads(done.stdout)
    assert len(runs) == 20
    for run in runs:
        assert run["code"] == 0, run["stderr"]
        replies = [json.loads(line) for line in run["stdout"].splitlines()]
        assert sorted(reply["id"] for reply in replies) == list(range(8)), run["stderr"]
        answers = {reply["id"]: reply for reply in replies}
        assert [_text(answers[n]) for n in (2, 4, 7)] == ["2", "4", "7"]
        assert answers[3]["result"]["isError"] is True
        assert _text(answers[3]) == "failed: on purpose"
        assert answers[5]["result"]["isError"] is True
        assert answers[6]["error"]["code"] == types.INVALID_PARAMS
        assert "Traceback" not in run["stderr"]


# ---------------------------------------------------------------- many calls at once


def test_a_thousand_concurrent_calls_are_each_answered_once_with_their_own_result() -> None:
    calls = [call(f"c{n}", "echo" if n % 2 else "aecho", {"n": n}) for n in range(1000)]
    replies, stderr, code = run_closed([TOOLS], [*HANDSHAKE, *calls])
    assert code == 0, stderr
    grouped = _by_id(replies)
    assert sorted(grouped, key=str) == sorted([0, *(f"c{n}" for n in range(1000))], key=str)
    for n in range(1000):
        [reply] = grouped[f"c{n}"]
        assert (reply["result"]["isError"], _text(reply)) == (False, str(n))


def test_a_thousand_concurrent_calls_from_the_sdk_client(remote: Remote) -> None:
    results: dict[int, Any] = {}

    async def all_at_once() -> None:
        async def one(n: int) -> None:
            results[n] = await remote.session.call_tool("echo" if n % 2 else "aecho", {"n": n})

        async with anyio.create_task_group() as group:
            for n in range(1000):
                group.start_soon(one, n)

    remote.run(all_at_once)
    assert remote.problems == []
    assert sorted(results) == list(range(1000))
    for n, result in results.items():
        assert (result.is_error, result.content[0].text) == (False, str(n))


# ---------------------------------------------------------------- --timeout, --strict


def test_timeout_turns_a_hung_tool_into_an_error_result_naming_the_limit() -> None:
    messages = [*HANDSHAKE, call(1, "hang"), call(2, "ahang"), call(3, "echo", {"n": 3})]
    replies, stderr, code = run_closed([TOOLS, "--timeout", "0.5"], messages)
    assert code == 0, stderr
    answers = {reply["id"]: reply for reply in replies}
    assert sorted(answers) == [0, 1, 2, 3]
    assert answers[1]["result"]["isError"] is True
    assert _text(answers[1]) == 'Tool "hang" timed out after 0.5 s'
    assert answers[2]["result"]["isError"] is True
    assert _text(answers[2]) == 'Tool "ahang" timed out after 0.5 s'
    assert _text(answers[3]) == "3"


def test_strict_refuses_a_missing_int_unless_lenient(remote: Remote) -> None:
    messages = [*HANDSHAKE, call(1, "add", {"a": 1}), call(2, "add", {"a": 1, "b": 2})]
    strict, stderr, code = run_closed([TOOLS, "--strict"], messages)
    assert code == 0, stderr
    assert remote.call("add", {"a": 1}).is_error  # strict is the default
    [refused] = _by_id(strict)[1]
    assert refused["result"]["isError"] is True
    assert '"b"' in _text(refused) and "missing" in _text(refused).lower()
    assert _text(_by_id(strict)[2][0]) == "3"
    lenient, stderr, code = run_closed([TOOLS, "--lenient"], messages)
    assert code == 0, stderr
    assert _text(_by_id(lenient)[1][0]) == "1"  # lenient: a missing int is 0


# ---------------------------------------------------------------- cancellation


def test_a_cancelled_async_tool_is_interrupted(remote: Remote) -> None:
    outcome: dict[str, Any] = {}

    async def cancel_a_call() -> None:
        async with anyio.create_task_group() as group:
            async def lingering() -> None:
                outcome["linger"] = await remote.session.call_tool("linger", {})

            group.start_soon(lingering)
            started = await remote.session.call_tool("linger_started", {})
            outcome["started"] = started.content[0].text
            # Cancelling the caller makes the SDK client send notifications/cancelled.
            group.cancel_scope.cancel()
        cancelled = await remote.session.call_tool("linger_outcome", {})
        outcome["cancelled"] = cancelled.content[0].text

    remote.run(cancel_a_call)
    assert remote.problems == []
    assert outcome == {"started": "started", "cancelled": "cancelled"}


def test_a_cancelled_sync_tool_runs_on_but_its_late_result_is_dropped() -> None:
    server = RawServer(TOOLS)
    server.send(*HANDSHAKE)
    server.reply(0)
    server.send(call(1, "block"), call(2, "block_started"))
    assert _text(server.reply(2)) == "started"
    server.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": {"requestId": 1, "reason": "the user gave up"}})
    server.send(call(3, "unblock"), call(4, "block_finished"))
    assert _text(server.reply(4)) == "finished"  # the tool has returned its late result
    server.send(request(5, "ping"))
    server.reply(5)
    stderr, code = server.close()
    assert code == 0, stderr
    assert sorted(reply["id"] for reply in server.received) == [0, 2, 3, 4, 5]  # never 1
    assert "Traceback" not in stderr


# ---------------------------------------------------------------- --log masks secrets


def test_the_call_log_masks_secrets() -> None:
    secrets = ["4711", "key-sk-123", "hunter2"]
    messages = [*HANDSHAKE,
                call(1, "login", {"user": "ann", "pin": 4711, "api_key": "key-sk-123",
                                  "options": {"region": "eu", "password": "hunter2"}}),
                call(2, "login", {"user": "bob", "pin": "4711", "api_key": "key-sk-123"}),
                call(3, "login", {"user": "cy", "pin": "not-a-pin-hunter2", "api_key": "k"})]
    replies, stderr, code = run_closed([TOOLS, "--log"], messages)
    assert code == 0, stderr
    answers = {reply["id"]: reply for reply in replies}
    assert _text(answers[1]) == "welcome ann" and _text(answers[2]) == "welcome bob"
    assert answers[3]["result"]["isError"] is True
    assert "Tool request: login" in stderr and '"user":"ann"' in stderr
    assert '"pin":"***"' in stderr and '"api_key":"***"' in stderr
    assert '"password":"***"' in stderr and '"region":"eu"' in stderr
    for secret in secrets:
        assert secret not in stderr
    assert json.dumps(replies)  # replies are plain JSON


def test_a_client_that_stops_reading_ends_the_session_quietly() -> None:
    server = subprocess.Popen([str(AGENTFORGE), "serve", TOOLS], cwd=ROOT, env=server_env(),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    server.stdin.write(lines_of(HANDSHAKE[:1]))
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 0
    server.stdout.close()  # the client goes away without closing our stdin first
    server.stdin.write(lines_of([HANDSHAKE[1], *(call(n, "echo", {"n": n}) for n in range(3))]))
    server.stdin.close()
    code = server.wait(timeout=60)
    stderr = server.stderr.read().decode("utf-8", "replace")
    server.stderr.close()
    assert code == 0, stderr
    assert "error" not in stderr and "Traceback" not in stderr


def test_ctrl_c_stops_a_server_waiting_at_a_terminal() -> None:
    import os
    import pty
    import signal

    terminal, pane = pty.openpty()
    server = subprocess.Popen([str(AGENTFORGE), "serve", TOOLS], cwd=ROOT, env=server_env(),
                              stdin=pane, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(pane)
    try:
        lines = []
        while not any(b"waiting for a client" in line for line in lines):
            line = server.stderr.readline()
            assert line, b"".join(lines).decode()
            lines.append(line)
        server.send_signal(signal.SIGINT)
        code = server.wait(timeout=60)
    finally:
        os.close(terminal)
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stdout.close()
        server.stderr.close()
    assert code == 0
