"""``agentforge record --url URL``: a loopback HTTP proxy in front of a streamable-HTTP MCP
server that writes the session down as it passes.

The client is given the proxy's address (``http://127.0.0.1:PORT`` with the server's path)
instead of the server's. Every request is sent on to the server with the same method, path,
query, headers and body, and the answer comes back with its status, headers and body
unchanged (an SSE stream chunk by chunk, as it arrives), except for what one hop owns:
``Host`` names the server, ``Origin`` (checked here) is not passed on, and hop-by-hop
headers (``Connection``, ``Transfer-Encoding``...) are each side's own. ``--header``
values are added to every request (they win over the client's header of that name).

Each JSON-RPC message on the server's path is appended to the session log, in the format
of the stdio proxy
(:class:`~agentforge_cli.integrations.mcp.record.stdio_proxy.SessionLog`): a POST's
JSON body (``client_to_server``), and the server's JSON answers and the ``data`` of its SSE
events (``server_to_client``). A request of the server's that comes on the answer to a
client's ``tools/call`` is written with that call's id (``"related"``): with several calls
under way, a replay then knows which call it belongs to. A message is written and flushed
before the bytes that end it are forwarded, so an answer is never logged before its
request. Before the older HTTP+SSE
transport's stream reaches the client, its ``endpoint`` event is rewritten to name the
proxy, and the POSTs to that path are written down too (:class:`_Endpoint`).

Headers are never written. With masking on, the messages are masked as the stdio proxy
masks them, and the ``--header`` values, the values of the client's headers named like a
secret (``Authorization``, ``Cookie``, ``X-Api-Key``...) and the session's
``Mcp-Session-Id`` are written as ``***`` wherever they appear (each when
:func:`~agentforge_cli.core.observe.masking.is_secret_value`).

As ``serve --transport http`` does
(:class:`~agentforge_cli.integrations.mcp.server.streamable_http.HeaderGuard`),
the proxy listens on loopback only and refuses a ``Host`` or ``Origin`` that does not name
it (DNS rebinding).
"""

from __future__ import annotations

import json
import logging
import signal
import socket
import sys
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, urljoin, urlsplit

from agentforge_cli.core.observe.masking import is_secret_value, is_sensitive_name, secret_values
from agentforge_cli.core.observe.terminal_text import safe_text
from agentforge_cli.integrations.mcp.record.stdio_proxy import MAX_RECORDED_BYTES, SessionLog
from agentforge_cli.integrations.mcp.server.streamable_http import HeaderGuard

if TYPE_CHECKING:
    import httpx
    from starlette.types import Receive, Scope, Send

__all__ = ["LOOPBACK", "RecordingProxy", "run_proxy"]

LOOPBACK = "127.0.0.1"
_HOP_BY_HOP = frozenset({b"connection", b"keep-alive", b"proxy-authenticate",
                         b"proxy-authorization", b"proxy-connection", b"te", b"trailer",
                         b"transfer-encoding", b"upgrade"})
_NOT_SENT_ON = _HOP_BY_HOP | {b"host", b"content-length", b"origin"}
_NOT_SENT_BACK = _HOP_BY_HOP
_CONNECT_SECONDS = 30.0
_SESSION_HEADER = b"mcp-session-id"  # the transport's session: whoever holds it is in it
_SHUTDOWN_GRACE = 3
_TO_SERVER, _TO_CLIENT = "client_to_server", "server_to_client"
_TOO_LARGE = (f"agentforge record: the request body is more than the limit of "
              f"{MAX_RECORDED_BYTES} bytes; not sent on\n").encode()


_PATH_SAFE = "/%:@!$&'()*+,;=~"
"""What a URL path may show as is (anything else is percent-encoded)."""


