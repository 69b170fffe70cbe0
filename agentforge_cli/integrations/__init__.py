"""What connects the tools to the outside: target loading, the MCP server, the pytest plugin."""
