"""``agentforge record``: put a recorder in front of an MCP server (stdio).

The client starts ``agentforge record -o FILE -- COMMAND...`` instead of ``COMMAND``;
:mod:`~agentforge_cli.integrations.mcp_record` forwards the session unchanged and writes
it to FILE, an MCP session log ``agentforge replay`` reads.

Exit codes: the server's own status (``128 + N`` when signal N ended it) · ``2`` usage
error (no command, FILE cannot be opened for appending) · ``3`` the command cannot be
started.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentforge_cli.cli.errors import UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.target_options import mcp_options


def record(
    command: Annotated[list[str] | None, typer.Argument(
        metavar="COMMAND", show_default=False,
        help="The MCP server's command line, after --.")] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", metavar="FILE", show_default=False,
        help="The session log to append to (JSONL, created when missing).")] = None,
    no_mask: Annotated[bool, typer.Option(
        "--no-mask", help="Write secrets as they are (arguments named like a secret, "
                          "--env values); by default they are written as ***.")] = False,
    env: Annotated[list[str] | None, typer.Option(
        "--env", metavar="KEY=VALUE", show_default=False,
        help="An environment variable for the server, added to yours; repeatable. Never "
             "printed, and written to FILE as ***.")] = None,
    cwd: Annotated[str | None, typer.Option(
        "--cwd", metavar="DIR", show_default=False,
        help="The directory the server runs in (default: the current one).")] = None,
) -> None:
    """Record an MCP session: run COMMAND as the server and log every message.

    Give a client this command instead of the server's (its mcpServers entry: "command":
    "agentforge", "args": ["record", "-o", "FILE", "--", ...]). Every message passes
    unchanged both ways; FILE gets each one with its direction and time, and replays
    with: agentforge replay FILE -t "mcp:COMMAND". Standard output carries the server's
    output only; the exit status is the server's.
    """
    with guarded():
        if not command:
            raise UsageError("no server command given",
                             hint="put it after --: agentforge record -o session.jsonl -- "
                                  "python server.py")
        if output is None:
            raise UsageError("--output FILE is required: where the session is written")
        reach = mcp_options(None, env, cwd)
        from agentforge_cli.integrations.mcp_record import SessionLog, record_stdio
        from agentforge_cli.integrations.mcp_stdio import claim_stdio

        try:
            log = SessionLog(output, mask=not no_mask,
                             secrets=tuple(reach.env.values()) if reach else ())
        except OSError as exc:
            raise UsageError(f"--output {output}: cannot be opened for appending: "
                             f"{exc.strerror or exc}") from None
        try:
            with claim_stdio() as wire:
                status = record_stdio(command, log, reader=wire.reader, writer=wire.writer,
                                      env=reach.env if reach else None,
                                      cwd=reach.cwd if reach else None)
        finally:
            log.close()
    raise typer.Exit(status)
