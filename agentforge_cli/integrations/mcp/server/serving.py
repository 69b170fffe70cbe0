"""How ``agentforge serve`` serves: its options checked and its transport chosen before
anything starts, then — the process claimed, standard input and output claimed for the
protocol *before* the tools are loaded (so a print at import time goes to standard error)
— the service handed to the stdio or the streamable HTTP server.

Importing this module imports neither the MCP SDK nor the tools.
"""

from __future__ import annotations

import math
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentforge_cli.errors import CommandInputError

if TYPE_CHECKING:
    from agentforge_cli.core.observe.recording import CallRecorder
    from agentforge_cli.core.run.service import ToolService
    from agentforge_cli.integrations.config.serve import ServerIdentity

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "HttpAddress", "choose_transport", "open_recorder",
           "prepare_to_serve", "serve_http", "serve_stdio"]

DEFAULT_HOST = "127.0.0.1"
"""Where ``--transport http`` listens unless ``--host`` says: this machine only."""
DEFAULT_PORT = 8000


@dataclass(frozen=True, slots=True)
class HttpAddress:
    """Where the streamable HTTP server listens, and what else it accepts."""

    host: str
    port: int
    allow_origins: tuple[str, ...] = ()
    """Browser ``Origin`` values accepted besides the server's own."""
    allow_hosts: tuple[str, ...] = ()
    """``Host`` names accepted besides the server's own (``NAME`` or ``NAME:PORT``)."""


def choose_transport(transport: str, *, timeout: float | None, host: str | None,
                     port: int | None, allow_origin: Sequence[str] | None,
                     allow_host: Sequence[str] | None) -> HttpAddress | None:
    """The HTTP address to listen on for ``--transport http``, ``None`` for stdio.

    Raises:
        CommandInputError: A ``--timeout`` that is not a positive finite number, an HTTP
            option without ``--transport http``, an ``--allow-host`` that is no host
            name, or a ``--port`` outside 0-65535.
    """
    if timeout is not None and not 0 < timeout < math.inf:
        raise CommandInputError(f"--timeout must be a positive number of seconds, got "
                                f"{timeout:g}")
    if transport == "stdio" and (host, port, allow_origin, allow_host) != (None,) * 4:
        raise CommandInputError("--host, --port, --allow-origin and --allow-host need "
                                "--transport http")
    for name in allow_host or ():
        if not name.strip() or any(char in name for char in " \t\r\n/"):
            raise CommandInputError(f"--allow-host takes a host name, got {name!r}",
                                    hint="e.g. --allow-host tools.example.com")
    if port is not None and not 0 <= port <= 65535:
        raise CommandInputError(f"--port must be between 0 and 65535, got {port}")
    if transport == "stdio":
        return None
    return HttpAddress(host=host or DEFAULT_HOST, port=DEFAULT_PORT if port is None else port,
                       allow_origins=tuple(allow_origin or ()),
                       allow_hosts=tuple(allow_host or ()))


def open_recorder(record: Path | None) -> CallRecorder | None:
    """The ``CallRecorder`` of ``--record FILE``, opened now (a bad path is refused before
    anything is served), or ``None``.

    Raises:
        CommandInputError: The file cannot be opened for appending.
    """
    if record is None:
        return None
    from agentforge_cli.core.observe.recording import CallRecorder

    try:
        return CallRecorder(record)
    except OSError as exc:
        raise CommandInputError(f"--record {record}: cannot be opened for appending: "
                                f"{exc.strerror or exc}") from None


def prepare_to_serve() -> None:
    """Check that the MCP SDK can be used, and make a child a tool forks end with the tool
    (it serves nothing).

    Raises:
        MCPUnavailableError: The SDK is missing or too old (the message says how to
            install it).
    """
    from agentforge_cli.core.run.forks import claim_process
    from agentforge_cli.integrations.mcp.server.tool_server import require_mcp

    require_mcp()
    claim_process()


def serve_stdio(load: Callable[[], ToolService], *, log: bool,
                identity: ServerIdentity | None = None) -> None:
    """Claim standard input and output for the protocol, then load the tools and serve
    them until the client closes standard input (introduced as ``identity`` says)."""
    from agentforge_cli.integrations.mcp.server.stdio import claim_stdio
    from agentforge_cli.integrations.mcp.server.tool_server import run_stdio

    with claim_stdio() as wire:
        # The call log is the logging decorator's (the service built with logging=log)
        # rendered by run_stdio's stderr handler (log=log).
        run_stdio(load(), log=log, wire=wire, identity=identity)


def serve_http(load: Callable[[], ToolService], sock: socket.socket, address: HttpAddress,
               *, log: bool, identity: ServerIdentity | None = None) -> None:
    """Claim standard output (nothing but the product's output may reach it), then load
    the tools and serve them on ``sock`` until Ctrl-C or SIGTERM. ``sock`` is bound
    first (:func:`~agentforge_cli.integrations.mcp.server.streamable_http.bind_socket`),
    so that a taken port fails before any tool is imported."""
    from agentforge_cli.integrations.mcp.server.stdio import claim_stdio
    from agentforge_cli.integrations.mcp.server.streamable_http import run_http

    with sock, claim_stdio():
        run_http(load(), host=address.host, sock=sock, allow_origins=address.allow_origins,
                 allow_hosts=address.allow_hosts, log=log, identity=identity)
