"""Telling a tool's own ``SystemExit`` or ``KeyboardInterrupt`` from a real Ctrl-C.

A tool that wraps an argparse or click command line raises ``SystemExit``; a tool may
raise ``KeyboardInterrupt`` too. Both are the tool's failure: an error result like any
other exception. A Ctrl-C of the process must still stop it, and Python's SIGINT handler
raises its ``KeyboardInterrupt`` in the main thread wherever that thread is — possibly
inside a sync tool. :func:`watch_sigint` puts a handler in front of Python's default one
that behaves the same and remembers the exception it raises; :func:`raised_by_tool` is
false for that exception (and for one the tool raised while handling it).

Signals only ever interrupt the main thread, so in a worker thread (``timeout=``, a sync
tool called from async code) every ``KeyboardInterrupt`` is the tool's.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["raised_by_tool", "watch_sigint"]

_signalled: list[BaseException] = []  # the KeyboardInterrupt a Ctrl-C raised, if any


def _on_sigint(signum: int, frame: Any) -> None:
    exc = KeyboardInterrupt()
    _signalled[:] = [exc]
    raise exc


def watch_sigint() -> None:
    """Install the remembering SIGINT handler, when Python's default one is in place and
    this is the main thread (anything else — asyncio's, uvicorn's, the user's own — is
    left alone: those do not raise inside tools, or are the user's choice)."""
    if threading.current_thread() is not threading.main_thread():
        return
    import signal

    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _on_sigint)
    except (ValueError, OSError):  # no signals here (an embedded interpreter)
        pass


def raised_by_tool(exc: BaseException) -> bool:
    """False for the ``KeyboardInterrupt`` of a Ctrl-C (or an exception raised while it
    was being handled): that one stops the process. True for everything else."""
    if not _signalled:
        return True
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 100:
        if current is _signalled[0]:
            return False
        current = current.__context__
        seen += 1
    return True
