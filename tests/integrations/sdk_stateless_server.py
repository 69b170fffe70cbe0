"""The official SDK's stateless server, for the protocol-era tests: an ``MCPServer`` with
two tools, ``python sdk_stateless_server.py stdio`` over stdio, ``python
sdk_stateless_server.py http PORT`` over streamable HTTP on 127.0.0.1:PORT at ``/mcp``
with ``stateless_http=True`` (no session; every request stands alone) and JSON answers.
The SDK serves both eras: the 2026-07-28 revision to a client that asks
``server/discover``, the initialize handshake to one that sends ``initialize``.
"""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("sdk-stateless")


@server.tool(description="Says the text back")
def echo(text: str) -> str:
    return text


@server.tool(description="Adds two integers")
def add(a: int, b: int) -> int:
    return a + b


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run()
    else:
        import uvicorn

        app = server.streamable_http_app(stateless_http=True, json_response=True)
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
