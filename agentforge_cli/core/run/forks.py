"""A tool's forked child ends where the tool's code ends, instead of serving.

A tool may ``os.fork()``; the child runs on from the fork, inside the executor. When its
code returns or raises (``sys.exit`` included), the executor would turn that into a result
and hand it back to whatever called the tool, which in the child is a copy of the parent's
server or command: it answers the call a second time, keeps the stdio pipes and the HTTP
port open, and never exits. A command that serves calls (``serve``, ``tools call``) marks
its process with :func:`claim_process`; in a child forked from it afterwards
:data:`FORKED` is true, and the executor's :func:`end_forked_child`, called as a call's
outcome is known, ends the child with the exit code Python would give it.
"""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["FORKED", "claim_process", "end_forked_child"]

_claimed: list[bool] = []  # non-empty once this process serves calls
FORKED: list[bool] = []
"""Non-empty in a child forked from a process that serves calls (read on every call)."""


def claim_process() -> None:
    """Mark this process as the one serving tool calls (its forked children are not)."""
    _claimed[:] = [True]
    FORKED.clear()


def _after_fork_in_child() -> None:
    if _claimed:
        FORKED[:] = [True]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def end_forked_child(exc: BaseException | None = None) -> None:
    """In a forked child of the claimed process, end it now: exit code ``0`` when the
    tool returned, else what Python gives ``exc`` uncaught (a ``SystemExit``'s code; its
    message or the traceback on stderr and code ``1``). Elsewhere, do nothing."""
    if not FORKED:
        return
    code = 0
    if isinstance(exc, SystemExit):
        if isinstance(exc.code, int) or exc.code is None:
            code = exc.code or 0
        else:
            code = 1
            with contextlib.suppress(Exception):
                print(exc.code, file=sys.stderr)
    elif exc is not None:
        import traceback

        code = 1
        with contextlib.suppress(Exception):
            traceback.print_exception(exc, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
