"""Session limits of ``agentforge serve --transport http``: no client can lock out the others.

The SDK's session manager refuses every new session (``503``) once 10 000 are open and
keeps an idle one for 30 minutes, so one client that opens sessions and abandons them
locks everyone out. :class:`SessionGuard`, an ASGI middleware in front of it, bounds
sessions per client and in all, and makes room rather than refusing:

* a request that opens a session counts once its body has arrived whole (one still
  arriving holds no slot; the server bounds how long it may take);
* a client is the peer address of the connection (every local client shares
  ``127.0.0.1``; behind a reverse proxy, every client is the proxy);
* a new session from a client that already holds :attr:`SessionLimits.per_client` ends
  that client's stalest session first; past :attr:`SessionLimits.total`, the stalest of
  all. Stalest: a session that never completed its handshake (no request after the
  ``initialize``) before one that did, then the one idle longest. A session with a
  ``POST`` in flight is never ended this way; when every candidate has one, the new
  session is refused with ``503``;
* a session that sent nothing after its ``initialize`` is ended after
  :attr:`SessionLimits.handshake_timeout` seconds, and one with no request open (an open
  ``GET`` stream counts) after :attr:`SessionLimits.idle_timeout`. They are looked for
  when a request comes (no background task: none outlives the server). The SDK's own
  idle timer is off: it does not see the calls
  :mod:`~agentforge_cli.integrations.mcp.server.plain_calls` answers.

A session is ended the way a client ends it, with a ``DELETE`` through the SDK's app, so
its ID answers ``404`` afterwards (the client then opens a new session).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SessionGuard", "SessionLimits", "read_body", "whole_body"]

_SESSION_HEADER = b"mcp-session-id"


@dataclass(frozen=True)
class SessionLimits:
    """How many sessions, and for how long (seconds)."""

    per_client: int = 100
    total: int = 1000
    handshake_timeout: float = 60.0
    idle_timeout: float = 600.0
    sweep_every: float = 5.0
    """Sessions past their timeout are looked for when a request comes, at most this often."""


@dataclass
class _Session:
    peer: str
    template: dict[str, Any]
    """The opening request's scope, for the ``DELETE`` that ends the session."""
    last_active: float
    requests: int = 0
    """Requests after the ``initialize``: ``0`` while the handshake is incomplete."""
    posts_open: int = 0
    gets_open: int = 0
    ending: bool = field(default=False)


