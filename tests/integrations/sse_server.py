"""An MCP server that speaks only the older HTTP+SSE transport (the SDK's ``MCPServer``
and its ``sse_app``), on a free loopback port: ``python sse_server.py [PATH]``, its event
stream at PATH (default ``/sse``).

It prints ``listening on http://127.0.0.1:PORT/PATH`` on stderr once it accepts
connections, and runs until it is interrupted. Its tools: ``echo`` (the text back) and
``add`` (two integers' sum).
"""

import asyncio
import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("sse-only")
PATH = sys.argv[1] if len(sys.argv) > 1 else "/sse"


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def main() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(server.sse_app(sse_path=PATH), log_level="warning")
    web = uvicorn.Server(config)

    async def announce() -> None:
        while not web.started:
            await asyncio.sleep(0.01)
        print(f"listening on http://127.0.0.1:{port}{PATH}", file=sys.stderr, flush=True)

    await asyncio.gather(web.serve(sockets=[listener]), announce())


if __name__ == "__main__":
    asyncio.run(main())
