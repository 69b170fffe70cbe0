"""``agentforge serve``: the tool table as an MCP server over stdio.

The server is :mod:`agentforge_cli.integrations.mcp_server` (the optional ``mcp`` extra);
this module checks the options, claims stdin and stdout for the protocol *before* the
targets are imported (so a print at import time goes to standard error too), loads them
and hands the service over. ``--log`` writes the call log to standard error.

Exit codes: ``0`` the client disconnected (or Ctrl-C) · ``2`` usage error (no target, a
bad ``--timeout``) · ``3`` a target cannot be loaded, or the MCP SDK is not installed (the
message says how to install it).
"""

from __future__ import annotations

import math
from typing import Annotated

import typer

from agentforge_cli.cli.errors import LoadError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.tools_cmd import TargetsArgument, ToolsOption


def serve(
    targets: TargetsArgument = None,
    tools: ToolsOption = None,
    log: Annotated[bool, typer.Option(
        "--log", help="Log each call's request and response to stderr.")] = False,
    strict: Annotated[bool, typer.Option(
        "--strict", help="A missing required parameter or an unknown key is an error "
                         "result (as tools call --strict).")] = False,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="SECONDS",
        help="A call still running after this long is an error result naming the limit; "
             "also bounds how long the server waits for running calls once stdin "
             "closes.")] = None,
) -> None:
    """Serve the tools over the Model Context Protocol (stdio).

    Register this command with an MCP client; it runs until the client closes stdin,
    then answers the calls still running and exits. Standard output carries the protocol
    only: whatever a tool prints goes to standard error.

    Needs the MCP SDK: pip install '.\\[mcp]' in a clone of agentforge (exit 3 without it).
    """
    with guarded():
        if timeout is not None and not 0 < timeout < math.inf:
            raise UsageError(f"--timeout must be a positive number of seconds, got {timeout:g}")
        from agentforge_cli.integrations.mcp_server import (
            MCPUnavailableError,
            require_mcp,
            run_stdio,
        )

        try:
            require_mcp()
        except MCPUnavailableError as exc:
            raise LoadError(str(exc)) from None
        from agentforge_cli.integrations.mcp_stdio import claim_stdio
        from agentforge_cli.integrations.targets import load_service

        with claim_stdio() as wire:
            # The call log is the logging decorator's (build with logging=log) rendered by
            # run_stdio's stderr handler (log=log); the CLI adds no handler of its own.
            service = load_service([*(targets or ()), *(tools or ())], logging=log,
                                   strict=strict, timeout=timeout)
            run_stdio(service, log=log, wire=wire)
