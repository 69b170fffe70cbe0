"""A served-again MCP server whose tools changed (``notifications/tools/list_changed``): its
tools are listed again and put in place of those it had in the served table, then every
client session is told, so a client that lists again sees them and can call them.

A refresh runs on a thread of its own (the notification arrives on the connection's
thread, which must stay free to read the answer to ``tools/list``), one at a time. A tool
gone from the list is taken out (a call already under way finishes); a new one is served
through an executor made as the server's others were (:attr:`McpConnection.make_executor`:
the same ``--log``, timeouts and errors). A new tool whose name another target already
serves, or that the list names twice, is left out and said on stderr: the first to serve
a name keeps it, as at start-up. A server that cannot be listed again keeps the tools it
had, said on stderr; nothing is told.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["ToolChanges"]


class ToolChanges:
    """Refreshes the tools of ``service``'s upstreams; ``tell`` is called with
    ``notifications/tools/list_changed`` once a refresh is in place."""

    def __init__(self, service: Any, tell: Callable[[str], None]) -> None:
        self.service = service
        self._tell = tell
        self._one_at_a_time = threading.Lock()

    def heard(self, connection: Any) -> None:
        """``connection``'s server said its tools changed (on the connection's thread)."""
        threading.Thread(target=self.refresh, args=(connection,), daemon=True,
                         name="agentforge-tool-changes").start()

    def refresh(self, connection: Any) -> None:
        """List ``connection``'s tools again, put them in place, and tell the sessions."""
        from agentforge_cli.errors import AgentForgeError
        from agentforge_cli.integrations.mcp.server.list_changes import TOOLS_CHANGED

        if connection.make_executor is None:  # not loaded as a target: nothing to serve
            return
        with self._one_at_a_time:
            try:
                tools = connection.list_tools_again()
            except AgentForgeError as exc:
                _say(f"the tools of MCP server {connection.shown} changed, and cannot be "
                     f"listed again (the earlier ones are served): {exc}")
                return
            self._replace(connection, tools)
        self._tell(TOOLS_CHANGED)

    def _replace(self, connection: Any, tools: list[dict[str, Any]]) -> None:
        from agentforge_cli.core.run.wrapping import innermost
        from agentforge_cli.integrations.mcp.client.executor import McpToolExecutor
        from agentforge_cli.integrations.mcp.client.loading import tool_specification

        service = self.service
        held = {name for name in service.names
                if isinstance(base := innermost(service.executor(name)), McpToolExecutor)
                and base.connection is connection}
        taken = set(service.names) - held
        table: dict[Any, Any] = {}
        for tool in tools:
            specification = tool_specification(tool)
            name = specification.name
            if name in taken:
                _say(f"tool {name!r} of MCP server {connection.shown} is not served: "
                     "another target serves a tool of that name")
                continue
            taken.add(name)
            table[specification] = connection.make_executor(specification)
        service.withdraw(held - {specification.name for specification in table})
        service.tools(table)


def _say(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"agentforge: {text}\n")
        sys.stderr.flush()
