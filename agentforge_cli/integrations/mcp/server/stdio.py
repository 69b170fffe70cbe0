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
server waiting for input; :class:`WireWriter` writes the answers, on the event loop when
a write cannot block, else in a worker thread.

Importing this module loads only the standard library; :func:`draining` imports ``anyio``
and the SDK's message types.
"""

from __future__ import annotations

import asyncio
import codecs
import collections
import contextlib
import io
import os
import select
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

__all__ = ["LineReader", "Wire", "WireWriter", "claim_stdio", "draining"]


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
    for stream in filter(None, (saved_stdout, sys.__stdout__)):  # __stdout__ may be None
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
        for stream in filter(None, (sys.stdout, saved_stdout, sys.__stdout__)):
            with contextlib.suppress(AttributeError, ValueError, OSError):
                stream.flush()  # a print still buffered belongs to stderr
        sys.stdout = saved_stdout
        os.dup2(wire_out, 1)
        os.dup2(wire_in, 0)
        os.close(wire_out)
        # wire_in stays open: a worker thread may still be blocked reading it (Ctrl-C),
        # and a descriptor closed and reused under it would feed it someone else's data.


LINE_LIMIT = 1 << 26
"""Characters in one line from the client, at most (64 MiB); a longer line is skipped
and answered ``-32600``."""
TOO_LONG = "\x00agentforge: a line over the limit\n"
"""What :class:`LineReader` hands over for a line over its limit (not JSON, so the SDK
passes it on as a parse error, which :func:`draining` answers)."""


class LineReader:
    """The client's lines (``async for line in LineReader(wire.reader)``), read by one
    daemon thread.

    A blocking read cannot be cancelled: read in a worker thread of the event loop, it
    kept Ctrl-C from stopping a server waiting at a terminal, and a read still blocked
    kept the process from exiting. The daemon thread reads what the pipe holds (up to
    64 KiB at a time) and hands the whole lines over together when the loop asks for
    the next, so a burst of requests costs one hand-over, not one per line, and a flood
    of input waits in the pipe, not in memory. Lines are decoded as a text file reads
    them: UTF-8 with errors replaced, universal newlines. A line longer than ``limit``
    characters (:data:`LINE_LIMIT`) is not kept: :data:`TOO_LONG` stands for it.
    """

    __slots__ = ("_batch", "_binary", "_lines", "_taken", "last", "limit")

    def __init__(self, binary: BinaryIO, limit: int = LINE_LIMIT) -> None:
        self._binary = binary
        self.limit = limit
        self._lines: Any = None
        self._batch: collections.deque[str | None] = collections.deque()
        self._taken = threading.Semaphore(1)  # the loop has taken the last batch
        self.last: str | None = None
        """The line handed over last (the SDK reads the next once the server took what
        it made of this one: :func:`draining` reads it)."""

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        if not self._batch:
            if self._lines is None:
                self._lines = asyncio.Queue()
                threading.Thread(target=self._pump, args=(asyncio.get_running_loop(),),
                                 name="agentforge-stdin", daemon=True).start()
            self._batch.extend(await self._lines.get())
            self._taken.release()
        line = self._batch.popleft()
        if line is None:
            self._batch.append(None)  # the end stays the end
            raise StopAsyncIteration
        self.last = line
        return line

    def _pump(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read lines in linear time: the pieces of a line are joined once, at its end;
        a line longer than ``limit`` is skipped as it comes and handed over as
        :data:`TOO_LONG`."""
        decoder = io.IncrementalNewlineDecoder(
            codecs.getincrementaldecoder("utf-8")(errors="replace"), translate=True)
        read = getattr(self._binary, "read1", self._binary.read)
        pieces: list[str] = []  # the line so far (empty while one too long is skipped)
        size = 0  # its length; -1 while skipping
        try:
            while chunk := read(_CHUNK):
                text = decoder.decode(chunk)
                lines: list[str | None] = []
                start = 0
                while (end := text.find("\n", start)) >= 0:
                    lines.append(self._line(pieces, size, text[start:end + 1]))
                    pieces, size, start = [], 0, end + 1
                if start < len(text) and size >= 0:
                    size += len(text) - start
                    pieces.append(text[start:])
                    if size > self.limit:
                        pieces, size = [], -1  # too long: skip to its end
                if lines:
                    self._hand_over(loop, lines)
            rest = decoder.decode(b"", final=True)
            last = self._line(pieces, size, rest) if pieces or rest or size < 0 else None
            self._hand_over(loop, [last, None] if last else [None])  # EOF
        except (RuntimeError, OSError, ValueError):
            pass  # the loop is gone or closing (the server stopped), or stdin broke

    def _line(self, pieces: list[str], size: int, end: str) -> str:
        if size < 0 or size + len(end) > self.limit + 1:  # the newline does not count
            return TOO_LONG
        pieces.append(end)
        return "".join(pieces)

    def _hand_over(self, loop: asyncio.AbstractEventLoop, lines: list[str | None]) -> None:
        self._taken.acquire()  # one batch waits for the loop at most
        loop.call_soon_threadsafe(self._lines.put_nowait, lines)


