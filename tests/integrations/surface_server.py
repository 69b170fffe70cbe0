"""An MCP server written with the official SDK (``MCPServer``) that has resources, a
resource template and prompts besides a tool: ``python surface_server.py stdio``, or
``python surface_server.py http PORT`` (streamable HTTP on 127.0.0.1:PORT at ``/mcp``).
``SURFACE_VARIANT=changed`` serves it changed: a prompt and a prompt argument removed, a
required argument added, a resource gone."""

import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("surface")
CHANGED = os.environ.get("SURFACE_VARIANT") == "changed"


@server.tool(description="Says the text back")
def echo(text: str) -> str:
    return text


@server.resource("memo://greeting", name="greeting", description="A greeting",
                 mime_type="text/plain")
def greeting() -> str:
    return "hello from the server"


if not CHANGED:
    @server.resource("memo://farewell", name="farewell", mime_type="text/plain")
    def farewell() -> str:
        return "goodbye"


@server.resource("memo://notes/{topic}", name="note", description="A note on a topic")
def note(topic: str) -> str:
    return f"a note on {topic}"


if CHANGED:
    @server.prompt(description="Reviews code")
    def review(code: str, style: str) -> str:
        return f"Review this code in the {style} style:\n{code}"
else:
    @server.prompt(description="Reviews code")
    def review(code: str, language: str = "python") -> str:
        return f"Review this {language} code:\n{code}"

    @server.prompt(description="Says hello")
    def hello() -> str:
        return "Say hello"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run()
    else:
        import uvicorn

        app = server.streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
