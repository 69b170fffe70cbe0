"""``agentforge record``: a transparent stdio proxy in front of an MCP server that writes
the session down as it passes.

A client starts the proxy instead of the server. The proxy starts the server and copies
every line both ways unchanged and in order (requests, responses, notifications,
cancellations, progress, the server's own requests), and appends each JSON-RPC message to
the session log as one JSONL line::

    {"direction":"client_to_server","timestamp":"2026-12-01T10:00:00.123Z","message":{...}}

which ``agentforge replay`` reads as an MCP session. Each line is written and flushed just
before its end is forwarded, so the log holds the messages in the order they passed (an
answer never before its request), and a killed proxy loses at most the message in flight.
Lines that are not JSON, and lines longer than :data:`MAX_RECORDED_BYTES`, are forwarded
but not written (counted on standard error at the end). The server's standard error is the proxy's.

Secrets never reach the log unless asked (``mask=False``), in a single message or a batch:
the values of ``tools/call`` arguments and of an elicitation answer's fields named like a
secret (:mod:`~agentforge_cli.core.observe.masking`), the credentials of the URLs a
client lists as roots, and the values given to the server
(:func:`~agentforge_cli.core.observe.masking.secret_values`)
wherever they appear are written as ``***``. Tool results are written as the server sent
them (docs/reliability.md, "Security model", says why).
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import signal
import stat
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from agentforge_cli.core.observe.masking import MASK, mask_url, mask_value
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.mcp.record.server_process import end_server, start_server

__all__ = ["MAX_RECORDED_BYTES", "SessionLog", "record_stdio"]

MAX_RECORDED_BYTES = 64 * 1024 * 1024
"""The longest message written to the log (a longer one is forwarded, not written)."""
_CHUNK = 1 << 20
_DRAIN_SECONDS = 5.0


class SessionLog:
    """The session log: one JSONL line a message, appended under a lock and flushed.

    Args:
        path: The file (appended to; created when missing).
        mask: Mask secrets (see the module docstring).
        secrets: Values to mask wherever they appear (from
            :func:`~agentforge_cli.core.observe.masking.secret_values`).
    """

    def __init__(self, path: Path, *, mask: bool = True, secrets: Sequence[str] = ()) -> None:
        self._path = path
        self._file = _open_regular(path)
        self._end = self._file.seek(0, os.SEEK_END)  # where the last whole line ends
        self._lock = threading.Lock()
        self._mask = mask
        self._secrets = tuple(sorted({s for s in secrets if s}, key=len, reverse=True)) \
            if mask else ()
        self.unrecorded = 0
        self.stopped = False

    def close(self) -> None:
        with self._lock:
            self._file.close()

    def hide(self, secret: str) -> None:
        """Mask ``secret`` too, wherever it appears from now on (when masking is on)."""
        if self._mask and secret and secret not in self._secrets:
            self._secrets = tuple(sorted((*self._secrets, secret), key=len, reverse=True))

    def write(self, direction: str, line: bytes, related: Any = None) -> None:
        """Append the message a forwarded line holds (or count it as not recorded);
        ``related``: the id of the client's request whose answer carried it, written
        with a request of the server's (``"related"``)."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict | list):
            self.unrecorded += 1
            return
        if self._mask:
            message = self._masked(message)
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        entry = {"direction": direction, "timestamp": stamp, "message": message}
        if related is not None and isinstance(message, dict) and "method" in message \
                and "id" in message:
            entry = {"direction": direction, "timestamp": stamp, "related": related,
                     "message": message}
        try:
            text = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()
        except UnicodeEncodeError:  # a lone surrogate: kept as its escape
            text = json.dumps(entry, separators=(",", ":")).encode()
        except RecursionError:
            self.unrecorded += 1
            return
        with self._lock:
            if self.stopped:
                self.unrecorded += 1
            else:
                self._append(text + b"\n")

    def _append(self, line: bytes) -> None:
        """Write ``line`` whole; when the file cannot take it (disk full, ``ulimit -f``),
        cut the file back to its last whole line and stop recording, once, on stderr."""
        try:
            view = memoryview(line)
            while view:
                view = view[self._file.write(view):]
            self._end += len(line)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self._file.fileno(), self._end)
            self.stopped = True
            self.unrecorded += 1
            print(f"agentforge record: recording stopped: cannot write to {self._path}: "
                  f"{exc.strerror or exc}; the session goes on, not written to the log "
                  f"(it ends on its last whole message)", file=sys.stderr, flush=True)

    def _masked(self, message: Any) -> Any:
        if isinstance(message, list):  # a JSON-RPC batch
            message = [_masked_message(item) for item in message]
        else:
            message = _masked_message(message)
        return _without(message, self._secrets) if self._secrets else message


def _masked_message(message: Any) -> Any:
    """One JSON-RPC message with the secrets its shape tells of masked: ``tools/call``
    arguments, an elicitation answer's fields, the URLs of the roots a client lists; the
    answers a 2026-07-28 call carries when it is sent again (``inputResponses``) as the
    answers sent on their own."""
    if not isinstance(message, dict):
        return message
    params, result = message.get("params"), message.get("result")
    if message.get("method") == "tools/call" and isinstance(params, dict):
        masked = dict(params)
        if isinstance(params.get("arguments"), dict):
            masked["arguments"] = mask_value(params["arguments"])
        if isinstance(params.get("inputResponses"), dict):
            masked["inputResponses"] = {key: _masked_answer(answer) for key, answer
                                        in params["inputResponses"].items()}
        return {**message, "params": masked}
    if isinstance(result, dict):
        return {**message, "result": _masked_answer(result)}
    return message


