"""What an MCP server tells the user during a command, on standard error: its requests
answered and its log messages, one line each, and its progress reports, as a transient
bar when standard error is a terminal and as lines otherwise. Standard output is never
touched.
"""

from __future__ import annotations

import threading
from typing import Any

from agentforge_cli.cli.render.consoles import safe_text, stderr_console

__all__ = ["finish_progress", "server_line", "server_progress"]

_lock = threading.Lock()
_bar: Any = None  # the rich Progress drawn, and its task
_task: Any = None


def server_line(text: str) -> None:
    """One line of what the server said or asked, on standard error."""
    from rich.text import Text

    line = Text("mcp: ", style="dim")
    line.append(safe_text(text))
    stderr_console().print(line, soft_wrap=True)


def _is_tty() -> bool:
    import sys

    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _amount(value: float) -> str:
    return f"{value:g}"


def server_progress(progress: float, total: float | None, message: str | None) -> None:
    """A progress report of the call running: the bar moved on a terminal, else a line
    (``mcp: progress 3/10: message``)."""
    if not _is_tty():
        done = _amount(progress) + (f"/{_amount(total)}" if total is not None else "")
        server_line(f"progress {done}" + (f": {message}" if message else ""))
        return
    global _bar, _task
    with _lock:
        if _bar is None:
            from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

            _bar = Progress(TextColumn("{task.description}"), BarColumn(),
                            TaskProgressColumn(), console=stderr_console(), transient=True)
            _bar.start()
            _task = _bar.add_task("", total=None)
        _bar.update(_task, completed=progress, total=total,
                    description=safe_text(message or "working")[:60])
    if total is not None and progress >= total:
        finish_progress()


def finish_progress() -> None:
    """Take the bar away (nothing when none is drawn): the call it followed has ended."""
    global _bar, _task
    with _lock:
        bar, _bar, _task = _bar, None, None
    if bar is not None:
        bar.stop()
