"""The loopback redirect of an OAuth authorization (RFC 8252): a small HTTP listener on
``127.0.0.1`` that receives the authorization server's redirect at ``/callback``, with
its ``code`` and ``state`` (or its ``error``), answers the browser with a short page and
stops.

The socket is bound when the listener is made, because the redirect URI
(``http://127.0.0.1:PORT/callback``) is registered with the authorization server before
the user is sent there; it serves only while :meth:`LoopbackCallback.wait` waits. Other
paths are answered ``404`` and do not end the wait. Nothing the listener receives is
printed or logged: the code is a credential.
"""

from __future__ import annotations

import html
import http.server
import threading
import time
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

__all__ = ["CALLBACK_PATH", "Callback", "LoopbackCallback"]

CALLBACK_PATH = "/callback"
_LOOPBACK = "127.0.0.1"
_POLL = 0.1  # seconds between two looks at the deadline while no request comes


@dataclass(frozen=True, slots=True)
class Callback:
    """What the authorization server's redirect carried."""

    code: str | None
    state: str | None
    error: str | None = None
    """``access_denied`` and the like: the authorization was refused."""
    error_description: str | None = None
    iss: str | None = None


_PAGE = ("<!doctype html><meta charset=utf-8><title>agentforge</title>"
         "<p style='font-family:sans-serif'>{}</p>")


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Listener
    timeout = 5.0  # a browser's idle connection does not hold the listener

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != CALLBACK_PATH:
            self._answer(404, "Not found.")
            return
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        callback = Callback(code=query.get("code"), state=query.get("state"),
                            error=query.get("error"),
                            error_description=query.get("error_description"),
                            iss=query.get("iss"))
        if callback.code is None and callback.error is None:
            self._answer(400, "This address takes an authorization server's redirect.")
            return
        if callback.error is None:
            self._answer(200, "agentforge is authorized. You can close this page and go "
                              "back to the terminal.")
        else:
            self._answer(200, "The authorization was refused ("
                              f"{html.escape(callback.error)}). You can close this page.")
        self.server.received = callback

    def _answer(self, status: int, text: str) -> None:
        body = _PAGE.format(text).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the request line holds the code."""


class _Listener(http.server.HTTPServer):
    received: Callback | None = None
    timeout = _POLL  # handle_request() returns after this long without a request

    def handle_error(self, request: object, client_address: object) -> None:
        """Quiet: a browser that went away is no reason to print a traceback."""


class LoopbackCallback:
    """A listener on ``127.0.0.1`` for one authorization's redirect."""

    def __init__(self, port: int = 0) -> None:
        """Bind ``port`` (``0``, or one taken: a free one)."""
        try:
            self._server = _Listener((_LOOPBACK, port), _Handler)
        except OSError:
            if port == 0:
                raise
            self._server = _Listener((_LOOPBACK, 0), _Handler)
        self.port: int = self._server.server_address[1]

    @property
    def redirect_uri(self) -> str:
        return f"http://{_LOOPBACK}:{self.port}{CALLBACK_PATH}"

    def wait(self, timeout: float, cancelled: threading.Event | None = None
             ) -> Callback | None:
        """Serve until a redirect arrives; ``None`` after ``timeout`` seconds (or when
        ``cancelled`` is set)."""
        deadline = time.monotonic() + timeout
        while self._server.received is None and time.monotonic() < deadline:
            if cancelled is not None and cancelled.is_set():
                return None
            self._server.handle_request()
        return self._server.received

    def close(self) -> None:
        self._server.server_close()

