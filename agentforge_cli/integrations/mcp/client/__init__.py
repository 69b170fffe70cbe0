"""MCP servers as targets: connecting, listing and calling their tools."""
