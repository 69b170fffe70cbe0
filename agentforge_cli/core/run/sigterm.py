"""Work done before the process dies of SIGTERM.

SIGTERM's default action ends the process at once: no ``atexit`` hook, ``finally`` block or
finalizer runs. What must not be left behind (calls a recorder has queued, a server
started, a temporary folder) registers a hook with :func:`before_sigterm`. One handler,
set in the main thread, runs the hooks and then ends the process as SIGTERM would have:
the default action is restored and the signal sent again, so the exit status still says
"killed by SIGTERM".

Where the application had set a handler of its own, a hook registered with ``chain=True``
runs before that handler is called (which then decides what happens); hooks that would
harm a process that goes on (stopping its servers) are only run where the process is
about to die. A handler the application sets later replaces this one.

A section of the main thread that a SIGTERM must not interrupt (a recorder writing a
batch: its handler would wait for the lock the section holds) is entered with
:func:`hold` and left with :func:`release`; a SIGTERM arriving inside waits until then.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["before_sigterm", "forget", "hold", "release"]

_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None

_hooks: list[tuple[Callable[[], None], bool]] = []
"""(hook, whether it also runs before an application's handler), in registration order."""
_previous: _Handler = signal.SIG_DFL
"""What the handler leads to once the hooks have run: SIG_DFL (death) or a function."""
_held = 0
"""Sections of the main thread open now (:func:`hold`)."""
_arrived: list[tuple[int, FrameType | None]] = []
"""A SIGTERM that arrived inside a section, handled when the last one is left."""


def before_sigterm(hook: Callable[[], None], *, chain: bool = False) -> bool:
    """Run ``hook`` when SIGTERM arrives, before the process dies of it.

    The handler is set where SIGTERM's handler is the default one (or, with ``chain``,
    a Python function of the application's, called after the hooks), from the main
    thread only: Python sets signal handlers there alone. Registering a hook again does
    nothing.

    Args:
        hook: Called with no arguments, in the main thread; what it raises is ignored.
        chain: Also run before a handler the application had set.

    Returns:
        Whether the hook will run on SIGTERM.
    """
    global _previous
    if any(known is hook for known, _ in _hooks):
        return True
    try:
        current = signal.getsignal(signal.SIGTERM)
    except (ValueError, OSError):  # no signals here (an embedded interpreter)
        return False
    if current is not _handle:
        if not (current is signal.SIG_DFL or (chain and callable(current))):
            return False  # ignored, set outside Python, or the application's own
        if threading.current_thread() is not threading.main_thread():
            return False
        try:
            signal.signal(signal.SIGTERM, _handle)
        except (ValueError, OSError):
            return False
        _previous = current
    elif not chain and _previous is not signal.SIG_DFL:
        return False
    _hooks.append((hook, chain))
    return True


def forget(hook: Callable[[], None]) -> None:
    """Stop running ``hook`` on SIGTERM (the handler stays: it ends the process as the
    default one would)."""
    _hooks[:] = [(known, chain) for known, chain in _hooks if known is not hook]


def hold() -> bool:
    """Enter a section a SIGTERM waits for, when this is the main thread (signal
    handlers run there only). Returns whether one was entered: then call
    :func:`release`."""
    if threading.get_ident() != threading.main_thread().ident:
        return False
    global _held
    _held += 1
    return True


def release() -> None:
    """Leave a section entered with :func:`hold`; a SIGTERM that arrived inside is
    handled now."""
    global _held
    _held -= 1
    if not _held and _arrived:
        signum, frame = _arrived.pop()
        _arrived.clear()
        _handle(signum, frame)


def _handle(signum: int, frame: FrameType | None) -> None:
    if _held:
        _arrived.append((signum, frame))
        return
    previous = _previous
    dying = not callable(previous)
    for hook, chain in list(_hooks):
        if dying or chain:
            with contextlib.suppress(Exception):  # one failing must not stop the others
                hook()
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def _in_forked_child() -> None:
    """Sections of the parent's main thread do not exist in the child (the fork may have
    come from another thread): a SIGTERM must not wait for them."""
    global _held
    _held = 0
    _arrived.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_in_forked_child)