_CHUNK = 1 << 16
"""How much of stdin the reader thread takes at a time."""

class WireWriter:
    """The protocol's output as the SDK's stdio transport writes it (``await
    write(text)``, ``await flush()``), without a thread per message where it can.

    A message that fits in the pipe now (at most ``PIPE_BUF`` bytes, and the descriptor
    polls writable) is written on the event loop: such a write never blocks. Anything
    else — a larger message, a full pipe, a stream that cannot be polled — is written
    by a worker thread, as ``anyio.wrap_file`` does, so a client that reads slowly never
    holds up the loop.
    """

    __slots__ = ("_binary", "_pending", "_poll")

    def __init__(self, binary: BinaryIO) -> None:
        self._binary = binary
        self._pending: list[bytes] = []
        self._poll: Any = None
        try:
            self._poll = select.poll()
            self._poll.register(binary.fileno(), select.POLLOUT)
        except (AttributeError, OSError, ValueError):
            self._poll = None  # not a descriptor (or no poll on this platform)

    async def write(self, text: str) -> None:
        self._pending.append(text.encode("utf-8"))

    async def flush(self) -> None:
        data = b"".join(self._pending)
        self._pending.clear()
        if data and len(data) <= _PIPE_BUF and self._writable_now():
            self._write(data)
            return
        import anyio

        await anyio.to_thread.run_sync(self._write, data)

    def _writable_now(self) -> bool:
        return self._poll is not None and bool(self._poll.poll(0))

    def _write(self, data: bytes) -> None:
        self._binary.write(data)
        self._binary.flush()


_PIPE_BUF = getattr(select, "PIPE_BUF", 512)
"""Bytes a pipe that polls writable takes in one write without blocking (4 096 on
Linux; POSIX guarantees 512)."""


# ---------------------------------------------------------------- answering at EOF


OPEN_LIMIT = 256
"""Requests read and not answered yet, at most: past it, no more are read until one is
answered (a client that sends without reading cannot grow the server without bound)."""
WRITE_QUEUE = 16
"""Messages waiting to be written to the client, at most: while that many wait (the
client is not reading its answers), no more requests are read."""


class _Ledger:
    """The ids of the requests read and neither answered nor cancelled yet, and the
    messages waiting to be written: whether there is room to read another request."""

    __slots__ = ("_answers", "_cancelled_id", "_event", "_idle", "_notification", "_reader",
                 "_request", "_room", "open", "writing")

    def __init__(self, reader: LineReader | None = None) -> None:
        self._reader = reader
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
        self._room: Any = None
        self.open: set[Any] = set()
        self.writing = 0

    def read(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, self._request):
            self.open.add(message.id)
        elif (isinstance(message, self._notification)
              and message.method == "notifications/cancelled"):
            # The SDK never answers a cancelled request: stop waiting for it.
            self._settle(self._cancelled_id(message.params))

    def refusal(self, item: Any) -> Any:
        """The error message answering ``item`` instead of the server, or ``None``."""
        if isinstance(item, Exception):
            if _is_blank(item):
                return None  # an empty line: nothing was asked
            code, text, request_id = _unreadable(item)
        else:
            message = getattr(item, "message", None)
            invalid = self._invalid_id(message)
            if invalid is not None:
                code, text, request_id = _INVALID_REQUEST, invalid, None
            elif not isinstance(message, self._request) or message.id not in self.open:
                return None
            else:
                code, request_id = _INVALID_REQUEST, message.id
                text = f"Invalid request: a request with id {message.id!r} is already in flight"
        from mcp.shared.message import SessionMessage
        from mcp.types import ErrorData, JSONRPCError

        return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id,
                                           error=ErrorData(code=code, message=text)))

    def _invalid_id(self, message: Any) -> str | None:
        """Why ``message``, read as a notification, is a request with an id that is
        neither a string nor an integer (the SDK drops such an id), or ``None``."""
        line = self._reader.last if self._reader is not None else None
        if line is None or type(message) is not self._notification:
            return None
        from agentforge_cli.integrations.mcp.server.jsonrpc_ids import invalid_id

        return invalid_id(line)

    def written(self, item: Any) -> None:
        self.writing -= 1
        message = getattr(item, "message", None)
        if isinstance(message, self._answers):
            self._settle(message.id)
        self._make_room()

    def _settle(self, request_id: Any) -> None:
        self.open.discard(request_id)
        if not self.open and self._idle is not None:
            self._idle.set()
        self._make_room()

    def _full(self) -> bool:
        return len(self.open) >= OPEN_LIMIT or self.writing >= WRITE_QUEUE

    def _make_room(self) -> None:
        if self._room is not None and not self._full():
            self._room.set()

    async def room(self) -> None:
        """Return once another request may be read (back-pressure: see
        :data:`OPEN_LIMIT` and :data:`WRITE_QUEUE`)."""
        while self._full():
            self._room = self._event()
            await self._room.wait()

    async def answered(self) -> None:
        """Return once every request read has been answered or cancelled."""
        while self.open:
            self._idle = self._event()
            await self._idle.wait()


