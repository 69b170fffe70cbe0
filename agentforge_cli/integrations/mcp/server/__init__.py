"""``agentforge serve``: a tool table served over MCP, on stdio or streamable HTTP."""
