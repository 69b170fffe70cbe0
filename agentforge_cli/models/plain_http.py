"""The transport that sends to a plain ``http://`` server (a local model: Ollama, vLLM,
llama.cpp's server, a test's server), on the standard library's ``http.client``.

A local model answers in tens of milliseconds, so what the client spends per request
shows: ``httpcore`` and ``h11`` take about 0.6 ms of CPU a request, ``http.client``
about 0.2 ms. The SDK above is unchanged (its headers, retries, timeouts and errors):
this transport sends the request it built, byte for byte, and answers with the HTTP
library's own response and exceptions, as the library's transport would
(``ConnectError``, ``ConnectTimeout``, ``WriteTimeout``, ``ReadTimeout``,
``RemoteProtocolError``...), so the SDK retries what it retries. ``https://`` keeps the
library's own transport (TLS, certificates, HTTP/2 where asked).

Connections are kept alive, at most ``KEEP`` idle per server for ``KEEP_SECONDS`` (as the
library's own transport does); one the server has closed in the meantime is noticed
before it is used (it reads as ready) and dropped.
"""

from __future__ import annotations

import re
import select
import socket
import threading
import time
from http.client import HTTPException, HTTPResponse, RemoteDisconnected
from typing import Any

__all__ = ["plain_transport_class"]

KEEP = 20
"""Idle connections kept per server."""
KEEP_SECONDS = 5.0
"""How long a connection is kept idle."""
_BREAKS = re.compile(rb"[\r\n\0]")
"""What no header may hold (a request could be smuggled in)."""


def _stale(sock: socket.socket) -> bool:
    """The server closed the idle connection (or sent something unasked)."""
    try:
        if hasattr(select, "poll"):  # no limit on the descriptor's number
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return bool(poller.poll(0))
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _head(request: Any, body: bytes) -> bytes | None:
    """The request line and headers as sent (``None``: a header holds a line break)."""
    lines = [b"%s %s HTTP/1.1" % (request.method.encode("ascii"), request.url.raw_path)]
    length = False
    for name, value in request.headers.raw:
        lowered = name.lower()
        if lowered == b"transfer-encoding":  # the body is read already: sent with a length
            continue
        length = length or lowered == b"content-length"
        if _BREAKS.search(name) or _BREAKS.search(value):
            return None
        lines.append(b"%s: %s" % (name, value))
    if not length:
        lines.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(lines) + b"\r\n\r\n"


def plain_transport_class(http: Any) -> Any:
    """A transport class of the HTTP library ``http`` (``httpx`` or ``httpx2``) that
    sends on a socket and reads the answer with ``http.client``."""

    class PlainTransport(http.BaseTransport):  # type: ignore[misc]  # a base made per library
        def __init__(self) -> None:
            self._idle: dict[tuple[str, int], list[tuple[socket.socket, float]]] = {}
            """Per server, its idle connections and when each was given back."""
            self._lock = threading.Lock()
            self._closed = False

        def handle_request(self, request: Any) -> Any:
            body = request.read()  # the SDK's body is bytes already; a stream is read
            head = _head(request, body)
            if head is None:
                raise http.LocalProtocolError("a header holds a line break", request=request)
            timeout = request.extensions.get("timeout") or {}
            where = (request.url.host, request.url.port or 80)
            sock = self._take(where) or self._connect(request, where, timeout.get("connect"))
            try:
                self._send(sock, request, head + body, timeout.get("write"))
                response, will_close = self._receive(sock, request, timeout.get("read"))
            except BaseException:
                sock.close()
                raise
            if will_close:
                sock.close()
            else:
                self._give_back(where, sock)
            return response

        def _take(self, where: tuple[str, int]) -> socket.socket | None:
            now = time.monotonic()
            with self._lock:
                idle = self._idle.get(where) or []
                while idle:
                    sock, since = idle.pop()
                    if now - since < KEEP_SECONDS and not _stale(sock):
                        return sock
                    sock.close()
            return None

        def _give_back(self, where: tuple[str, int], sock: socket.socket) -> None:
            with self._lock:
                idle = self._idle.setdefault(where, [])
                if len(idle) < KEEP and not self._closed:  # (an answer read after close)
                    idle.append((sock, time.monotonic()))
                    return
            sock.close()

        @staticmethod
        def _connect(request: Any, where: tuple[str, int],
                     seconds: float | None) -> socket.socket:
            try:
                sock = socket.create_connection(where, timeout=seconds)
            except TimeoutError as exc:
                raise http.ConnectTimeout(str(exc) or "timed out", request=request) from exc
            except OSError as exc:
                raise http.ConnectError(str(exc), request=request) from exc
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock

        @staticmethod
        def _send(sock: socket.socket, request: Any, data: bytes,
                  seconds: float | None) -> None:
            sock.settimeout(seconds)
            try:
                sock.sendall(data)  # headers and body in one write
            except TimeoutError as exc:
                raise http.WriteTimeout(str(exc) or "timed out", request=request) from exc
            except OSError as exc:
                raise http.WriteError(str(exc), request=request) from exc

        @staticmethod
        def _receive(sock: socket.socket, request: Any, seconds: float | None
                     ) -> tuple[Any, bool]:
            sock.settimeout(seconds)
            raw = HTTPResponse(sock, method=request.method)
            try:
                raw.begin()
                body = raw.read()
            except TimeoutError as exc:
                raise http.ReadTimeout(str(exc) or "timed out", request=request) from exc
            except RemoteDisconnected as exc:
                raise http.RemoteProtocolError(
                    "Server disconnected without sending a response.", request=request,
                ) from exc
            except HTTPException as exc:
                raise http.RemoteProtocolError(str(exc) or type(exc).__name__,
                                               request=request) from exc
            except OSError as exc:
                raise http.ReadError(str(exc), request=request) from exc
            finally:
                raw.close()  # its file; the socket stays open
            response = http.Response(
                raw.status, headers=raw.getheaders(), stream=http.ByteStream(body),
                extensions={"http_version": b"HTTP/1.1",
                            "reason_phrase": raw.reason.encode("latin-1", "replace")})
            return response, bool(raw.will_close)

        def close(self) -> None:
            with self._lock:
                self._closed = True
                idle = [sock for socks in self._idle.values() for sock, _ in socks]
                self._idle.clear()
            for sock in idle:
                sock.close()

    return PlainTransport
