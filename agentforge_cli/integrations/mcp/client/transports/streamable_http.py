"""The streamable HTTP transport: the SDK's client POSTs to the URL with the endpoint's
headers and its OAuth (``http_auth``), each response going to the endpoint's
``note_status`` (the SDK's own errors do not name a refused request's status).

A session that goes on with one opened without the SDK (its ``Mcp-Session-Id`` among the
headers: :mod:`~agentforge_cli.integrations.mcp.client.plain_listing`) sends no
``notifications/initialized`` of its own, which is when the SDK opens the session's event
stream (the GET): it is opened here instead, for a server sends its requests that belong
to no request of the client's there (server-everything asks for the roots so, during a
call; unheard, the call waits for ever)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

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
            session_id = next((value for key, value in endpoint.headers.items()
                               if key.lower() == "mcp-session-id"), None)
            if session_id is None:
                yield streams
                return
            async with _with_event_stream(endpoint.spec, client, session_id,
                                          streams) as merged:
                yield merged


@asynccontextmanager
async def _with_event_stream(url: str, client: Any, session_id: str, streams: Streams
                             ) -> AsyncIterator[Streams]:
    """``streams`` whose read side also gives what the session's event stream (a GET of
    ``url``, reconnected as the SDK does) brings."""
    import anyio
    from mcp.client.streamable_http import StreamableHTTPTransport
    from mcp.shared._context_streams import create_context_streams

    read, write = streams
    send, receive = create_context_streams[Any](0)
    listener = StreamableHTTPTransport(url)
    listener.session_id = session_id

    async def forward() -> None:
        async for item in read:
            await send.send(item)
        send.close()  # the session's end: the reader sees it

    async with anyio.create_task_group() as tasks, send, receive:
        tasks.start_soon(forward)
        tasks.start_soon(listener.handle_get_stream, client, send)
        try:
            yield receive, write
        finally:
            tasks.cancel_scope.cancel()


STREAMABLE_HTTP = Transport("streamable HTTP", _open_streams)
