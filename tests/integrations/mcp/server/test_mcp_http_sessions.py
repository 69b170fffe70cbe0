"""Session limits of ``serve --transport http``: a client that opens sessions and abandons
them cannot lock the others out.

The first test runs the installed command with its real limits; the others serve the app
in a thread with small limits and short timeouts (``SessionLimits``), and open sessions
from other loopback addresses (127.0.0.2, ...) to act as other clients. Every server is
started on loopback by its test and stopped by it; every loop is bounded.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from mcp import ClientSession
from test_mcp_http import Served, session_run
from test_mcp_http_plain_clients import KeepAlive

from agentforge_cli import ToolService, build_local_tools, tool
from agentforge_cli.integrations.mcp.server.http_sessions import SessionLimits
from agentforge_cli.integrations.mcp.server.streamable_http import bind_socket, build_app
from sample_tools import shop

BOUND = 30.0
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "hostile", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream"}


def open_session(client: httpx.Client, url: str) -> str:
    """Send an ``initialize`` and nothing more (an abandoned handshake); the session ID."""
    response = client.post(url, json=INITIALIZE, headers=HEADERS)
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


def alive(client: httpx.Client, url: str, session_id: str) -> bool:
    """Whether the server still knows the session (it accepts a notification in it)."""
    status = client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                         headers={**HEADERS, "Mcp-Session-Id": session_id}).status_code
    assert status in (202, 404), status
    return status == 202


def well_behaved_call(url: str) -> Any:
    """The official client: initialize, then call a tool; the tool's result."""
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("getPrice", {"sku": "TEA-001", "quantity": "3"})
    return session_run(url, body)[1]


def test_a_flood_of_abandoned_sessions_leaves_room_for_well_behaved_clients() -> None:
    """A session of the official client open before the flood keeps working, and a new
    one opens after it; the flooding client holds no more sessions than its limit."""
    limit = SessionLimits().per_client
    server = Served()

    def flood() -> list[str]:
        with httpx.Client(timeout=BOUND) as hostile:
            return [open_session(hostile, server.url) for _ in range(limit + 50)]

    async def during_flood(session: ClientSession) -> Any:
        return (await anyio.to_thread.run_sync(flood),
                await session.call_tool("getPrice", {"sku": "TEA-001", "quantity": "3"}))

    try:
        _, (opened, result) = session_run(server.url, during_flood)
        assert (result.is_error, result.content[0].text) == (False, "384.00")
        result = well_behaved_call(server.url)
        assert (result.is_error, result.content[0].text) == (False, "384.00")
        with httpx.Client(timeout=BOUND) as hostile:
            # its oldest sessions were ended to make room
            assert not alive(hostile, server.url, opened[0])
            assert not alive(hostile, server.url, opened[49])
            assert alive(hostile, server.url, opened[-1])
    finally:
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err


_release = threading.Event()
_entered = threading.Semaphore(0)


@tool
def hold() -> str:
    """Wait until the test releases it (at most 30 s)."""
    _entered.release()
    return "released" if _release.wait(BOUND) else "timed out"


class Threaded:
    """The HTTP app with ``limits``, served by uvicorn in a thread on a free port."""

    def __init__(self, limits: SessionLimits) -> None:
        service = ToolService().tools(build_local_tools([shop, hold]))
        sock = bind_socket("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        config = uvicorn.Config(build_app(service, host="127.0.0.1", limits=limits),
                                log_config=None, lifespan="on", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]},
                                       daemon=True)
        self.thread.start()
        self.sock = sock
        deadline = time.monotonic() + BOUND
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(BOUND)
        self.sock.close()
        assert not self.thread.is_alive()


@pytest.fixture
def small() -> Iterator[Threaded]:
    served = Threaded(SessionLimits(per_client=3, total=5, handshake_timeout=0.5,
                                    idle_timeout=60, sweep_every=0.1))
    try:
        yield served
    finally:
        served.stop()


def from_address(address: str) -> httpx.Client:
    """A client whose connections come from ``address`` (another loopback address)."""
    return httpx.Client(timeout=BOUND, transport=httpx.HTTPTransport(local_address=address))


def _can_bind(address: str) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((address, 0))
        except OSError:
            return False
    return True


def test_a_client_at_its_limit_ends_its_own_oldest_session_not_anothers(small: Threaded) -> None:
    if not _can_bind("127.0.0.2"):
        pytest.fail("this test needs the loopback addresses 127.0.0.0/8 (Linux has them)")
    with from_address("127.0.0.1") as other, from_address("127.0.0.2") as hostile:
        kept = open_session(other, small.url)
        assert alive(other, small.url, kept)  # its handshake is complete
        floods = [open_session(hostile, small.url) for _ in range(6)]
        assert [alive(hostile, small.url, sid) for sid in floods] == [False] * 3 + [True] * 3
        assert alive(other, small.url, kept)


