"""``serve --transport http`` against clients that open connections and never finish a
request: they hold no session slot, and no file descriptor for long, so other clients are
served; running out of descriptors is said once on stderr, and the server recovers.

Each server is the installed command on a free loopback port, started and stopped by its
test; a lowered ``RLIMIT_NOFILE`` makes running out of descriptors reachable with a few
hundred connections. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import resource
import socket
import time
from urllib.parse import urlsplit

import httpx
from test_mcp_http import Served

from agentforge_cli.integrations.mcp.server.http_connections import READ_TIMEOUT

BOUND = 30.0
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "slow", "version": "0"}}}).encode()
HEADERS = {"Accept": "application/json, text/event-stream"}


def half_sent(url: str, *, body: bool = False) -> socket.socket | None:
    """A connection that sent an ``initialize`` POST's headers (``body``: and half its
    body) and nothing more; ``None`` when the server's backlog is full."""
    parts = urlsplit(url)
    sock = socket.socket()
    sock.settimeout(2)
    try:
        sock.connect((parts.hostname, parts.port))
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                     b"Content-Type: application/json\r\n"
                     b"Accept: application/json, text/event-stream\r\n"
                     b"Content-Length: %d\r\n\r\n" % (parts.port, len(INITIALIZE))
                     + (INITIALIZE[:20] if body else b""))
    except OSError:
        sock.close()
        return None
    return sock


def initialize_status(url: str) -> int:
    with httpx.Client(timeout=BOUND) as client:
        return client.post(url, content=INITIALIZE, headers={
            **HEADERS, "Content-Type": "application/json"}).status_code


def _few_descriptors() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (160, 160))


def test_half_sent_requests_hold_no_session_slot() -> None:
    """More half-sent ``initialize`` requests than a client may hold sessions: a normal
    client of the same address still opens its session at once."""
    server = Served()
    stalled = []
    try:
        stalled = [half_sent(server.url, body=index % 2 == 0) for index in range(120)]
        assert all(stalled)
        started = time.monotonic()
        assert initialize_status(server.url) == 200
        assert time.monotonic() - started < READ_TIMEOUT / 2
    finally:
        for sock in stalled:
            if sock is not None:
                sock.close()
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err


def test_running_out_of_descriptors_is_said_once_and_others_are_served() -> None:
    """More half-sent requests than the server has descriptors: a normal client is still
    served within a bound, stderr stays small, and once the attacker leaves every client
    is served at once."""
    server = Served(preexec_fn=_few_descriptors)
    stalled: list[socket.socket | None] = []
    try:
        stalled = [half_sent(server.url) for _ in range(400)]
        started = time.monotonic()
        assert initialize_status(server.url) == 200
        assert time.monotonic() - started < READ_TIMEOUT + 5
        time.sleep(2)  # the server goes on accepting (and refusing) while they stay
    finally:
        for sock in stalled:
            if sock is not None:
                sock.close()
    try:
        started = time.monotonic()
        assert initialize_status(server.url) == 200
        assert time.monotonic() - started < 5
    finally:
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err
    assert len(err) < 4000, err[:4000]
    assert err.count("descriptors") == 1, err


def test_a_connection_that_sends_nothing_is_closed_after_the_read_timeout() -> None:
    server = Served()
    try:
        parts = urlsplit(server.url)
        with contextlib.closing(socket.create_connection((parts.hostname, parts.port))) as idle:
            idle.settimeout(READ_TIMEOUT + 10)
            started = time.monotonic()
            assert idle.recv(1024) == b""  # closed by the server
            assert READ_TIMEOUT - 1 < time.monotonic() - started < READ_TIMEOUT + 5
    finally:
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err


def test_stopping_while_out_of_descriptors_says_nothing_more() -> None:
    """Stopped (SIGINT) while the attacker still holds every descriptor: the retries of
    accepting that were pending fail quietly, and the server exits 0."""
    server = Served(preexec_fn=_few_descriptors)
    stalled = [half_sent(server.url) for _ in range(400)]
    try:
        assert initialize_status(server.url) == 200
        code, out, err = server.stop()
    finally:
        for sock in stalled:
            if sock is not None:
                sock.close()
    assert (code, out) == (0, ""), err[:4000]
    assert len(err) < 4000, err[:4000]
