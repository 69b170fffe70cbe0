"""``agentforge serve``: the tool table as an MCP server over stdio.

The server is :mod:`agentforge_cli.integrations.mcp_server` (the optional ``mcp`` extra);
this module loads the targets and hands the service over. Standard output carries the protocol only:
nothing here prints to it, ``--log`` writes the call log to standard error.

Exit codes: ``0`` the client disconnected (or Ctrl-C) · ``2`` usage error (no target) ·
``3`` a target cannot be loaded, or the MCP SDK is not installed (the message says
``pip install 'agentforge-cli[mcp]'``).
"""

from __future__ import annotations

from typing import Annotated

import typer

from agentforge_cli.cli.errors import LoadError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.tools_cmd import ToolsOption


def serve(
    targets: Annotated[list[str] | None, typer.Argument(
        metavar="TARGET", show_default=False,
        help="Where the tools are: package.module, package.module:Name or "
             "path/to/file.py[:Name].")] = None,
    tools: ToolsOption = None,
    log: Annotated[bool, typer.Option(
        "--log", help="Log each call's request and response to stderr.")] = False,
) -> None:
    """Serve the tools over the Model Context Protocol (stdio).

    Register this command with an MCP client; it runs until the client disconnects.

    Needs the optional extra: pip install 'agentforge-cli\\[mcp]' (exit 3 without it).
    """
    with guarded():
        from agentforge_cli.integrations.mcp_server import (
            MCPUnavailableError,
            require_mcp,
            run_stdio,
        )

        try:
            require_mcp()
        except MCPUnavailableError as exc:
            raise LoadError(str(exc)) from None
        from agentforge_cli.integrations.targets import load_service

        # The call log is the logging decorator's (build with logging=log) rendered by
        # run_stdio's stderr handler (log=log); the CLI adds no handler of its own.
        service = load_service([*(targets or ()), *(tools or ())], logging=log)
        run_stdio(service, log=log)
