"""An MCP server written with the official SDK (``MCPServer``) that lists no tool: only a
resource and a prompt, as a documentation server or a prompt library does. ``python
toolless_server.py`` serves it over stdio."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("toolless")


@server.resource("docs://guide", name="guide", description="The guide",
                 mime_type="text/plain")
def guide() -> str:
    return "read the guide first"


@server.prompt(description="Summarises a topic")
def summarise(topic: str) -> str:
    return f"Summarise {topic}"


if __name__ == "__main__":
    server.run()
