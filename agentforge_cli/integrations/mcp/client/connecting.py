"""The connection to the MCP server a target names, made one way for every use: its tools
(:mod:`~agentforge_cli.integrations.mcp.client.loading`) and its resources and prompts
(:mod:`~agentforge_cli.integrations.mcp.client.surface`) are reached with the same
headers, environment, directory, protocol era, client answers and OAuth authorizer
(:class:`~agentforge_cli.integrations.mcp.client.options.McpOptions`)."""

from __future__ import annotations

from pathlib import Path

from agentforge_cli.core.observe.masking import mask_target
from agentforge_cli.errors import MCPUnavailableError
from agentforge_cli.integrations.mcp.client.connection import McpConnection
from agentforge_cli.integrations.mcp.client.failures import INSTALL_HINT
from agentforge_cli.integrations.mcp.client.headers import merged_headers
from agentforge_cli.integrations.mcp.client.options import McpOptions, startup_timeout
from agentforge_cli.integrations.mcp.client.transports.stdio import command_argv
from agentforge_cli.integrations.mcp.client.urls import check_url, is_url

__all__ = ["server_connection"]


def server_connection(spec: str, base: Path, *, options: McpOptions | None = None,
                      timeout: float | None = None) -> McpConnection:
    """The connection (not yet open) to the server ``spec`` names (``mcp:COMMAND`` or a
    URL). ``timeout`` bounds start-up and each call; without it, the start-up timeout's
    default and :attr:`McpOptions.call_timeout`. A URL gets the server's OAuth authorizer
    when ``--oauth`` asks for one or tokens are cached for it.

    Raises:
        TargetConfigError: A malformed command or URL, or the SDK is not installed.
    """
    import importlib.util

    url = is_url(spec)
    if url:
        check_url(spec)
    argv = [] if url else command_argv(spec)
    if importlib.util.find_spec("mcp") is None:  # found, not imported: that takes a while
        raise MCPUnavailableError(f"cannot use target {mask_target(spec)!r}: the mcp package "
                                  "is not installed", hint=INSTALL_HINT)
    options = options or McpOptions()
    oauth = None
    if url:
        from agentforge_cli.integrations.mcp.client.oauth import authorizer_for

        oauth = authorizer_for(spec, interactive=options.oauth,
                               on_authorize=options.on_authorize)
    return McpConnection(spec, argv, cwd=options.cwd or base,
                         timeout=startup_timeout(timeout),
                         call_timeout=options.call_timeout if timeout is None else timeout,
                         headers=merged_headers(options.headers) if url else None,
                         env=None if url else options.env, era=options.protocol_era,
                         oauth=oauth, answers=options.answers)
