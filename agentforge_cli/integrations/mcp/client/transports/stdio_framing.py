"""What an ``mcp:`` server writes, handed to the SDK's stdio client one whole line at a
time, each no longer than :data:`~agentforge_cli.integrations.mcp.server.stdio.LINE_LIMIT`.

The SDK's reader joins every chunk it reads to what it holds of the line so far, which
takes time quadratic in a line's length (a 48 MB answer: seconds; 200 MB: past any
timeout) and holds all of it. Given whole lines it does one join a line. A line past the
limit is read to its end but not kept: the client gets instead a JSON-RPC error answer,
with the id the line began with, that :data:`TOO_LARGE_CODE` marks (a line whose id
comes after its first object or array is dropped).
"""

from __future__ import annotations

import json
import re
import signal
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from agentforge_cli.integrations.mcp.server.stdio import LINE_LIMIT

__all__ = ["TOO_LARGE_CODE", "framed"]

TOO_LARGE_CODE = -32099
"""The code of the error answer given for a line past the limit (a server error code)."""
_ID_WINDOW = 4096
_TOP_ID = re.compile(rb'^\s*\{(?:[^{}\[\]]*?,)?\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


class _Lines(ByteReceiveStream):
    """A byte stream that yields whole lines of the stream it wraps (the last one may
    lack its newline)."""

    def __init__(self, stream: ByteReceiveStream) -> None:
        self._stream = stream
        self._pending = bytearray()
        self._scanned = 0  # where the search for a newline goes on
        self._head = b""  # the beginning of a line past the limit
        self._skipped = 0  # its length so far (0: no line is being skipped)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def receive(self, max_bytes: int = 65536) -> bytes:
        while True:
            end = self._pending.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._pending[:end + 1])
                del self._pending[:end + 1]
                self._scanned = 0
                if not self._skipped:
                    return line
                answer = self._too_large(len(line))
                if answer is not None:
                    return answer
                continue
            self._scanned = len(self._pending)
            if len(self._pending) > LINE_LIMIT:
                self._head = self._head or bytes(self._pending[:_ID_WINDOW])
                self._skipped += len(self._pending)
                self._pending.clear()
                self._scanned = 0
            try:
                self._pending += await self._stream.receive()
            except anyio.EndOfStream:
                rest, skipped = bytes(self._pending), self._skipped
                self._pending.clear()
                if skipped:
                    answer = self._too_large(len(rest))
                    if answer is not None:
                        return answer
                elif rest:
                    return rest  # the last line, without its newline
                raise

    def _too_large(self, tail: int) -> bytes | None:
        """The error answer to a line past the limit; ``None`` when it has no id (it is
        dropped: no request can be told)."""
        size, head = self._skipped + tail, self._head
        self._skipped, self._head = 0, b""
        found = _TOP_ID.match(head)
        if found is None:
            return None
        answer = {"jsonrpc": "2.0", "id": json.loads(found.group(1)),
                  "error": {"code": TOO_LARGE_CODE, "data": size,
                            "message": f"an answer of {size} bytes, more than the limit "
                                       f"of {LINE_LIMIT} bytes of a message"}}
        return json.dumps(answer).encode() + b"\n"


class _Framed(Process):
    """A server process whose ``stdout`` yields whole, bounded lines; the rest is the
    process's own (its private attributes too, which the SDK reads to close it)."""

    def __init__(self, process: Process, stdout: ByteReceiveStream) -> None:
        self._inner = process
        self._lines = _Lines(stdout)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def wait(self) -> int:
        return await self._inner.wait()

    def terminate(self) -> None:
        self._inner.terminate()

    def kill(self) -> None:
        self._inner.kill()

    def send_signal(self, signal: signal.Signals) -> None:
        self._inner.send_signal(signal)

    @property
    def pid(self) -> int:
        return self._inner.pid

    @property
    def returncode(self) -> int | None:
        return self._inner.returncode

    @property
    def stdin(self) -> ByteSendStream | None:
        return self._inner.stdin

    @property
    def stdout(self) -> ByteReceiveStream:
        return self._lines

    @property
    def stderr(self) -> ByteReceiveStream | None:
        return self._inner.stderr


def framed(process: Any) -> Any:
    """``process`` (the SDK's) with its output read one whole, bounded line at a time."""
    stdout = getattr(process, "stdout", None)
    if not isinstance(process, Process) or stdout is None:
        return process  # not an anyio process (Windows' fallback): as it is
    return _Framed(process, stdout)