def _public(url: str) -> str:
    """``url`` without user, password or query (they may hold a secret), safe to print
    on a terminal."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return safe_text(f"{parts.scheme}://{netloc}{parts.path}", one_line=True)


class _Messages:
    """Reads the JSON-RPC messages out of a body as its chunks pass and writes each one
    to the log: the whole body when it is JSON, each event's ``data`` when it is SSE.

    A body encoded with ``gzip`` or ``deflate`` is decoded for reading, no further than
    :data:`MAX_RECORDED_BYTES` (the rest passes unread); another encoding is not read.
    Either is counted as not recorded. Reading takes time linear in the body's size.
    """

    def __init__(self, log: SessionLog, direction: str, content_type: str,
                 encoding: str, related: Any = None) -> None:
        self.log = log
        self.direction = direction
        self.related = related
        """The id of the ``tools/call`` this body answers (``None``: none)."""
        self.events = content_type.split(";")[0].strip().lower() == "text/event-stream"
        self.readable = encoding in ("", "identity", "gzip", "deflate")
        self.decoder = zlib.decompressobj(47) if encoding in ("gzip", "deflate") else None
        self.pending = bytearray()
        self.inflated = 0
        self.data: list[bytes] = []
        self.size = 0
        self.kind = b""
        self.after_cr = False
        self.overflow = False
        if not self.readable:
            log.unrecorded += 1

    def feed(self, chunk: bytes) -> None:
        if not self.readable:
            return
        if self.decoder is not None:
            try:  # one byte past the bound tells a body that inflates further
                chunk = self.decoder.decompress(chunk, MAX_RECORDED_BYTES + 1 - self.inflated)
            except zlib.error:
                self._unreadable()
                return
            self.inflated += len(chunk)
            if self.inflated > MAX_RECORDED_BYTES:
                self._unreadable()
                return
        if self.events:
            self._feed_events(chunk)
        elif not self.overflow:
            self.pending += chunk
            if len(self.pending) > MAX_RECORDED_BYTES:
                self.pending, self.overflow = bytearray(), True
                self.log.unrecorded += 1

    def _unreadable(self) -> None:
        self.readable, self.pending, self.data = False, bytearray(), []
        self.log.unrecorded += 1

    def close(self) -> None:
        """The body ended: write what it held last (a JSON body, an unterminated event)."""
        if not self.readable:
            return
        if self.events:
            if self.pending:
                self._line(bytes(self.pending))
            self._line(b"")
        elif self.pending.strip():
            self.log.write(self.direction, bytes(self.pending), self.related)
        self.pending = bytearray()

    def _feed_events(self, chunk: bytes) -> None:
        if self.after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]  # the \n of a \r\n split across chunks
        self.after_cr = chunk.endswith(b"\r")
        if b"\n" not in chunk and b"\r" not in chunk:  # a line goes on: kept, not rescanned
            self.pending += chunk
            if len(self.pending) > MAX_RECORDED_BYTES:
                self.pending, self.overflow = bytearray(), True
            return
        lines = (bytes(self.pending) + chunk).splitlines(keepends=True)
        last = lines.pop() if not lines[-1].endswith((b"\n", b"\r")) else b""
        self.pending = bytearray(last)
        if len(self.pending) > MAX_RECORDED_BYTES:
            self.pending, self.overflow = bytearray(), True
        for line in lines:
            self._line(line.rstrip(b"\r\n"))

    def _line(self, line: bytes) -> None:
        """One SSE line (the event stream format of the HTML standard)."""
        if not line:
            if self.data and not self.overflow and self.kind in (b"", b"message"):
                self.log.write(self.direction, b"\n".join(self.data), self.related)
            elif self.overflow:
                self.log.unrecorded += 1
            self.data, self.size, self.kind, self.overflow = [], 0, b"", False
            return
        name, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if name == b"data" and not self.overflow:
            self.size += len(value)
            if self.size > MAX_RECORDED_BYTES:
                self.data, self.overflow = [], True
            elif value or self.data:
                self.data.append(value)
        elif name == b"event":
            self.kind = value


_EVENT_ENDS = (b"\r\n\r\n", b"\n\n", b"\r\r")
_ENDPOINT_HELD = 64 * 1024
"""How much of a legacy SSE stream is held back looking for its ``endpoint`` event."""


class _Endpoint:
    """Rewrites the ``endpoint`` event of a legacy HTTP+SSE stream (the first event, the URL
    the client is to POST its messages to) so that the client posts to the proxy, and
    notes that path as one whose messages are written down.

    The stream is held back until its first event with data is whole (at most
    :data:`_ENDPOINT_HELD` bytes); the rest passes as it arrives.
    """

    def __init__(self, proxy: RecordingProxy, base: str) -> None:
        self.proxy = proxy
        self.base = base  # the URL the stream was asked of: a relative endpoint's base
        self.held = bytearray()
        self.done = False

    def feed(self, chunk: bytes) -> bytes:
        if self.done:
            return chunk
        self.held += chunk
        out = bytearray()
        while not self.done:
            ends = [(at, len(end)) for end in _EVENT_ENDS if (at := self.held.find(end)) >= 0]
            if not ends:
                break
            at, size = min(ends)
            event, self.held = bytes(self.held[:at + size]), self.held[at + size:]
            out += self._rewritten(event)
        if not self.done and len(self.held) > _ENDPOINT_HELD:
            self.done = True
        if self.done:
            out += self.held
            self.held = bytearray()
        return bytes(out)

    def close(self) -> bytes:
        """The stream ended: what is still held."""
        self.done, held, self.held = True, bytes(self.held), bytearray()
        return held

    def _rewritten(self, event: bytes) -> bytes:
        lines = event.splitlines()
        fields = [line.partition(b":") for line in lines if line and not line.startswith(b":")]
        if not fields:
            return event  # a comment (a keep-alive): the endpoint comes after it
        self.done = True
        kinds = [value.strip() for name, _, value in fields if name == b"event"]
        data = b"\n".join(value[1:] if value.startswith(b" ") else value
                           for name, _, value in fields if name == b"data")
        if kinds[-1:] != [b"endpoint"]:
            return event
        target = urlsplit(urljoin(self.base, data.decode("utf-8", "replace").strip()))
        if f"{target.scheme}://{target.netloc}" != self.proxy.origin:
            print(f"agentforge record: the server sends its messages' endpoint to another "
                  f"origin ({_public(target.geturl())}); those messages are not recorded",
                  file=sys.stderr, flush=True)
            return event
        self.proxy.endpoints.add(target.path)
        here = target.path + (f"?{target.query}" if target.query else "")
        return b"event: endpoint\r\ndata: " + here.encode() + b"\r\n\r\n"


class RecordingProxy:
    """The ASGI app: every request sent on to ``upstream``'s server, the messages on its
    path written to ``log``.

    Args:
        upstream: The server's URL (``http(s)://HOST[:PORT]/PATH``).
        log: Where the messages go.
        headers: Headers added to every request sent on (they win over the client's).
    """

    def __init__(self, upstream: str, log: SessionLog,
                 headers: Mapping[str, str] | None = None) -> None:
        parts = urlsplit(upstream)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.path = parts.path or "/"
        self.query = parts.query  # sent on with every request to the server's path
        self.log = log
        self.headers = [(name.lower().encode("latin-1"), value.encode("latin-1"))
                        for name, value in (headers or {}).items()]
        self.replaced = {name for name, _ in self.headers}
        self.client: httpx.AsyncClient | None = None
        self.endpoints: set[str] = set()  # legacy HTTP+SSE: where the client POSTs
        for _, value in self.headers:
            self._hide(value)
        for key, secret in parse_qsl(self.query):
            if is_sensitive_name(key) and is_secret_value(secret):
                log.hide(secret)  # ?api_key=...

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            import anyio

            async with anyio.create_task_group() as group:
                async def hang_up() -> None:  # the client left: stop reading the server
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                body = await self._body(receive)
                if body is None:
                    await _answer(send, 413, _TOO_LARGE)
                    return
                group.start_soon(hang_up)
                await self._forward(scope, body, send)
                group.cancel_scope.cancel()

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        import httpx

        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                timeout = httpx.Timeout(_CONNECT_SECONDS, read=None)
                self.client = httpx.AsyncClient(timeout=timeout, trust_env=False)
                for name in ("accept", "accept-encoding", "user-agent"):
                    del self.client.headers[name]  # only the client's are sent on
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.client is not None:
                    await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    @staticmethod
    async def _body(receive: Receive) -> bytes | None:
        """The request's body; ``None`` past :data:`MAX_RECORDED_BYTES` (not read on)."""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            body += message.get("body", b"")
            if len(body) > MAX_RECORDED_BYTES:
                return None
            if not message.get("more_body"):
                break
        return bytes(body)

    def _hide(self, value: bytes) -> None:
        """Mask a header's value (and the credentials after its scheme) in the log."""
        for secret in secret_values(headers={"": value.decode("latin-1")}):
            self.log.hide(secret)

    async def _forward(self, scope: Scope, body: bytes, send: Send) -> None:
        import httpx

        assert self.client is not None
        headers = []
        for name, value in scope["headers"]:
            name = name.lower()
            if name not in _NOT_SENT_ON and name not in self.replaced:
                headers.append((name, value))
                if name == _SESSION_HEADER or is_sensitive_name(name.decode("latin-1")):
                    self._hide(value)
        headers += self.headers
        mcp = scope["path"] == self.path
        posted = scope["path"] in self.endpoints  # a legacy client's messages: answered
        url = self.origin + scope["raw_path"].decode("latin-1")  # on the event stream
        query = [self.query] if (mcp or posted) and self.query else []
        if scope.get("query_string"):
            query.append(scope["query_string"].decode("latin-1"))
        if query:
            url += "?" + "&".join(query)
        related = None
        if (mcp or posted) and body:
            content_type = _header(scope["headers"], b"content-type")
            encoding = _header(scope["headers"], b"content-encoding")
            messages = _Messages(self.log, _TO_SERVER, content_type, encoding)
            messages.feed(body)
            messages.close()
            related = _call_id(body) if mcp and not encoding else None
        request = self.client.build_request(scope["method"], url, headers=headers,
                                            content=body)
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            print(f"agentforge record: cannot reach the MCP server at "
                  f"{_public(self.origin + self.path)}: "
                  f"{safe_text(str(exc) or type(exc).__name__, one_line=True)}",
                  file=sys.stderr, flush=True)
            await _answer(send, 502, b"agentforge record: cannot reach the MCP server\n")
            return
        endpoint = None
        if mcp and scope["method"] == "GET" and not response.headers.get("content-encoding"):
            endpoint = _Endpoint(self, url)  # the legacy HTTP+SSE transport's stream
        try:
            await self._answer_with(response, mcp, send, endpoint, related)
        finally:
            await response.aclose()

    async def _answer_with(self, response: httpx.Response, mcp: bool, send: Send,
                           endpoint: _Endpoint | None, related: Any = None) -> None:
        """Send ``response`` back as it arrives, writing its messages to the log
        (``endpoint``: the stream's ``endpoint`` event rewritten; ``related``: the id of
        the ``tools/call`` it answers)."""
        import httpx

        raw = response.headers.raw
        for name, value in raw:
            if name.lower() == _SESSION_HEADER:
                self._hide(value)
        await send({"type": "http.response.start", "status": response.status_code,
                    "headers": [(name, value) for name, value in raw
                                if name.lower() not in _NOT_SENT_BACK]})
        messages = _Messages(self.log, _TO_CLIENT, response.headers.get("content-type", ""),
                             response.headers.get("content-encoding", "").lower(),
                             related) if mcp else None
        held: bytes | None = None  # a JSON body's last chunk waits until it is logged
        try:
            async for chunk in response.aiter_raw():
                if messages is not None:
                    messages.feed(chunk)
                    if not messages.events:
                        chunk, held = (held or b""), chunk
                    elif endpoint is not None:
                        chunk = endpoint.feed(chunk)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except httpx.HTTPError:
            pass  # the server broke off: the client gets what came, then the end
        if messages is not None:
            messages.close()
            if messages.events and endpoint is not None:
                held = endpoint.close()
        await send({"type": "http.response.body", "body": held or b"", "more_body": False})


def _call_id(body: bytes) -> Any:
    """The id of the ``tools/call`` request a POST's body is, or ``None``."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(message, dict) and message.get("method") == "tools/call":
        identity = message.get("id")
        if isinstance(identity, str | int) and not isinstance(identity, bool):
            return identity
    return None


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1").strip().lower()
    return ""


async def _answer(send: Send, status: int, text: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(text)).encode())]})
    await send({"type": "http.response.body", "body": text})


def run_proxy(upstream: str, log: SessionLog, *, sock: socket.socket,
              headers: Mapping[str, str] | None = None) -> None:
    """Proxy ``upstream`` on the bound loopback ``sock`` until SIGINT or SIGTERM; the
    address to give the client goes to standard error once it listens."""
    import uvicorn

    proxy = RecordingProxy(upstream, log, headers)
    app = HeaderGuard(proxy, host=LOOPBACK)
    # percent-encoded: a control character in the path reaches no terminal, still works
    address = f"http://{LOOPBACK}:{sock.getsockname()[1]}{quote(proxy.path, safe=_PATH_SAFE)}"

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print(f"agentforge record: recording {_public(upstream)} at {address} "
                      "(Ctrl-C stops)", file=sys.stderr, flush=True)

    config = uvicorn.Config(app, log_config=None, log_level=logging.WARNING,
                            access_log=False, lifespan="on", server_header=False,
                            date_header=False,
                            timeout_graceful_shutdown=_SHUTDOWN_GRACE)
    # uvicorn stops on SIGINT/SIGTERM, then raises the signal again for the handler it
    # replaced: ignoring both meanwhile makes that a quiet end (exit 0).
    stopping = (signal.SIGINT, signal.SIGTERM)
    replaced = [signal.signal(number, signal.SIG_IGN) for number in stopping]
    try:
        _Server(config).run(sockets=[sock])
    finally:
        for number, handler in zip(stopping, replaced, strict=True):
            signal.signal(number, handler)
    if log.unrecorded:
        print(f"agentforge record: {log.unrecorded} bod(ies) or event(s) were not JSON-RPC "
              "messages (or too long, or compressed unreadably): forwarded, not written to "
              "the log", file=sys.stderr)