def _masked_answer(result: Any) -> Any:
    """A client's answer to its server's request, its secrets masked: an elicitation
    answer's fields named like a secret, the credentials of the roots' URLs."""
    if isinstance(result, dict) and isinstance(result.get("content"), dict):
        # only an elicitation answer's content is an object (a tool result's is a list)
        return {**result, "content": mask_value(result["content"])}
    if isinstance(result, dict) and isinstance(result.get("roots"), list):
        roots = [{**root, "uri": mask_url(root["uri"])}
                 if isinstance(root, dict) and isinstance(root.get("uri"), str) else root
                 for root in result["roots"]]
        return {**result, "roots": roots}
    return result


def _open_regular(path: Path) -> io.FileIO:
    """``path`` opened for appending, unbuffered; never waits (a FIFO).

    Raises:
        OSError: It cannot be opened, or is not a regular file.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        if exc.errno != errno.ENXIO:  # ENXIO: a FIFO no one reads
            raise
        fd = -1
    if fd < 0 or not stat.S_ISREG(os.fstat(fd).st_mode):
        if fd >= 0:
            os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file (a session log is appended to)")
    os.set_blocking(fd, True)
    return io.FileIO(fd, "ab")


def _without(value: Any, secrets: tuple[str, ...]) -> Any:
    """``value`` with each secret replaced by ``***`` in every string it holds."""
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, MASK)
        return value
    if isinstance(value, dict):
        return {key: _without(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_without(item, secrets) for item in value]
    return value


def _pump(source: IO[bytes], sink: IO[bytes], direction: str, log: SessionLog,
          closed: threading.Event) -> None:
    """Copy lines from ``source`` to ``sink`` until either end closes, writing each to
    the log just before its last chunk is forwarded: no answer can reach the other side,
    and so be logged, before the line it answers was logged."""
    pending = b""
    too_long = False
    try:
        while chunk := source.readline(_CHUNK):
            complete = chunk.endswith(b"\n")
            if too_long:
                too_long = not complete
            else:
                pending += chunk
                if len(pending) > MAX_RECORDED_BYTES:
                    log.unrecorded += 1
                    pending, too_long = b"", not complete
                elif complete:
                    if pending.strip():
                        log.write(direction, pending)
                    pending = b""
            sink.write(chunk)
            sink.flush()
        if pending.strip():
            log.write(direction, pending)
    except (OSError, ValueError):
        pass  # the other end went away
    finally:
        closed.set()


def _exit_status(returncode: int) -> int:
    """The shell's view of a child's status: ``128 + N`` for a child killed by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def record_stdio(command: Sequence[str], log: SessionLog, *, reader: IO[bytes],
                 writer: IO[bytes], env: Mapping[str, str] | None = None,
                 cwd: Path | None = None) -> int:
    """Run ``command`` as an MCP server between ``reader``/``writer`` (the client's
    stdio) and log the session; returns the server's exit status.

    SIGTERM and SIGINT are passed on to the server; the proxy ends when the server does.
    When the client closes either end, the server's input is closed (the MCP way to ask a
    stdio server to exit) and the proxy waits for it, as the client would, within the
    bounds of :func:`~agentforge_cli.integrations.mcp.record.server_process.end_server`.

    Raises:
        TargetError: The command cannot be started.
    """
    try:
        server = start_server(command, env=env, cwd=cwd)
    except OSError as exc:
        raise TargetError(f"cannot start the MCP server {command[0]!r}: "
                          f"{exc.strerror or exc}",
                          hint="check the command after --; it is run as given") from None
    assert server.stdin is not None and server.stdout is not None
    client_gone, server_gone = threading.Event(), threading.Event()
    pumps = [threading.Thread(target=_pump, daemon=True, name="agentforge-record-in",
                              args=(reader, server.stdin, "client_to_server", log,
                                    client_gone)),
             threading.Thread(target=_pump, daemon=True, name="agentforge-record-out",
                              args=(server.stdout, writer, "server_to_client", log,
                                    server_gone))]
    previous = {sig: signal.signal(sig, lambda number, _: _forward(server, number))
                for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        for pump in pumps:
            pump.start()
        while (server.poll() is None and not client_gone.wait(0.1)
               and not server_gone.is_set()):
            pass
        if server_gone.is_set():  # nobody reads the server any more: its writes fail
            with contextlib.suppress(OSError):
                server.stdout.close()
        end_server(server)  # the client hung up: the server ends as it would, or is ended
        server_gone.wait(_DRAIN_SECONDS)  # what the server wrote last reaches the client
        if server_gone.is_set():  # read to its end: closed here, not by the collector
            with contextlib.suppress(OSError):
                server.stdout.close()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if log.unrecorded:
        print(f"agentforge record: {log.unrecorded} line(s) were not JSON-RPC messages "
              "(or too long): forwarded, not written to the log", file=sys.stderr)
    return _exit_status(server.returncode)


def _forward(server: subprocess.Popen[bytes], number: int) -> None:
    with contextlib.suppress(OSError):
        server.send_signal(number)

