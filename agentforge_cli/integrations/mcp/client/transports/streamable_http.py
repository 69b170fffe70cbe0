"""The streamable HTTP transport: the SDK's client POSTs to the URL with the endpoint's
headers and its OAuth (``http_auth``), each response going to the endpoint's
``note_status`` (the SDK's own errors do not name a refused request's status)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from agentforge_cli.integrations.mcp.client.transports.transport import Streams, Transport

if TYPE_CHECKING:
    from agentforge_cli.integrations.mcp.client.transports.transport import Endpoint

__all__ = ["STREAMABLE_HTTP"]


@asynccontextmanager
async def _open_streams(endpoint: Endpoint) -> AsyncIterator[Streams]:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers=dict(endpoint.headers),
                                      auth=endpoint.http_auth()) as client:
        client.event_hooks["response"].append(endpoint.note_status)
        async with streamable_http_client(endpoint.spec, http_client=client) as streams:
            yield streams


STREAMABLE_HTTP = Transport("streamable HTTP", _open_streams)
