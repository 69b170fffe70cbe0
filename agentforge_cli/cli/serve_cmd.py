"""``agentforge serve``: the tool table as an MCP server over stdio or streamable HTTP.

The server is :mod:`agentforge_cli.integrations.mcp.server.tool_server` (the optional
``mcp`` extra); this module checks the options, claims stdin and stdout for the protocol
*before* the targets are imported (so a print at import time goes to standard error too),
loads them and hands the service over. ``--log`` writes the call log to standard error. With
``--transport http`` the port is bound first
(:mod:`~agentforge_cli.integrations.mcp.server.streamable_http`) and standard output is
claimed all the same, so it stays empty.

Exit codes: ``0`` the client disconnected (or Ctrl-C, SIGTERM) · ``2`` usage error (no
target, a bad ``--timeout``, ``--port`` or ``--transport``) · ``3`` a target cannot be
loaded, the port cannot be listened on, or the MCP SDK is not installed (the message says
how to install it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from agentforge_cli.cli.errors import LoadError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import (
    BindingOption,
    CwdOption,
    EnvOption,
    HeaderOption,
    SchemaForm,
    SchemaFormOption,
    StrictOption,
    TargetsArgument,
    ToolsOption,
    mcp_options,
    project_choices,
)
from agentforge_cli.cli.schema_form import apply_schema_form


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
    header: HeaderOption = None, env: EnvOption = None, cwd: CwdOption = None,
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
        if timeout is not None and not 0 < timeout < math.inf:
            raise UsageError(f"--timeout must be a positive number of seconds, got {timeout:g}")
        if transport == "stdio" and (host, port, allow_origin, allow_host) != (None,) * 4:
            raise UsageError("--host, --port, --allow-origin and --allow-host need "
                             "--transport http")
        for name in allow_host or ():
            if not name.strip() or any(char in name for char in " \t\r\n/"):
                raise UsageError(f"--allow-host takes a host name, got {name!r}",
                                 hint="e.g. --allow-host tools.example.com")
        if port is not None and not 0 <= port <= 65535:
            raise UsageError(f"--port must be between 0 and 65535, got {port}")
        strict, timeout = project_choices(strict, timeout)
        reach = mcp_options(header, env, cwd)
        recorder = _recorder(record)
        from agentforge_cli.integrations.mcp.server.tool_server import require_mcp, run_stdio

        require_mcp()  # MCPUnavailableError, a TargetError: exit 3 with how to install it
        from agentforge_cli.core.run.forks import claim_process

        claim_process()  # a child a tool forks ends with the tool, and serves nothing
        from agentforge_cli.integrations.mcp.server.stdio import claim_stdio
        from agentforge_cli.integrations.targets.loading import load_service

        if transport == "http":
            _serve_http([*(targets or ()), *(tools or ())], log=log, strict=strict,
                        timeout=timeout, host=host or "127.0.0.1",
                        port=8000 if port is None else port, allow_origins=allow_origin or (),
                        allow_hosts=allow_host or (), reach=reach, record=recorder,
                        binding=binding, schema_form=schema_form)
            return
        with claim_stdio() as wire:
            # The call log is the logging decorator's (build with logging=log) rendered by
            # run_stdio's stderr handler (log=log); the CLI adds no handler of its own.
            from agentforge_cli.cli.render import skipped_tool

            service = load_service([*(targets or ()), *(tools or ())], logging=log,
                                   strict=strict, timeout=timeout, mcp_options=reach,
                                   record=recorder, binding=binding,
                                   skip_problems=skipped_tool)
            apply_schema_form(service, schema_form)
            run_stdio(service, log=log, wire=wire)


def _recorder(record: Path | None) -> Any:
    """The ``CallRecorder`` of ``--record FILE`` (opened now: a bad path is a usage
    error before anything is served), or ``None``."""
    if record is None:
        return None
    from agentforge_cli.core.observe.recording import CallRecorder

    try:
        return CallRecorder(record)
    except OSError as exc:
        raise UsageError(f"--record {record}: cannot be opened for appending: "
                         f"{exc.strerror or exc}") from None


def _serve_http(targets: list[str], *, log: bool, strict: bool, timeout: float | None,
                host: str, port: int, allow_origins: Sequence[str],
                allow_hosts: Sequence[str], reach: Any, record: Any,
                binding: str, schema_form: SchemaForm) -> None:
    from agentforge_cli.integrations.mcp.server.stdio import claim_stdio
    from agentforge_cli.integrations.mcp.server.streamable_http import (
        ListenError,
        bind_socket,
        run_http,
    )
    from agentforge_cli.integrations.targets.loading import load_service

    try:
        sock = bind_socket(host, port)  # first: a taken port fails before any import
    except ListenError as exc:
        raise LoadError(str(exc), hint="pick another --port, or 0 for a free one") from None
    with sock, claim_stdio():  # nothing but the product's output may reach stdout
        from agentforge_cli.cli.render import skipped_tool

        service = load_service(targets, logging=log, strict=strict, timeout=timeout,
                               mcp_options=reach, record=record, binding=binding,
                               skip_problems=skipped_tool)
        apply_schema_form(service, schema_form)
        run_http(service, host=host, sock=sock, allow_origins=allow_origins,
                 allow_hosts=allow_hosts, log=log)