_PARSE_ERROR = -32700
_INVALID_REQUEST = -32600


def _errors(exc: Exception) -> list[dict[str, Any]]:
    try:
        return list(exc.errors())  # type: ignore[attr-defined]  # pydantic's
    except Exception:
        return []


def _is_blank(exc: Exception) -> bool:
    errors = _errors(exc)
    return bool(errors) and errors[0].get("type") == "json_invalid" and str(
        errors[0].get("input", "x")).strip() == ""


def _unreadable(exc: Exception) -> tuple[int, str, Any]:
    """Code, message and id of the error answering a line the SDK could not read."""
    errors = _errors(exc)
    if errors and errors[0].get("input") == TOO_LONG:
        return (_INVALID_REQUEST, f"Invalid request: the line is longer than the limit of "
                f"{LINE_LIMIT} characters; it was skipped", None)
    if not errors or any(error.get("type") == "json_invalid" for error in errors):
        return _PARSE_ERROR, "Parse error: the line is not JSON (or nested too deep)", None
    value = errors[0].get("input")
    if type(value) is list:
        return _INVALID_REQUEST, "Invalid request: batches are not supported", None
    request_id = value.get("id") if type(value) is dict else None
    if type(request_id) not in (int, str):
        request_id = None
    return _INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message", request_id


class _DrainingReader:
    """The transport's read stream; its end comes only once every request is answered.

    A line the SDK could not read as a message (it hands the server an exception, which
    the server only logs) is answered here, as JSON-RPC requires: ``-32700`` for text that
    is not JSON or is nested too deep for the parser, ``-32600`` for JSON that is not one
    request (a batch, a number, an object without ``method``), with the request's id when
    it has one. A request reusing the id of one still in flight is refused (``-32600``)
    rather than let one of the two answers be lost.
    """

    __slots__ = ("_end", "_inner", "_ledger", "_reply")

    def __init__(self, inner: Any, ledger: _Ledger, reply: Any = None) -> None:
        import anyio

        self._inner = inner
        self._ledger = ledger
        self._reply = reply  # where a refused line's error goes (the write stream)
        self._end = anyio.EndOfStream

    @property
    def last_context(self) -> Any:  # the sender's context, which the SDK restores
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            await self._ledger.room()
            try:
                item = await self._inner.receive()
            except self._end:
                await self._ledger.answered()
                raise
            refusal = self._ledger.refusal(item)
            if refusal is None:
                self._ledger.read(item)
                return item
            if self._reply is not None:
                await self._reply.send(refusal)

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
        self._ledger.writing += 1
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


def draining(read_stream: Any, write_stream: Any, reader: LineReader | None = None
             ) -> tuple[Any, Any]:
    """The transport's ``(read_stream, write_stream)`` made to answer every request read
    before the server sees the end of input, and every line that is not a request
    (``reader``: the lines the SDK reads, to tell a request with an invalid id, which
    the SDK reads as a notification)."""
    ledger = _Ledger(reader)
    # a refusal goes straight out: it settles no request (its id may be one in flight)
    return (_DrainingReader(read_stream, ledger, write_stream),
            _AnsweringWriter(write_stream, ledger))
