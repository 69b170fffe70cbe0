"""Connection limits of ``agentforge serve --transport http``: a client that opens
connections and never finishes a request cannot lock the others out.

uvicorn keeps a connection that sent part of a request (or nothing) for as long as the
client keeps it open, so a few hundred of them exhaust the process's file descriptors and
no one else is accepted. Here, with :func:`protocol_class` as uvicorn's HTTP protocol:

* a request must arrive whole (headers and body) within :data:`READ_TIMEOUT` seconds of
  its first byte, and a new connection must send one within that time; past it the
  connection is closed (between requests, uvicorn's keep-alive timeout applies);
* at most :func:`reading_limit` connections are being read at once; a new one past it
  closes the one that has been reading longest;
* running out of descriptors (``EMFILE``) is said once on stderr, then at most once a
  minute with a count, and closes the oldest half of the connections being read, so the
  server accepts again (asyncio retries a second later). asyncio schedules a retry per
  failed ``accept`` (up to the listen backlog at once, :data:`BACKLOG` here); one that
  comes after the server closed fails, and is not reported.
"""

from __future__ import annotations

import asyncio
import errno
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "BACKLOG",
    "READING_LIMIT",
    "READ_TIMEOUT",
    "ReadingConnections",
    "protocol_class",
    "reading_limit",
]

READ_TIMEOUT = 10.0
"""Seconds a request has to arrive whole, from its first byte (or from the connection)."""
READING_LIMIT = 256
"""Connections read at once, at most (fewer when the descriptor limit is low)."""
BACKLOG = 128
"""Connections waiting to be accepted, at most (also how many accepts asyncio tries, and
retries after ``EMFILE``, at a time)."""
REPORT_EVERY = 60.0
"""Seconds between two reports of running out of descriptors."""
_OUT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def reading_limit() -> int:
    """:data:`READING_LIMIT`, or half the soft ``RLIMIT_NOFILE`` when that is less."""
    try:
        import resource
    except ImportError:  # Windows has no descriptor limit to ask for
        return READING_LIMIT
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return READING_LIMIT
    return max(1, min(READING_LIMIT, soft // 2))


@dataclass(kw_only=True)
class ReadingConnections:
    """The connections whose request has not arrived whole yet, oldest first, each with
    the timer that closes it."""

    limit: int
    timeout: float = READ_TIMEOUT
    say: Any = print
    """Where the reports go (one line of text)."""
    clock: Any = time.monotonic
    waiting: dict[Any, asyncio.TimerHandle] = field(default_factory=dict)
    refused: int = 0
    """Connections not accepted for want of descriptors since the last report."""
    reported: float | None = None

    def start(self, connection: Any) -> None:
        """``connection`` is being read: close it unless it is done within the timeout."""
        if connection in self.waiting:
            return
        if len(self.waiting) >= self.limit:
            self.close_oldest(1)
        loop = asyncio.get_running_loop()
        self.waiting[connection] = loop.call_later(self.timeout, connection.transport.close)

    def stop(self, connection: Any) -> None:
        """``connection``'s request arrived whole, or it closed."""
        timer = self.waiting.pop(connection, None)
        if timer is not None:
            timer.cancel()

    def close_oldest(self, count: int) -> None:
        for connection in list(self.waiting)[:count]:
            self.stop(connection)
            connection.transport.close()

    def exception_handler(self, loop: asyncio.AbstractEventLoop,
                          context: dict[str, Any]) -> None:
        """The loop's exception handler: running out of descriptors while accepting is
        reported (rate-limited) and makes room; anything else goes to the default."""
        exc = context.get("exception")
        if _retried_accept(context) and exc is not None:
            return  # a retry of accepting, on a server that closed since: nothing to say
        if not (isinstance(exc, OSError) and exc.errno in _OUT_OF_DESCRIPTORS
                and "accept" in str(context.get("message", ""))):
            loop.default_exception_handler(context)
            return
        self.refused += 1
        self.close_oldest(max(1, len(self.waiting) // 2))
        now = self.clock()
        if self.reported is None or now - self.reported >= REPORT_EVERY:
            first = self.reported is None
            self.reported, count, self.refused = now, self.refused, 0
            self.say(f"cannot accept connections: out of file descriptors ({exc.strerror}); "
                     "closing the oldest connections that have not sent a whole request"
                     + ("" if first else f" ({count} times in the last {REPORT_EVERY:g} s)"))


def _retried_accept(context: dict[str, Any]) -> bool:
    """Whether the failed callback is asyncio's retry of accepting (scheduled a second
    after each ``EMFILE``; it fails once the server has closed its socket)."""
    callback = getattr(context.get("handle"), "_callback", None)
    return getattr(callback, "__name__", "") == "_start_serving"


def protocol_class(reading: ReadingConnections) -> type[H11Protocol]:
    """uvicorn's h11 protocol, its connections bounded by ``reading``."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class ReadDeadlineProtocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # a Transport, as uvicorn narrows it
            super().connection_made(transport)
            reading.start(self)

        def connection_lost(self, exc: Exception | None) -> None:
            reading.stop(self)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._track()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._track()

        def _track(self) -> None:
            # a body arriving, or headers of a first or pipelined request
            state = self.conn.their_state
            if state is h11.SEND_BODY or (state is h11.IDLE and (
                    self.cycle is None or bool(self.conn.trailing_data[0]))):
                if not self.transport.is_closing():
                    reading.start(self)
            else:
                reading.stop(self)

    return ReadDeadlineProtocol