def test_at_the_total_limit_the_stalest_session_of_all_makes_room(small: Threaded) -> None:
    clients = [from_address(f"127.0.0.{n}") for n in (1, 2, 3)]
    try:
        first = [open_session(client, small.url) for client in clients[:2] for _ in range(2)]
        for client, sid in zip([clients[0]] * 2 + [clients[1]] * 2, first, strict=True):
            assert alive(client, small.url, sid)  # handshakes complete, oldest first
        late = open_session(clients[2], small.url)
        assert alive(clients[2], small.url, late)
        newest = open_session(clients[2], small.url)  # the sixth session: one must go
        assert not alive(clients[0], small.url, first[0])
        assert [alive(clients[0], small.url, first[1]), alive(clients[2], small.url, late),
                alive(clients[2], small.url, newest)] == [True, True, True]
    finally:
        for client in clients:
            client.close()


def test_sessions_opened_back_to_back_up_to_the_limit_are_all_kept(small: Threaded) -> None:
    """A session counts once its answer names it: the answer may reach the client, and
    its next ``initialize`` the server, before the request that opened it is done."""
    with httpx.Client(timeout=BOUND) as client:
        sessions = [open_session(client, small.url) for _ in range(3)]
        assert [alive(client, small.url, sid) for sid in sessions] == [True] * 3


def test_a_session_that_never_completes_its_handshake_is_ended_soon(small: Threaded) -> None:
    with httpx.Client(timeout=BOUND) as client:
        abandoned = open_session(client, small.url)
        completed = open_session(client, small.url)
        assert alive(client, small.url, completed)
        # any request in the session would complete its handshake: look once, after
        # the timeout (0.5 s) and a few sweeps (0.1 s)
        time.sleep(2.0)
        assert not alive(client, small.url, abandoned)
        assert alive(client, small.url, completed)


def _call_hold(url: str, session_id: str, answers: list[int]) -> None:
    with httpx.Client(timeout=BOUND) as client:
        answers.append(client.post(url, headers={**HEADERS, "Mcp-Session-Id": session_id}, json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "hold", "arguments": {}}}).status_code)


def test_a_client_whose_sessions_are_all_busy_gets_503(small: Threaded) -> None:
    answers: list[int] = []
    callers = []
    _release.clear()
    try:
        with httpx.Client(timeout=BOUND) as client:
            sessions = [open_session(client, small.url) for _ in range(3)]
            for sid in sessions:
                assert alive(client, small.url, sid)
                callers.append(threading.Thread(target=_call_hold,
                                                args=(small.url, sid, answers)))
                callers[-1].start()
            for _ in sessions:
                assert _entered.acquire(timeout=BOUND), "a call did not reach the tool"
            refused = client.post(small.url, json=INITIALIZE, headers=HEADERS)
            assert refused.status_code == 503
            assert "Too many open sessions" in refused.json()["error"]["message"]
    finally:
        _release.set()
        for caller in callers:
            caller.join(BOUND)
    assert answers == [200, 200, 200]


@pytest.fixture
def short_idle() -> Iterator[Threaded]:
    served = Threaded(SessionLimits(idle_timeout=1.0, sweep_every=0.1))
    try:
        yield served
    finally:
        served.stop()


def test_a_session_busy_with_plain_calls_outlives_the_idle_timeout(short_idle: Threaded) -> None:
    """Plain calls are answered without the SDK's session machinery; they still keep the
    session alive (the SDK's own idle timer, which would not see them, is off)."""
    with KeepAlive(short_idle.url) as client:
        deadline = time.monotonic() + 2.5
        index = 0
        while time.monotonic() < deadline:
            index += 1
            response, answer = client.call(index, "getPrice", {"sku": "TEA-001",
                                                               "quantity": 3})
            assert (response.status, answer["result"]["content"][0]["text"]) == (200, "384.00")
            time.sleep(0.2)
        with httpx.Client(timeout=BOUND) as other:
            assert alive(other, short_idle.url, client.session)


def test_a_session_idle_past_the_timeout_is_ended(short_idle: Threaded) -> None:
    with KeepAlive(short_idle.url) as client:
        assert client.call(1, "getPrice", {"sku": "TEA-001", "quantity": 3})[0].status == 200
        time.sleep(1.5)
        response, answer = client.call(2, "getPrice", {"sku": "TEA-001", "quantity": 3})
        assert response.status == 404
        assert answer["error"]["message"] == "Session not found"
