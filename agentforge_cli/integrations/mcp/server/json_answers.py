"""A request's answer as one JSON body when nothing else needs the stream.

Over streamable HTTP the server may answer a ``POST``ed request either with
``application/json`` (the response alone) or with an SSE stream (``text/event-stream``)
that may carry notifications and requests of the server's before the response. The SDK
picks one of the two per server; in its stream mode every answer is a stream, which
a plain HTTP client has to parse as events.

:class:`JsonAnswers` lets the SDK stream and decides per request, from what the stream
begins with. It holds the stream's headers back until its first event is whole; when
that event is the JSON-RPC response itself (the request needed nothing streamed), and
the client accepts ``application/json``, the answer goes out as that one JSON body with
a ``Content-Length``, and the stream's end is dropped. Anything else first (a
notification such as progress, a request of the server's, a keep-alive comment sent
while a long call runs, an event with an ID to resume from) commits to the stream: the
held headers and bytes go out as they were, and the rest passes through. Other
responses (errors, ``202``, the ``GET`` stream) are not touched.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["JsonAnswers", "accepts", "lone_response"]

_STREAM_HEADERS = frozenset({b"content-type", b"content-length", b"transfer-encoding",
                             b"cache-control", b"connection", b"x-accel-buffering"})
"""Headers that describe the stream, not the answer: dropped from a JSON answer."""
_JSON_TYPES = ("application/json", "application/*", "*/*")
_STREAM_TYPES = ("text/event-stream", "text/*", "*/*")


def accepts(scope: Scope) -> tuple[bool, bool]:
    """Whether the request's ``Accept`` header admits ``application/json`` and
    ``text/event-stream`` (wildcards count, as for the SDK; a media range with ``q=0``
    does not)."""
    accept = b",".join(value for key, value in scope["headers"] if key.lower() == b"accept")
    json_ok = stream_ok = False
    for media_range in accept.decode("latin-1").lower().split(","):
        kind, *parameters = (part.strip() for part in media_range.split(";"))
        if any(name.strip() == "q" and _zero(value)
               for name, _, value in (p.partition("=") for p in parameters)):
            continue
        json_ok = json_ok or kind in _JSON_TYPES
        stream_ok = stream_ok or kind in _STREAM_TYPES
    return json_ok, stream_ok


def _zero(quality: str) -> bool:
    try:
        return float(quality) == 0
    except ValueError:
        return False


def lone_response(block: bytes) -> bytes | None:
    """The JSON text of an SSE event block (its lines, without the blank line that ends
    it) when the event is a JSON-RPC response or error and nothing but that; else
    ``None``: a comment, a notification, a request, an event with an ID or a name other
    than ``message``."""
    data: list[bytes] = []
    for line in block.split(b"\n"):
        name, colon, value = line.partition(b":")
        if not colon or not name:  # a field without a value, or a comment (a keep-alive)
            return None
        value = value[1:] if value.startswith(b" ") else value
        if name == b"data":
            data.append(value)
        elif name != b"event" or value != b"message":  # an `id:` to resume from, `retry:`
            return None
    if not data:
        return None
    text = b"\n".join(data)
    try:
        message = json.loads(text)
    except ValueError:
        return None
    if (type(message) is not dict or "method" in message or "id" not in message
            or ("result" in message) == ("error" in message)):
        return None
    return text


class JsonAnswers:
    """ASGI middleware answering a ``POST`` with one JSON body when the SSE stream the
    app answers with would hold the response alone (see the module's text)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not accepts(scope)[0]:
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _Answer(send).send)


class _Answer:
    """One response on its way out: passed through, held (a stream's start and its
    first bytes), answered as JSON, or committed to the stream."""

    def __init__(self, send: Send) -> None:
        self.downstream = send
        self.state = "start"
        self.start: Message | None = None
        self.held = b""

    async def send(self, message: Message) -> None:
        if self.state == "start":
            await self._started(message)
        elif self.state == "holding":
            await self._body(message)
        elif self.state != "answered":  # after a JSON answer, the stream's end is dropped
            await self.downstream(message)

    async def _started(self, message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 200 \
                and _content_type(message) == b"text/event-stream":
            self.start, self.state = message, "holding"
            return
        self.state = "passing"
        await self.downstream(message)

    async def _body(self, message: Message) -> None:
        self.held += message.get("body", b"")
        more = message.get("more_body", False)
        # SSE lines end in CR LF, LF or CR; a block ends at a blank line
        lines = self.held.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        block, blank, rest = lines.partition(b"\n\n")
        if not blank and more:
            return  # the first event is still arriving
        text = lone_response(block) if blank and not rest else None
        if text is None:
            await self._commit(more)
            return
        assert self.start is not None
        headers = [(key, value) for key, value in self.start.get("headers", ())
                   if key.lower() not in _STREAM_HEADERS]
        self.state = "answered"
        await self.downstream({**self.start, "headers": [
            *headers, (b"content-type", b"application/json"),
            (b"content-length", str(len(text)).encode())]})
        await self.downstream({"type": "http.response.body", "body": text, "more_body": False})

    async def _commit(self, more: bool) -> None:
        assert self.start is not None
        self.state = "passing"
        await self.downstream(self.start)
        await self.downstream({"type": "http.response.body", "body": self.held,
                               "more_body": more})


def _content_type(message: Any) -> bytes:
    for key, value in message.get("headers", ()):
        if key.lower() == b"content-type":
            return bytes(value).split(b";")[0].strip().lower()
    return b""
