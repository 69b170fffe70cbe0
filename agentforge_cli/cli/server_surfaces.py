"""The MCP servers ``agentforge resources`` and ``agentforge prompts`` speak to: the targets
found as for every command (arguments, ``-t``, ``AGENTFORGE_TOOLS``, ``pyproject.toml``),
of which only MCP servers have resources and prompts, each opened for the command's
length (:func:`opened_servers`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from agentforge_cli.cli.errors import UsageError

__all__ = ["opened_servers"]


@contextlib.contextmanager
def opened_servers(given: Sequence[str], reach: Any, *, timeout: float | None = None,
                   one: bool = False) -> Iterator[list[Any]]:
    """Each MCP server of the targets, its session open (closed at the end); ``one``: the
    command needs a single server.

    Raises:
        UsageError: No target names an MCP server (or more than one, with ``one``).
    """
    from agentforge_cli.integrations.mcp.client.surface import open_surface
    from agentforge_cli.integrations.mcp.client.transports.inference import is_mcp_target
    from agentforge_cli.integrations.targets.loading import find_targets

    source = find_targets(list(given) or None)
    servers = [spec for spec in source.specs if is_mcp_target(spec)]
    if not servers:
        raise UsageError("resources and prompts are served by MCP servers, and no target "
                         "names one", hint="give one: 'mcp:COMMAND ARGS...' or an "
                                           "http(s):// URL")
    if one and len(servers) > 1:
        raise UsageError(f"{len(servers)} MCP servers are named; this command reads from one",
                         hint="name the server with -t")
    opened: list[Any] = []
    try:
        for spec in servers:
            opened.append(open_surface(spec, source.base, options=reach, timeout=timeout))
        yield opened
    finally:
        for surface in opened:
            surface.close()
