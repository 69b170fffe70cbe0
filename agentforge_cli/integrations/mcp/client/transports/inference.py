"""Which transport a target is spoken to over, the one place that decides it.

``mcp:COMMAND ...`` is a command over stdio. A URL is spoken to over streamable HTTP,
unless its path ends in ``/sse``, where servers of the older HTTP+SSE transport serve.
A URL whose POST is refused with HTTP 400, 404 or 405 is tried once more over HTTP+SSE
(the protocol's advice for clients that support older servers); other refusals stand.
"""

from __future__ import annotations

from agentforge_cli.integrations.mcp.client.transports.sse import SSE
from agentforge_cli.integrations.mcp.client.transports.stdio import PREFIX, STDIO
from agentforge_cli.integrations.mcp.client.transports.streamable_http import STREAMABLE_HTTP
from agentforge_cli.integrations.mcp.client.transports.transport import Transport
from agentforge_cli.integrations.mcp.client.urls import URL_PREFIXES, is_url

__all__ = ["TRY_SSE_ON", "infer_transport", "is_mcp_target"]

TRY_SSE_ON = frozenset({400, 404, 405})
"""HTTP statuses of a refused POST after which a URL is tried over HTTP+SSE."""


def is_mcp_target(spec: str) -> bool:
    """Whether ``spec`` names an MCP server (``mcp:COMMAND ...``, ``http(s)://...``)."""
    return spec.startswith((PREFIX, *URL_PREFIXES))


def infer_transport(spec: str, refused: int | None = None) -> Transport:
    """The transport to speak to the server ``spec`` names over (an MCP target).

    ``refused`` is the HTTP status with which a POST over the transport chosen before
    was refused: the answer is then the transport to try instead, or the same one when
    there is nothing else to try (the refusal stands).
    """
    if not is_url(spec):
        return STDIO
    if _names_sse(spec) or refused in TRY_SSE_ON:
        return SSE
    return STREAMABLE_HTTP


def _names_sse(url: str) -> bool:
    """Whether the URL's path ends in ``/sse``, where HTTP+SSE servers serve."""
    from urllib.parse import urlsplit

    return urlsplit(url).path.rstrip("/").endswith("/sse")
