"""A small MCP server written with the official SDK, for the target option tests.

``python probe_server.py stdio`` serves over stdio; ``python probe_server.py http PORT``
serves streamable HTTP on 127.0.0.1:PORT at ``/mcp`` and answers 401 to any request
without ``Authorization: Bearer s3cret``.
"""

import os
import sys
from typing import TypedDict

from mcp.server.mcpserver import MCPServer

TOKEN = "Bearer s3cret"
server = MCPServer("probe")


class Forecast(TypedDict):
    city: str
    celsius: int


@server.tool(description="Today's forecast for a city")
def forecast(city: str) -> Forecast:
    return {"city": city, "celsius": 21}


@server.tool(description="The server's working directory and two of its variables")
def whereami() -> str:
    return "|".join([os.getcwd(), os.environ.get("PROBE_TOKEN", "-"),
                     os.environ.get("PROBE_KEPT", "-")])


async def guarded(scope, receive, send):
    """The SDK's app behind a bearer token: 401 without it."""
    if scope["type"] == "http" and (b"authorization", TOKEN.encode()) not in scope["headers"]:
        await send({"type": "http.response.start", "status": 401, "headers": []})
        await send({"type": "http.response.body", "body": b"no token"})
        return
    await app(scope, receive, send)


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run()
    else:
        import uvicorn

        app = server.streamable_http_app()
        uvicorn.run(guarded, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
