"""The ways to speak to an MCP server: :mod:`.stdio` (an ``mcp:`` command), :mod:`.streamable_http`
and :mod:`.sse` (a URL); :func:`~.inference.infer_transport` says which one a target gets."""
