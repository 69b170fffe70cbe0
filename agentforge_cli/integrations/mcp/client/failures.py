"""What went wrong with an MCP server, in the words of agentforge's messages: the cause
inside the SDK's exception groups, an HTTP status without anything the server or the
headers could have put in it, the hints for a refused request or a missing SDK."""

from __future__ import annotations

from typing import Any

__all__ = ["CONNECTION_CLOSED", "HTTP_HINTS", "INSTALL_HINT", "OAUTH_HINT", "answered_too_much",
           "closed", "describe", "http_status", "innermost", "not_mcp"]

INSTALL_HINT = ("MCP targets need the official MCP SDK: in a clone of agentforge run "
                "`pip install '.[mcp]'` (or `pip install mcp`)")
CONNECTION_CLOSED = -32000  # the SDK's JSON-RPC error code for a closed connection
_CLOSED_MESSAGE = "Connection closed"  # ... and its message
HTTP_HINTS = {
    "HTTP 401": "send the credentials it expects with --header, e.g. --header "
                "'Authorization: Bearer ...' (or AGENTFORGE_MCP_HEADERS)",
    "HTTP 404": "nothing is served at this path: a streamable HTTP endpoint is usually at "
                "/mcp, one of the older HTTP+SSE transport at /sse (agentforge speaks both, "
                "and tried both here)",
}
"""What to do about a refused request, by the start of its status."""
OAUTH_HINT = ("it asks for OAuth: add --oauth to authorize agentforge in a browser (the "
              "tokens are cached for the next commands), or send a token with --header "
              "'Authorization: Bearer ...'")
"""What to do about a ``401`` whose ``WWW-Authenticate`` asks for OAuth."""


def innermost(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (anyio task groups wrap what they raise)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def closed(exc: BaseException) -> bool:
    """Whether ``exc`` is the SDK's word for a connection that ended (its code alone is a
    server error code, which a server may answer with too)."""
    return (getattr(exc, "code", None) == CONNECTION_CLOSED
            and getattr(getattr(exc, "error", None), "message", None) == _CLOSED_MESSAGE)


def answered_too_much(exc: BaseException) -> bool:
    """Whether ``exc`` is the answer the stdio framing gives for a line past the limit of
    a message."""
    from agentforge_cli.integrations.mcp.client.transports.stdio_framing import TOO_LARGE_CODE

    return getattr(getattr(innermost(exc), "error", None), "code", None) == TOO_LARGE_CODE


def http_status(response: Any) -> str:
    """``HTTP 401 Unauthorized``: the code and its standard phrase, never the server's own
    reason phrase (it may echo a header), a header or the body."""
    from http import HTTPStatus

    code = response.status_code
    try:
        return f"HTTP {code} {HTTPStatus(code).phrase}"
    except ValueError:
        return f"HTTP {code}"


def describe(exc: BaseException) -> str:
    """Why a request failed, in a few words (``no answer in time``, an OS error...)."""
    exc = innermost(exc)
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if closed(exc):
        return "it exited or closed its standard output"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def not_mcp(exc: BaseException) -> str:
    """What a stdout line that is not JSON-RPC held (the SDK's parse error keeps it)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            return repr(errors()[0]["input"])[:120]
        except (LookupError, TypeError, ValueError):
            pass
    return str(exc).splitlines()[0][:120]
