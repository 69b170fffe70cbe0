"""The two consoles (standard output and standard error) and text made safe for a terminal.

Consoles are created on first use, bound to the current product stream
(:func:`~agentforge_cli.cli.output.product_stream`, the real standard output) and
``sys.stderr``, and created again when those change (a test runner swaps the streams on
every invocation). Markup and highlighting are
off: user text such as ``[user]`` or ``[red]`` is printed as written. ``NO_COLOR`` and
``COLUMNS`` are honoured by rich. Text that cannot be encoded (lone surrogates) is
written with backslash escapes instead of failing.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.text import Text

from agentforge_cli.cli.output import product_stream
from agentforge_cli.core.observe.terminal_text import safe_text

__all__ = ["print_trimmed", "safe_text", "stderr_console", "stdout_console"]

_consoles: dict[bool, Console] = {}


def _console(stderr: bool) -> Console:
    stream = sys.stderr if stderr else product_stream()
    console = _consoles.get(stderr)
    if console is None or console.file is not stream:
        console = Console(file=stream, markup=False, emoji=False, highlight=False,
                          soft_wrap=False)
        _consoles[stderr] = console
    return console


def stdout_console() -> Console:
    """The console on standard output."""
    return _console(False)


def stderr_console() -> Console:
    """The console on standard error."""
    return _console(True)


def print_trimmed(console: Console, renderable: Any) -> None:
    """Print a table or grid without the trailing spaces rich pads its cells with."""
    for segments in console.render_lines(renderable, console.options, pad=False):
        line = Text()
        for segment in segments:
            if not segment.control:
                line.append(segment.text, segment.style)
        line.rstrip()
        console.print(line, no_wrap=True, overflow="ignore", crop=False)



def print_wrapped(console: Console, text: Text, indent: int = 0) -> None:
    """``text`` wrapped at the console width (long words folded), without trailing
    spaces, every line indented by ``indent``."""
    width = max(console.width - indent, 20)
    for line in text.wrap(console, width, justify="default", overflow="fold"):
        line.rstrip()
        console.print(Text(" " * indent) + line, no_wrap=True, overflow="ignore", crop=False)
