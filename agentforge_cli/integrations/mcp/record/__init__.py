"""``agentforge record``: proxies in front of an MCP server that write the session down."""