class SessionGuard:
    """ASGI middleware bounding the SDK's stateful sessions (see the module's text)."""

    def __init__(self, app: ASGIApp, limits: SessionLimits | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.limits = limits or SessionLimits()
        self.clock = clock
        self.sessions: dict[str, _Session] = {}
        self.opening: dict[str, int] = {}
        """Opening requests in flight, per peer: they count against the limits."""
        self.swept = self.clock()
        self.ended = 0
        """Sessions ended by the guard (evicted or reaped)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.clock() - self.swept >= self.limits.sweep_every:
            await self.reap()
        session_id = _header(scope, _SESSION_HEADER)
        if session_id is None:
            await self._open(scope, receive, send)
        else:
            await self._use(session_id, scope, receive, send)

    async def reap(self) -> None:
        """End every session past its timeout."""
        now = self.swept = self.clock()
        for session_id, session in list(self.sessions.items()):
            if session.posts_open or session.gets_open or session.ending:
                continue
            timeout = (self.limits.idle_timeout if session.requests
                       else self.limits.handshake_timeout)
            if now - session.last_active >= timeout:
                await self._end(session_id)

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request without a session ID: make room for the session it may open, then
        remember the session the answer names."""
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        peer = _peer(scope)
        template = dict(scope)
        arrived = await whole_body(receive)  # a request still arriving holds no slot
        if arrived is None:
            return
        receive = arrived
        if not await self._make_room(peer):
            await _too_many(scope, receive, send)
            return

        self.opening[peer] = self.opening.get(peer, 0) + 1
        pending = True

        def settled() -> None:
            nonlocal pending
            if pending:
                pending = False
                self.opening[peer] -= 1
                if not self.opening[peer]:
                    del self.opening[peer]

        async def remember(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened = _header(message, _SESSION_HEADER)
                if opened is not None and opened not in self.sessions:
                    self.sessions[opened] = _Session(peer, _delete_scope(template, opened),
                                                     self.clock())
                    # a session from now on, no longer an opening request: the answer may
                    # reach the client (and its next initialize us) before the app returns
                    settled()
            await send(message)

        try:
            await self.app(scope, receive, remember)
        finally:
            settled()

    async def _make_room(self, peer: str) -> bool:
        """End the stalest session of ``peer`` at the per-client limit, or the stalest of
        all at the total limit; ``False`` when none may be ended."""
        mine = [sid for sid, session in self.sessions.items() if session.peer == peer]
        if len(mine) + self.opening.get(peer, 0) >= self.limits.per_client:
            return await self._end_stalest(mine)
        if len(self.sessions) + sum(self.opening.values()) >= self.limits.total:
            return await self._end_stalest(list(self.sessions))
        return True

    async def _end_stalest(self, candidates: list[str]) -> bool:
        idle = [sid for sid in candidates
                if not self.sessions[sid].posts_open and not self.sessions[sid].ending]
        if not idle:
            return False
        await self._end(min(idle, key=lambda sid: (self.sessions[sid].requests > 0,
                                                   self.sessions[sid].last_active)))
        return True

    async def _end(self, session_id: str) -> None:
        """End a session with a ``DELETE`` through the app, as its client would."""
        session = self.sessions.get(session_id)
        if session is None or session.ending:  # another request is ending it
            return
        session.ending = True
        self.ended += 1
        delivered = False

        async def receive() -> Message:
            nonlocal delivered
            if delivered:
                return {"type": "http.disconnect"}
            delivered = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            pass

        try:
            # a session the SDK already ended answers 404; a server shutting down raises
            with contextlib.suppress(Exception):
                await self.app(dict(session.template), receive, discard)
        finally:
            self.sessions.pop(session_id, None)

    async def _use(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        """A request in a session: count it open while it runs; forget the session when
        the answer says it is gone (``404``) or ended (``DELETE``)."""
        session = self.sessions.get(session_id)
        if session is None or session.peer != _peer(scope):
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        counter = "gets_open" if method == "GET" else "posts_open"
        setattr(session, counter, getattr(session, counter) + 1)
        session.requests += 1
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            setattr(session, counter, getattr(session, counter) - 1)
            session.last_active = self.clock()
            if status == 404 or (method == "DELETE" and status < 400):
                self.sessions.pop(session_id, None)


async def whole_body(receive: Receive) -> Receive | None:
    """Read the request's whole body; a ``receive`` that hands it over again, then goes
    on with ``receive`` (``None`` when the client disconnected first)."""
    read = await read_body(receive)
    return None if read is None else read[1]


async def read_body(receive: Receive) -> tuple[bytes, Receive] | None:
    """The request's whole body, and a ``receive`` that hands it over again, then goes on
    with ``receive`` (``None`` when the client disconnected first)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    whole = b"".join(chunks)
    body: list[Message] = [{"type": "http.request", "body": whole, "more_body": False}]

    async def replay() -> Message:
        return body.pop() if body else await receive()

    return whole, replay


def _header(message: Any, name: bytes) -> str | None:
    for key, value in message.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _peer(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else ""


def _delete_scope(scope: Scope, session_id: str) -> dict[str, Any]:
    """A ``DELETE`` of ``session_id`` made from the request ``scope`` that opened it."""
    kept = [(key, value) for key, value in scope["headers"]
            if key.lower() in (b"host", b"mcp-protocol-version")]
    return {**{key: value for key, value in scope.items() if key not in ("headers", "state")},
            "method": "DELETE", "headers": [*kept, (_SESSION_HEADER, session_id.encode())]}


async def _too_many(scope: Scope, receive: Receive, send: Send) -> None:
    from starlette.responses import JSONResponse

    await JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
        "code": -32603, "message": "Too many open sessions: every session of this client is "
                                   "busy with a request"}}, status_code=503)(scope, receive, send)
