"""``agentforge serve``: the tool table as an MCP server over stdio or streamable HTTP.

The server is :mod:`agentforge_cli.integrations.mcp.server.tool_server` (the optional
``mcp`` extra); :mod:`~agentforge_cli.integrations.mcp.server.serving` checks the options,
chooses the transport and claims stdin and stdout for the protocol *before* the targets are
imported (so a print at import time goes to standard error too); this module reads the
options and says how the tools are loaded. ``--log`` writes the call log to standard error. With
``--transport http`` the port is bound first
(:mod:`~agentforge_cli.integrations.mcp.server.streamable_http`) and standard output is
claimed all the same, so it stays empty.

Exit codes: ``0`` the client disconnected (or Ctrl-C, SIGTERM) · ``2`` usage error (no
target, a bad ``--timeout``, ``--port`` or ``--transport``) · ``3`` a target cannot be
loaded, the port cannot be listened on, or the MCP SDK is not installed (the message says
how to install it).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from agentforge_cli.cli.errors import LoadError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import (
    BindingOption,
    McpReach,
    SchemaForm,
    SchemaFormOption,
    StrictOption,
    TargetsArgument,
    ToolsOption,
    mcp_reach_options,
    project_choices,
)
from agentforge_cli.cli.schema_form import apply_schema_form


@mcp_reach_options
def serve(
    targets: TargetsArgument = None,
    tools: ToolsOption = None,
    log: Annotated[bool, typer.Option(
        "--log", help="Log each call's request and response to stderr.")] = False,
    strict: StrictOption = None,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="SECONDS",
        help="A call still running after this long is an error result naming the limit; "
             "also bounds how long the server waits for running calls once stdin "
             "closes. Default: timeout in \\[tool.agentforge].")] = None,
    transport: Annotated[Literal["stdio", "http"], typer.Option(
        "--transport", metavar="stdio|http", show_default=False,
        help="stdio (the default) or http (streamable HTTP at /mcp).")] = "stdio",
    host: Annotated[str | None, typer.Option(
        "--host", metavar="HOST", help="With --transport http: the address to listen "
                                       "on; default 127.0.0.1, this machine only.")] = None,
    port: Annotated[int | None, typer.Option(
        "--port", metavar="PORT", help="With --transport http: the port (default 8000); "
                                       "0 picks a free one.")] = None,
    allow_origin: Annotated[list[str] | None, typer.Option(
        "--allow-origin", metavar="ORIGIN",
        help="With --transport http: also accept requests from this browser Origin, "
             "such as http://localhost:6274 (repeatable).")] = None,
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", metavar="NAME",
        help="With --transport http: also accept this Host name (any port; NAME:PORT for "
             "one port), e.g. the name a reverse proxy forwards (repeatable).")] = None,
    record: Annotated[Path | None, typer.Option(
        "--record", metavar="FILE", show_default=False,
        help="Append every call and its result to FILE, an agentforge JSONL transcript "
             "that replay reads (secrets masked).")] = None,
    binding: BindingOption = "native",
    schema_form: SchemaFormOption = "standard",
    *, reach: McpReach,
) -> None:
    """Serve the tools over the Model Context Protocol (stdio, or streamable HTTP).

    Register this command with an MCP client; over stdio it runs until the client closes
    stdin, then answers the calls still running and exits. With --transport http it
    listens on http://127.0.0.1:8000/mcp (see --host, --port) until Ctrl-C or SIGTERM.
    Standard output carries the protocol only: whatever a tool prints goes to standard
    error.

    Needs the MCP SDK: pip install '.\\[mcp]' in a clone of agentforge (exit 3 without it).
    """
    with guarded():
        from agentforge_cli.integrations.mcp.server import serving

        address = serving.choose_transport(transport, timeout=timeout, host=host, port=port,
                                           allow_origin=allow_origin, allow_host=allow_host)
        strict, timeout = project_choices(strict, timeout)
        from agentforge_cli.integrations.targets.loading import find_settings

        identity = find_settings().server  # [tool.agentforge.serve]
        servers = reach.options()
        recorder = serving.open_recorder(record)
        serving.prepare_to_serve()  # no MCP SDK: exit 3, saying how to install it
        load = functools.partial(_load, [*(targets or ()), *(tools or ())], log=log,
                                 strict=strict, timeout=timeout, reach=servers, record=recorder,
                                 binding=binding, schema_form=schema_form)
        if address is None:
            serving.serve_stdio(load, log=log, identity=identity)
            return
        from agentforge_cli.integrations.mcp.server.streamable_http import (
            ListenError,
            bind_socket,
        )

        try:
            sock = bind_socket(address.host, address.port)  # before any tool is imported
        except ListenError as exc:
            raise LoadError(str(exc), hint="pick another --port, or 0 for a free one") from None
        serving.serve_http(load, sock, address, log=log, identity=identity)


def _load(targets: list[str], *, log: bool, strict: bool, timeout: float | None, reach: Any,
          record: Any, binding: str, schema_form: SchemaForm) -> Any:
    """The service to serve, its tools in the ``--schema-form`` asked for."""
    from agentforge_cli.cli.render import skipped_tool
    from agentforge_cli.integrations.targets.loading import load_service

    service = load_service(targets, logging=log, strict=strict, timeout=timeout,
                           mcp_options=reach, record=record, binding=binding,
                           skip_problems=skipped_tool)
    apply_schema_form(service, schema_form)
    return service
