"""Requests whose id is neither a string nor an integer, which the MCP SDK reads as
notifications (it drops the id) and so never answers.

JSON-RPC 2.0 answers a request it cannot read with an error whose id is ``null``; MCP
allows only string and integer ids. :func:`invalid_id` finds such a request in a line
(stdio) or body (HTTP), so the transports can answer ``-32600`` themselves. A valid id,
however large or full of escapes, is left to the SDK, which echoes it exactly.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["INVALID_REQUEST", "RequestIdGuard", "invalid_id"]

INVALID_REQUEST = -32600
_KINDS = {dict: "an object", list: "an array", bool: "a boolean", type(None): "null",
          float: "a number with a fraction or exponent"}


def invalid_id(text: str | bytes) -> str | None:
    """The error message for a JSON-RPC request in ``text`` whose ``id`` is not a string
    or an integer, or ``None`` (another message, a valid id, text that is not JSON)."""
    named = b'"id"' in text if isinstance(text, bytes) else '"id"' in text
    if not named:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if type(value) is not dict or "id" not in value or "method" not in value:
        return None
    kind = _KINDS.get(type(value["id"]))
    if kind is None:
        return None
    return f"Invalid request: the id must be a string or an integer, got {kind}"


class RequestIdGuard:
    """ASGI middleware answering a ``POST`` whose request has an invalid id (``400``, a
    JSON-RPC error with id ``null``) instead of letting the SDK take it for a
    notification (``202``, never answered)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        from agentforge_cli.integrations.mcp.server.http_sessions import whole_body

        replay = await whole_body(receive)
        if replay is None:
            return  # the client left before its body arrived
        first: Message = await replay()
        problem = invalid_id(first.get("body", b""))
        if problem is None:
            delivered = False

            async def again() -> Message:
                nonlocal delivered
                if delivered:
                    return await replay()
                delivered = True
                return first

            await self.app(scope, again, send)
            return
        from starlette.responses import JSONResponse

        await JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
            "code": INVALID_REQUEST, "message": problem}}, status_code=400)(scope, replay, send)
