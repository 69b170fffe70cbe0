"""``agentforge record``: put a recorder in front of an MCP server.

The client starts ``agentforge record -o FILE -- COMMAND...`` instead of ``COMMAND``;
:mod:`~agentforge_cli.integrations.mcp.record.stdio_proxy` forwards the session unchanged and writes
it to FILE, an MCP session log ``agentforge replay`` reads. With ``--url URL`` (a
streamable-HTTP server) the client is given a loopback address instead
(:mod:`~agentforge_cli.integrations.mcp.record.http_proxy`).

Exit codes: the server's own status (``128 + N`` when signal N ended it), ``0`` for the
HTTP proxy stopped by SIGINT/SIGTERM · ``2`` usage error (no command or URL, both, FILE
cannot be opened for appending or is not a regular file, an option of the other form)
· ``3`` the command cannot be started, or the port cannot be listened on.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer

from agentforge_cli.cli.errors import LoadError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import HeaderOption, mcp_options

_URL_PREFIXES = ("http://", "https://")


def record(
    command: Annotated[list[str] | None, typer.Argument(
        metavar="COMMAND", show_default=False,
        help="The MCP server's command line, after --.")] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", metavar="FILE", show_default=False,
        help="The session log to append to (JSONL, created when missing).")] = None,
    no_mask: Annotated[bool, typer.Option(
        "--no-mask", help="Write secrets as they are (arguments named like a secret, "
                          "--env and --header values); by default they are written as "
                          "***.")] = False,
    env: Annotated[list[str] | None, typer.Option(
        "--env", metavar="KEY=VALUE", show_default=False,
        help="An environment variable for the server, added to yours; repeatable. Never "
             "printed; a value of 8 characters or more of a variable named like a secret "
             "(API_TOKEN...) is written to FILE as ***.")] = None,
    cwd: Annotated[str | None, typer.Option(
        "--cwd", metavar="DIR", show_default=False,
        help="The directory the server runs in (default: the current one).")] = None,
    url: Annotated[str | None, typer.Option(
        "--url", metavar="URL", show_default=False,
        help="Record a streamable-HTTP MCP server instead: a proxy on 127.0.0.1 forwards "
             "to URL; give the client the address it prints.")] = None,
    port: Annotated[int | None, typer.Option(
        "--port", metavar="PORT", show_default=False,
        help="With --url: the port the proxy listens on (default 0: a free one).")] = None,
    header: HeaderOption = None,
) -> None:
    """Record an MCP session: run COMMAND as the server and log every message.

    Give a client this command instead of the server's (its mcpServers entry: "command":
    "agentforge", "args": ["record", "-o", "FILE", "--", ...]). Every message passes
    unchanged both ways; FILE gets each one with its direction and time, and replays
    with: agentforge replay FILE -t "mcp:COMMAND". Standard output carries the server's
    output only; the exit status is the server's.

    With --url URL, a streamable-HTTP server is recorded through a proxy on 127.0.0.1
    (its address goes to standard error) until Ctrl-C or SIGTERM; FILE replays with:
    agentforge replay FILE -t URL.
    """
    with guarded():
        # Past ``ulimit -f`` a write fails (EFBIG) instead of killing the proxy; the
        # server is started with the default back (``Popen(restore_signals=True)``).
        # Windows has no such signal.
        if hasattr(signal, "SIGXFSZ"):
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if url is not None:
            if command:
                raise UsageError("give either --url or a server command after --, not both")
            if env or cwd:
                raise UsageError("--env and --cwd are for a server command; a --url server "
                                 "runs already")
            _record_url(url, output, port, header, no_mask)
            return
        status = _record_command(command, output, port, header, env, cwd, no_mask)
    raise typer.Exit(status)


def _record_command(command: list[str] | None, output: Path | None, port: int | None,
                    header: list[str] | None, env: list[str] | None, cwd: str | None,
                    no_mask: bool) -> int:
    """``record -- COMMAND``: run the server behind the stdio proxy; its exit status."""
    if port is not None or header:
        raise UsageError("--port and --header need --url")
    if not command:
        raise UsageError("no server command given",
                         hint="put it after --: agentforge record -o session.jsonl -- "
                              "python server.py")
    if output is None:
        raise UsageError("--output FILE is required: where the session is written")
    reach = mcp_options(None, env, cwd)
    from agentforge_cli.core.observe.masking import secret_values
    from agentforge_cli.integrations.mcp.record.stdio_proxy import SessionLog, record_stdio
    from agentforge_cli.integrations.mcp.server.stdio import claim_stdio

    try:
        log = SessionLog(output, mask=not no_mask,
                         secrets=secret_values(reach.env) if reach else ())
    except OSError as exc:
        raise UsageError(f"--output {output}: cannot be opened for appending: "
                         f"{exc.strerror or exc}") from None
    try:
        with claim_stdio() as wire:
            return record_stdio(command, log, reader=wire.reader, writer=wire.writer,
                                env=reach.env if reach else None,
                                cwd=reach.cwd if reach else None)
    finally:
        log.close()


def _record_url(url: str, output: Path | None, port: int | None, header: list[str] | None,
                no_mask: bool) -> None:
    """``record --url``: bind the loopback port, then proxy until SIGINT/SIGTERM."""
    if not url.startswith(_URL_PREFIXES) or not url.partition("://")[2].strip("/"):
        raise UsageError("--url takes the http(s):// address of a streamable-HTTP MCP "
                         "server", hint="e.g. --url http://127.0.0.1:8000/mcp")
    if output is None:
        raise UsageError("--output FILE is required: where the session is written")
    if port is not None and not 0 <= port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535, got {port}")
    reach = mcp_options(header, None, None)
    from agentforge_cli.integrations.mcp.client.headers import merged_headers as _headers
    from agentforge_cli.integrations.mcp.record.http_proxy import LOOPBACK, run_proxy
    from agentforge_cli.integrations.mcp.record.stdio_proxy import SessionLog
    from agentforge_cli.integrations.mcp.server.streamable_http import ListenError, bind_socket

    headers = _headers(reach.headers if reach else None)
    try:
        sock = bind_socket(LOOPBACK, port or 0)
    except ListenError as exc:
        raise LoadError(str(exc), hint="pick another --port, or 0 for a free one") from None
    try:
        log = SessionLog(output, mask=not no_mask)
    except OSError as exc:
        sock.close()
        raise UsageError(f"--output {output}: cannot be opened for appending: "
                         f"{exc.strerror or exc}") from None
    try:
        run_proxy(url, log, sock=sock, headers=headers)
    finally:
        log.close()
        sock.close()
