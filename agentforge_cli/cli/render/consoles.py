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

import re
import sys
from typing import Any

from rich.console import Console
from rich.text import Text

from agentforge_cli.cli.output import product_stream

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


_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_TERMINAL_CONTROL = re.compile(f"[{_CONTROLS}]")  # a tab and a newline are text
_LINE_CONTROL = re.compile(f"[\t\n{_CONTROLS}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str, *, one_line: bool = False) -> str:
    """``text`` as it may reach a terminal: lone surrogates (unencodable anywhere) written
    as ``\\udcxx``, and what a terminal would act on written as an escape (``\\x1b``):
    control characters (C0 but tab and newline, DEL, C1 — so no escape sequence, OSC
    hyperlink or title) and bidirectional overrides. ``one_line``: tabs and newlines too,
    for a name that must not start a line of its own."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    pattern = _LINE_CONTROL if one_line else _TERMINAL_CONTROL
    if (text.isascii() and text.isprintable()) or pattern.search(text) is None:
        return text
    return pattern.sub(_escaped, text)


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
