"""Plain ``tools/call`` requests of ``serve --transport http``, answered without the SDK's
session machinery.

In the SDK's streamable HTTP transport, each request goes through its session's message
streams, a task of the dispatcher, a router and an event-stream writer: about a
millisecond of a core per call, twice what uvicorn and the call itself take. A client
that calls tools one after the other waits for all of it.

:class:`PlainCalls`, an ASGI middleware in front of the SDK's app, answers a call itself
when a check narrower than the SDK's accepts it, and hands every other request to the
SDK untouched (as :mod:`~agentforge_cli.integrations.mcp.client.plain_listing` does on
the client side). A call is plain when

* it is a ``POST`` to the endpoint in a session seen opening here (its ``initialize``
  answered with JSON), carrying that session's negotiated version in
  ``Mcp-Protocol-Version``, with ``Content-Type: application/json``, accepting both JSON
  and an event stream (as the SDK asks) and a body within the SDK's size limit;
* the body is one JSON-RPC request ``tools/call`` (an integer or string id, not one in
  flight) whose ``params`` are exactly ``name``, a tool the server has, and
  ``arguments``, an object: no ``_meta``, so no progress token and nothing the call
  could stream;
* no OpenTelemetry tracer provider is configured (the SDK traces what it handles).

The answer is the SDK's, as JSON: the result from the same
:class:`~agentforge_cli.integrations.mcp.server.tool_server.ToolCalls`, shaped for the
session's protocol version by the SDK's result serializer, and errors as the SDK's
dispatcher writes them. A ``notifications/cancelled`` naming a plain call in flight
cancels it, and the call is answered ``-32800`` ("Request cancelled") as the SDK answers
a cancelled request; the notification goes on to the SDK as well (``202``).

Sessions are learned from the answers to ``initialize`` and forgotten when a ``DELETE``
ends them (the client's, or ``SessionGuard``'s, of
:mod:`~agentforge_cli.integrations.mcp.server.http_sessions`) or the SDK answers ``404`` in
them. The SDK's own idle timer must be off: it would not see plain calls; ``SessionGuard``
ends idle sessions. Whatever makes a call stream (progress, log messages, requests to the
client) must keep it off this path.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentforge_cli.integrations.mcp.server.http_sessions import read_body
from agentforge_cli.integrations.mcp.server.json_answers import accepts

if TYPE_CHECKING:
    import anyio
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from agentforge_cli.integrations.mcp.server.tool_server import ToolCalls

__all__ = ["PlainCalls"]

logger = logging.getLogger(__name__)

_SESSION = b"mcp-session-id"
_VERSION = b"mcp-protocol-version"
_REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_PARAMS_KEYS = frozenset({"name", "arguments"})


@dataclass
class _Session:
    version: str
    """The protocol version ``initialize`` negotiated."""
    calls: dict[Any, anyio.CancelScope] = field(default_factory=dict)
    """Plain calls in flight, by request id (as the SDK correlates them)."""


class PlainCalls:
    """ASGI middleware answering the plain calls at ``path`` (see the module's text)."""

    def __init__(self, app: ASGIApp, calls: ToolCalls, path: str) -> None:
        from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
        from mcp.shared.dispatcher import coerce_request_id
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
        from opentelemetry import trace

        self.app, self.calls, self.path = app, calls, path
        self.sessions: dict[str, _Session] = {}
        self.body_limit = DEFAULT_MAX_REQUEST_BODY_SIZE
        self.versions = frozenset(HANDSHAKE_PROTOCOL_VERSIONS)
        self.key = coerce_request_id
        self.trace = trace

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        session_id = _header(scope["headers"], _SESSION)
        if session_id is None:
            await self.app(scope, receive, self._learning(send) if method == "POST" else send)
            return
        session = self.sessions.get(session_id)
        if session is not None and method == "POST":
            read = await read_body(receive)
            if read is None:
                return  # the client left before its body arrived
            body, receive = read
            message = self._plain(scope, session, body)
            if message is not None:
                await self._answer(session_id, session, message, send)
                return
            if session.calls:
                self._cancel(session, body)
        await self.app(scope, receive, self._watching(session_id, method, send))

    # ------------------------------------------------------------ sessions

    def _learning(self, send: Send) -> Send:
        """``send``, learning the session an ``initialize`` answer opens (before the
        answer's end goes out, so the client's next request finds it)."""
        opened: list[Any] = []

        async def learn(message: Message) -> None:
            if message["type"] == "http.response.start":
                session_id = _header(message.get("headers", ()), _SESSION)
                if message["status"] == 200 and session_id is not None and _media_type(
                        _header(message.get("headers", ()), b"content-type")) == "application/json":
                    opened[:] = [session_id, b""]
            elif opened:
                opened[1] += message.get("body", b"")
                if not message.get("more_body", False):
                    self._learn(opened[0], opened[1])
                    opened.clear()
            await send(message)

        return learn

    def _learn(self, session_id: str, answer: bytes) -> None:
        try:
            version = json.loads(answer)["result"]["protocolVersion"]
        except (ValueError, TypeError, KeyError):
            return
        if type(version) is str and version in self.versions:
            self.sessions[session_id] = _Session(version)

    def _watching(self, session_id: str, method: str, send: Send) -> Send:
        """``send``, forgetting the session when the answer says it is gone (``404``) or
        ended (a ``DELETE`` answered)."""
        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                if status == 404 or (method == "DELETE" and status < 400):
                    self.sessions.pop(session_id, None)
            await send(message)

        return watch

    # ------------------------------------------------------------ calls

    def _plain(self, scope: Scope, session: _Session, body: bytes) -> dict[str, Any] | None:
        """The request in ``body`` when it is a plain call (see the module's text)."""
        headers = scope["headers"]
        if (len(body) > self.body_limit or _header(headers, _VERSION) != session.version
                or _media_type(_header(headers, b"content-type")) != "application/json"
                or accepts(scope) != (True, True)
                or not isinstance(self.trace.get_tracer_provider(),
                                  (self.trace.ProxyTracerProvider,
                                   self.trace.NoOpTracerProvider))):
            return None
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            return None
        if (type(message) is not dict or message.keys() != _REQUEST_KEYS
                or message["jsonrpc"] != "2.0" or message["method"] != "tools/call"
                or type(message["id"]) not in (int, str)
                or self.key(message["id"]) in session.calls):
            return None
        params = message["params"]
        if (type(params) is not dict or params.keys() != _PARAMS_KEYS
                or type(params["name"]) is not str or type(params["arguments"]) is not dict
                or not self.calls.knows(params["name"])):
            return None
        return message

    async def _answer(self, session_id: str, session: _Session, message: dict[str, Any],
                      send: Send) -> None:
        import anyio

        request_id = message["id"]
        key = self.key(request_id)
        answer: Any = None
        with anyio.CancelScope() as scope:
            session.calls[key] = scope
            try:
                answer = await self._outcome(session.version, message["params"], request_id)
            finally:
                if session.calls.get(key) is scope:
                    del session.calls[key]
        if scope.cancelled_caught:
            answer = _cancelled(request_id)
        body = answer.model_dump_json(by_alias=True, exclude_unset=True).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (_SESSION, session_id.encode("latin-1"))]})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def _outcome(self, version: str, params: dict[str, Any], request_id: Any) -> Any:
        """The JSON-RPC response or error the SDK would write for the call."""
        from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
        from mcp_types import INTERNAL_ERROR, ErrorData, JSONRPCError, JSONRPCResponse
        from mcp_types.methods import serialize_server_result
        from pydantic_core import ValidationError

        try:
            result = await self.calls.answer(params["name"], params["arguments"],
                                             str(request_id), version)
        except Exception as exc:  # written as the SDK's dispatcher writes it
            error = handler_exception_to_error_data(exc)
            if error is None:
                logger.exception("handler for 'tools/call' raised")
                error = ErrorData(code=0, message=str(exc))
            return JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
        try:
            shaped = serialize_server_result("tools/call", version, result.model_dump(
                by_alias=True, mode="json", exclude_none=True))
        except ValidationError:
            logger.exception("handler for 'tools/call' returned an invalid result")
            return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(
                code=INTERNAL_ERROR, message="Handler returned an invalid result"))
        return JSONRPCResponse(jsonrpc="2.0", id=request_id, result=shaped)

    def _cancel(self, session: _Session, body: bytes) -> None:
        """Cancel the plain call a ``notifications/cancelled`` in ``body`` names."""
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            return
        if type(message) is not dict or message.get("method") != "notifications/cancelled" \
                or "id" in message or type(message.get("params")) is not dict:
            return
        request_id = message["params"].get("requestId")
        if type(request_id) in (int, str):
            scope = session.calls.get(self.key(request_id))
            if scope is not None:
                scope.cancel()


def _cancelled(request_id: Any) -> Any:
    from mcp.server.streamable_http import REQUEST_CANCELLED
    from mcp_types import ErrorData, JSONRPCError

    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(
        code=REQUEST_CANCELLED, message="Request cancelled"))


def _header(headers: Any, name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _media_type(value: str | None) -> str:
    return (value or "").split(";")[0].strip()
