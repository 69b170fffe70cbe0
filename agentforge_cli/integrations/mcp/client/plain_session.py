"""One MCP conversation over streamable HTTP with the standard library's ``http.client``,
request by request (:class:`PlainSession`), for
:mod:`~agentforge_cli.integrations.mcp.client.plain_listing`.

Each request is a POST to the endpoint with the caller's headers, read within one
deadline and :data:`MAX_BODY` bytes. A legacy session sends ``Mcp-Session-Id`` (from the
``initialize`` answer) and ``MCP-Protocol-Version`` once agreed, and ends with a
``DELETE``; a modern (2026-07-28) request carries its version, the client and its
capabilities in ``_meta``, and the ``MCP-Protocol-Version`` and ``Mcp-Method`` headers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import http.client

__all__ = ["MAX_BODY", "PlainSession"]

MAX_BODY = 64 * 1024 * 1024
"""Bytes of one answer read at most (the bound of every MCP message agentforge reads)."""
_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_LOG_LEVEL = "io.modelcontextprotocol/logLevel"


class PlainSession:
    """One MCP conversation over streamable HTTP, request by request."""

    def __init__(self, scheme: str, netloc: str, path: str, query: str,
                 headers: Mapping[str, str], deadline: float, *,
                 log_level: str | None = None) -> None:
        import http.client

        kind = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        self.connection = kind(netloc, timeout=max(deadline - time.monotonic(), 0.001))
        self.path = f"{path}?{query}" if query else path
        self.headers = dict(headers)
        self.deadline = deadline
        self.session_id: str | None = None
        self.version: str | None = None
        """The ``MCP-Protocol-Version`` header of every request (``None``: none)."""
        self.meta: dict[str, Any] | None = None
        """The ``_meta`` of every request of a modern conversation (``None``: legacy)."""
        self.log_level = log_level
        """The ``logLevel`` of a modern conversation's ``_meta`` (``None``: none)."""
        self._next_id = 0

    def speak_modern(self, version: str, client: Mapping[str, str]) -> None:
        """From now on, stamp every request as the stateless revision ``version`` asks."""
        self.version = version
        from agentforge_cli.integrations.mcp.client.server_requests import CLIENT_CAPABILITIES

        self.meta = {_PROTOCOL_VERSION: version, _CLIENT_INFO: dict(client),
                     _CLIENT_CAPABILITIES: CLIENT_CAPABILITIES}
        if self.log_level is not None:
            self.meta[_LOG_LEVEL] = self.log_level

    def speak_legacy(self) -> None:
        """From now on, send requests without a modern stamp (until a version is agreed)."""
        self.version = self.meta = None

    def _send(self, method: str, message: dict[str, Any] | None = None
              ) -> http.client.HTTPResponse:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        self.connection.timeout = left
        if self.connection.sock is not None:
            self.connection.sock.settimeout(left)
        headers = {**self.headers, "accept": "application/json, text/event-stream",
                   "content-type": "application/json"}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        if self.version is not None:
            headers["mcp-protocol-version"] = self.version
        if self.meta is not None and message is not None:
            headers["mcp-method"] = message["method"]
        body = None if message is None else json.dumps(message).encode("utf-8")
        self.connection.request(method, self.path, body=body, headers=headers)
        return self.connection.getresponse()

    def exchange(self, method: str, params: dict[str, Any] | None
                 ) -> tuple[int, dict[str, Any] | None]:
        """Send one request: the answer's HTTP status, and its JSON-RPC answer to this
        request (a result or an error; ``None`` when the body holds none)."""
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if self.meta is not None:
            params = {**(params or {}), "_meta": dict(self.meta)}
        if params is not None:
            message["params"] = params
        response = self._send("POST", message)
        if method == "initialize":
            self.session_id = response.getheader("mcp-session-id")
        kind = (response.getheader("content-type") or "").partition(";")[0].strip().lower()
        if kind == "application/json":
            data = _bounded_read(response)
            try:
                answer = json.loads(data)
            except ValueError:
                if response.status < 400:
                    raise
                answer = None  # a refusal's body: its status says enough
        elif kind == "text/event-stream" and response.status == 200:
            answer = next((event for event in _events(response) if "method" not in event),
                          None)
            self.connection.close()  # the stream may stay open: the next request reconnects
        else:
            response.read(MAX_BODY)
            answer = None
        if not (isinstance(answer, dict) and answer.get("id") in (self._next_id, None)):
            return response.status, None
        return response.status, answer

    def request(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """The result of one request, or ``None`` when the answer is not plain (not a
        ``200`` with this request's result)."""
        status, answer = self.exchange(method, params)
        if status != 200 or answer is None or answer.get("id") != self._next_id:
            return None
        result = answer.get("result")
        return result if isinstance(result, dict) else None

    def notify(self, method: str) -> bool:
        """Send a notification; whether the server took it."""
        response = self._send("POST", {"jsonrpc": "2.0", "method": method})
        response.read(MAX_BODY)
        return 200 <= response.status < 300

    def close(self) -> None:
        """End a legacy session on the server (as the SDK's client does) and the
        connection."""
        import http.client

        try:
            if self.session_id is not None:
                self._send("DELETE").read(MAX_BODY)
        except (OSError, http.client.HTTPException):  # a courtesy: never an error
            pass
        finally:
            self.connection.close()


def _bounded_read(response: http.client.HTTPResponse) -> bytes:
    data = response.read(MAX_BODY + 1)
    if len(data) > MAX_BODY:
        raise ValueError("an answer larger than the bound")
    return data


def _events(response: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
    """The JSON-RPC messages of an event stream, up to the first that is not a
    notification (a request of the server's, or the answer), within the byte bound."""
    data: list[str] = []
    read = 0
    while True:
        line = response.readline(MAX_BODY)
        read += len(line)
        if not line or read > MAX_BODY:
            return
        text = line.decode("utf-8").rstrip("\r\n")
        if text.startswith("data:"):
            data.append(text[5:].removeprefix(" "))
        elif not text and data:
            payload = "\n".join(data).strip()
            data = []
            if not payload:  # an event that only primes the stream for resumption
                continue
            message = json.loads(payload)
            if not isinstance(message, dict):
                return
            yield message
            if "method" not in message or "id" in message:
                return
