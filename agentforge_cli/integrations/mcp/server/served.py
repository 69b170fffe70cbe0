"""Which tools of a service an MCP server runs, out of this process.

Fuzzing reads it twice: such a tool is called only when its annotations say it only reads,
and its calls are out of the effect guard's sight (the guard watches this process).
"""

from __future__ import annotations

from typing import Any

__all__ = ["served_tool_names"]


def served_tool_names(service: Any) -> frozenset[str]:
    """The names of the tools of ``service`` (a ``ToolService``) an MCP server serves."""
    from agentforge_cli.core.run.wrapping import innermost
    from agentforge_cli.integrations.mcp.client.executor import McpToolExecutor

    return frozenset(name for name in service.names
                     if isinstance(innermost(service.executor(name)), McpToolExecutor))
