"""The transient progress bar of a long replay on standard error."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from agentforge_cli.cli.output import product_stream
from agentforge_cli.cli.render.consoles import stderr_console

LONG_TRANSCRIPT = 200
"""Records from which a transcript counts as long (a progress bar on a terminal)."""


def _same_terminal(first: Any, second: Any) -> bool:
    """Both streams are open on the same device (False when that cannot be told)."""
    try:
        return os.path.samestat(os.fstat(first.fileno()), os.fstat(second.fileno()))
    except (AttributeError, ValueError, OSError):
        return False


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def progress_possible(*, trace: bool) -> bool:
    """A progress bar can be drawn: standard error is a terminal and, when the trace is
    printed, standard output is not that same terminal (there the trace lines are the
    progress, and a bar would split them)."""
    if not _is_tty(sys.stderr):
        return False
    return not (trace and _is_tty(product_stream())
                and _same_terminal(product_stream(), sys.stderr))


@contextlib.contextmanager
def progress(total: int, enabled: bool, read: Any = None) -> Iterator[Callable[[Any], None]]:
    """A transient progress bar on stderr; yields a callback taking each event.

    The bar follows the transcript's ``total`` records (lines, messages, interactions) as
    ``read`` (its :class:`~agentforge_cli.replay.transcripts.transcript.ReadProgress`)
    counts them, and counts the calls replayed. While it is drawn, what the user's code
    prints (to ``sys.stdout``, which points at stderr then, or to ``sys.stderr``) is
    printed above it by rich.
    """
    if not enabled:
        yield lambda event: None
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    from agentforge_cli.replay.transcripts.model import ToolCall

    bar = Progress(TextColumn("replaying"), BarColumn(), TaskProgressColumn(),
                   TextColumn("{task.fields[calls]}"),
                   console=stderr_console(), transient=True)
    with bar:
        task = bar.add_task("replay", total=total, calls="0 calls")
        calls = 0

        def advance(event: Any) -> None:
            nonlocal calls
            if isinstance(event, ToolCall):
                calls += 1
            done = None if read is None else min(read.records, total)
            bar.update(task, completed=done, calls=f"{calls} call{'' if calls == 1 else 's'}")

        yield advance
