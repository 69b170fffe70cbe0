"""The stdio side of ``agentforge serve``: who may write to stdout, and answering at EOF.

:func:`claim_stdio` makes stdout the protocol stream at the file-descriptor level. It moves
the process's stdin and stdout to private descriptors (the :class:`Wire`) and points fd 1
at stderr, fd 0 at the null device and ``sys.stdout`` at ``sys.stderr``: whatever a tool
prints — ``print``, ``sys.stdout.write``, ``os.write(1, ...)``, a child process — lands on
stderr, and nothing the tool reads steals the client's messages. ``agentforge serve``
claims before it loads the targets, so a print at import time is caught too.

:func:`draining` wraps the transport's streams so that the server answers every request it
has read: when stdin closes, the end of input is held back until each request read is
answered (or cancelled by the client with ``notifications/cancelled``, which the SDK never
answers). Without it the SDK cancels the calls still running at EOF.

:class:`LineReader` reads the client's lines in a daemon thread, so that Ctrl-C stops a
server waiting for input.

Importing this module loads only the standard library; :func:`draining` imports ``anyio``
and the SDK's message types.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import io
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

__all__ = ["LineReader", "Wire", "claim_stdio", "draining"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Wire:
    """The protocol's own ends of the process's stdin and stdout."""

    reader: BinaryIO
    """What the client sends (the original stdin)."""
    writer: BinaryIO
    """Where the protocol goes (the original stdout); nothing else writes here."""
    interactive: bool
    """The original stdin is a terminal (nobody is speaking the protocol yet)."""


def _private_copy(fd: int) -> int:
    """Duplicate ``fd`` above the standard descriptors, not inherited by child processes."""
    try:
        import fcntl
    except ImportError:  # Windows: os.dup's copy is not inheritable either
        return os.dup(fd)
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


@contextlib.contextmanager
def claim_stdio() -> Iterator[Wire]:
    """Reserve stdin and stdout for the protocol until the block ends (see the module
    docstring); everything is put back on exit."""
    saved_stdout = sys.stdout
    for stream in (saved_stdout, sys.__stdout__):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.flush()  # what was printed before serving goes where it was meant to
    wire_in, wire_out = _private_copy(0), _private_copy(1)
    interactive = os.isatty(wire_in)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    sys.stdout = sys.stderr
    writer = os.fdopen(wire_out, "wb", closefd=False)
    try:
        yield Wire(reader=os.fdopen(wire_in, "rb", closefd=False), writer=writer,
                   interactive=interactive)
    finally:
        with contextlib.suppress(OSError, ValueError):
            writer.close()  # flushed; a wrapper closed later writes nothing to a reused fd
        for stream in (sys.stdout, saved_stdout, sys.__stdout__):
            with contextlib.suppress(AttributeError, ValueError, OSError):
                stream.flush()  # a print still buffered belongs to stderr
        sys.stdout = saved_stdout
        os.dup2(wire_out, 1)
        os.dup2(wire_in, 0)
        os.close(wire_out)
        # wire_in stays open: a worker thread may still be blocked reading it (Ctrl-C),
        # and a descriptor closed and reused under it would feed it someone else's data.


class LineReader:
    """The client's lines (``async for line in LineReader(wire.reader)``), read by one
    daemon thread.

    A blocking read cannot be cancelled: read in a worker thread of the event loop, it
    kept Ctrl-C from stopping a server waiting at a terminal, and a read still blocked
    kept the process from exiting. The daemon thread hands each line over when the loop
    asks for the next (so a flood of input waits in the pipe, not in memory).
    """

    __slots__ = ("_binary", "_lines")

    def __init__(self, binary: BinaryIO) -> None:
        self._binary = binary
        self._lines: Any = None

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        if self._lines is None:
            self._lines = asyncio.Queue(maxsize=1)
            threading.Thread(target=self._pump, args=(asyncio.get_running_loop(),),
                             name="agentforge-stdin", daemon=True).start()
        line = await self._lines.get()
        if line is None:
            raise StopAsyncIteration
        return line

    def _pump(self, loop: asyncio.AbstractEventLoop) -> None:
        text = io.TextIOWrapper(self._binary, encoding="utf-8", errors="replace")
        try:
            for line in text:
                asyncio.run_coroutine_threadsafe(self._lines.put(line), loop).result()
            asyncio.run_coroutine_threadsafe(self._lines.put(None), loop).result()  # EOF
        except (RuntimeError, OSError, ValueError, concurrent.futures.CancelledError):
            pass  # the loop is gone or closing (the server stopped), or stdin broke


# ---------------------------------------------------------------- answering at EOF


class _Ledger:
    """The ids of the requests read and neither answered nor cancelled yet."""

    __slots__ = ("_answers", "_cancelled_id", "_event", "_idle", "_notification", "_request",
                 "open")

    def __init__(self) -> None:
        import anyio
        from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
        from mcp.types import (
            JSONRPCError,
            JSONRPCNotification,
            JSONRPCRequest,
            JSONRPCResponse,
        )

        self._request = JSONRPCRequest
        self._notification = JSONRPCNotification
        self._answers = (JSONRPCResponse, JSONRPCError)
        self._cancelled_id = cancelled_request_id_from_params
        self._event = anyio.Event
        self._idle: Any = None
        self.open: set[Any] = set()

    def read(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, self._request):
            self.open.add(message.id)
        elif (isinstance(message, self._notification)
              and message.method == "notifications/cancelled"):
            # The SDK never answers a cancelled request: stop waiting for it.
            self._settle(self._cancelled_id(message.params))

    def written(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, self._answers):
            self._settle(message.id)

    def _settle(self, request_id: Any) -> None:
        self.open.discard(request_id)
        if not self.open and self._idle is not None:
            self._idle.set()

    async def answered(self) -> None:
        """Return once every request read has been answered or cancelled."""
        while self.open:
            self._idle = self._event()
            await self._idle.wait()


class _DrainingReader:
    """The transport's read stream; its end comes only once every request is answered."""

    __slots__ = ("_end", "_inner", "_ledger")

    def __init__(self, inner: Any, ledger: _Ledger) -> None:
        import anyio

        self._inner = inner
        self._ledger = ledger
        self._end = anyio.EndOfStream

    @property
    def last_context(self) -> Any:  # the sender's context, which the SDK restores
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            item = await self._inner.receive()
        except self._end:
            await self._ledger.answered()
            raise
        self._ledger.read(item)
        return item

    def __aiter__(self) -> _DrainingReader:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except self._end:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _DrainingReader:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _AnsweringWriter:
    """The transport's write stream; each response sent settles its request."""

    __slots__ = ("_inner", "_ledger")

    def __init__(self, inner: Any, ledger: _Ledger) -> None:
        self._inner = inner
        self._ledger = ledger

    async def send(self, item: Any) -> None:
        try:
            await self._inner.send(item)
        finally:
            self._ledger.written(item)

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _AnsweringWriter:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def draining(read_stream: Any, write_stream: Any) -> tuple[Any, Any]:
    """The transport's ``(read_stream, write_stream)`` made to answer every request read
    before the server sees the end of input."""
    ledger = _Ledger()
    return _DrainingReader(read_stream, ledger), _AnsweringWriter(write_stream, ledger)
