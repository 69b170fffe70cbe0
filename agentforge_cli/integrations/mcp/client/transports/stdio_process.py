"""The process of an ``mcp:`` server, so that a server that dies can be told by its exit
status.

The SDK's stdio client starts the process and keeps it to itself; :func:`capturing` hands
it to a callback for the servers started inside the block (a context variable, so
connections opened at the same time stay apart). :func:`exit_status` says how it ended.
Without the SDK's spawn function (another SDK version) nothing is captured and the status
is unknown.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["capturing", "exit_status"]

_SINK: contextvars.ContextVar[Callable[[Any], None] | None] = contextvars.ContextVar(
    "agentforge_mcp_process_sink", default=None)
_SPAWN = "_create_platform_compatible_process"


def _install() -> None:
    """Wrap the SDK's spawn function once, so that it reports each process it starts."""
    from mcp.client import stdio

    spawn = getattr(stdio, _SPAWN, None)
    if spawn is None or getattr(spawn, "agentforge_reports", False):
        return

    async def spawn_and_report(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        sink = _SINK.get()
        if sink is not None:
            from agentforge_cli.integrations.mcp.client.transports.stdio_framing import framed

            process = framed(process)  # whole, bounded lines: see stdio_framing
            sink(process)
        return process

    spawn_and_report.agentforge_reports = True  # type: ignore[attr-defined]  # a mark: wrapped once
    setattr(stdio, _SPAWN, spawn_and_report)


@contextlib.contextmanager
def capturing(sink: Callable[[Any], None]) -> Iterator[None]:
    """Call ``sink`` with the process of each stdio server started inside the block."""
    _install()
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def exit_status(returncode: int | None) -> str | None:
    """``killed by SIGSEGV (signal 11)``, ``exited with status 139 (...)``; ``None`` while
    the process runs."""
    import signal

    if returncode is None:
        return None
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            return f"killed by signal {-returncode}"
        return f"killed by {name} (signal {-returncode})"
    text = f"exited with status {returncode}"
    if 128 < returncode < 128 + 65:
        with contextlib.suppress(ValueError):
            text += (f" (what a shell reports for a command killed by "
                     f"{signal.Signals(returncode - 128).name})")
    return text
