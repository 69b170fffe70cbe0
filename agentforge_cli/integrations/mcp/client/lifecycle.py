"""The MCP connections open in this process, and their end: :func:`close_all` at exit (or
when called), and SIGTERM passed on to the ``mcp:`` servers before the process ends."""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["close_all", "forget", "register"]

if TYPE_CHECKING:
    from typing import Protocol

    class _Open(Protocol):
        """What the lifecycle needs of a connection."""

        def close(self) -> None: ...

        def signal_server(self, signum: int) -> None: ...


_OPEN: list[_Open] = []


def register(connection: _Open) -> None:
    """Keep ``connection`` until it closes; the first one sets up the ends at exit and on
    SIGTERM."""
    if not _OPEN:
        import atexit

        atexit.unregister(close_all)
        atexit.register(close_all)
        _stop_servers_on_sigterm()
    _OPEN.append(connection)


def forget(connection: _Open) -> None:
    """``connection`` has closed (nothing when it was not kept)."""
    if connection in _OPEN:
        _OPEN.remove(connection)


def _stop_servers_on_sigterm() -> None:
    """SIGTERM ends the process as its default handler would, but first passes SIGTERM on
    to the ``mcp:`` servers started: one busy in a call is not left running (``atexit``
    does not run on a signal). Only where the default handler is in place (or the shared
    one of :mod:`~agentforge_cli.core.run.sigterm`, which ends the process the same way)."""
    from agentforge_cli.core.run.sigterm import before_sigterm

    before_sigterm(_signal_servers)


def _signal_servers() -> None:
    import signal

    for connection in list(_OPEN):
        connection.signal_server(signal.SIGTERM)


def close_all() -> None:
    """Close every open MCP connection, newest first (also run at exit)."""
    while _OPEN:
        _OPEN[-1].close()
