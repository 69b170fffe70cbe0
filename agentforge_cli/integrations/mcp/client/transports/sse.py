"""The older HTTP+SSE transport: the SDK's client GETs the URL's event stream and POSTs
to the endpoint it names, with the endpoint's headers, each response going to the
endpoint's ``note_status``. The stream stays open between calls, so its read timeout
covers the longest wait: a call's, start-up's, or the SDK's default."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from agentforge_cli.integrations.mcp.client.transports.transport import Streams, Transport

if TYPE_CHECKING:
    from agentforge_cli.integrations.mcp.client.transports.transport import Endpoint

__all__ = ["SSE"]

_SSE_READ = 300.0  # the SDK's default wait for the next event of an SSE stream
_SSE_FOREVER = 24 * 3600.0  # ... when calls have no time limit


def _http_client_noting(note_status: Callable[[Any], Any]) -> Callable[..., Any]:
    """The SDK's HTTP client factory for the SSE transport, each client noting statuses."""

    def http_client(headers: dict[str, str] | None = None, timeout: Any = None,
                    auth: Any = None) -> Any:
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
        client.event_hooks["response"].append(note_status)
        return client

    return http_client


@asynccontextmanager
async def _open_streams(endpoint: Endpoint) -> AsyncIterator[Streams]:
    from mcp.client.sse import sse_client

    read = max(_SSE_READ, endpoint.call_timeout or _SSE_FOREVER, endpoint.timeout)
    async with sse_client(endpoint.spec, headers=dict(endpoint.headers),
                          timeout=endpoint.timeout, sse_read_timeout=read,
                          auth=endpoint.http_auth(),
                          httpx_client_factory=_http_client_noting(endpoint.note_status)
                          ) as streams:
        yield streams


SSE = Transport("HTTP+SSE", _open_streams)
