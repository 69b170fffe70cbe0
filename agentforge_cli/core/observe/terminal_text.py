"""Text made safe for a terminal: what a terminal would act on (an escape sequence, a
window title, a bidirectional override) written as a visible escape instead."""

from __future__ import annotations

import re

__all__ = ["safe_text"]

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
