"""Text that can be encoded: lone surrogates written as ``\\udcxx`` escapes.

A Python string may hold a lone surrogate (``"\\udcff"``: ``os.listdir`` and
``os.fsdecode`` give one for a file name that is not UTF-8, ``json.loads`` for a ``\\ud800``
escape). No UTF-8 stream can carry it: the MCP server's JSON encoder would fail on it.
:func:`encodable` writes each as a backslash escape — the rule the command line's text
output already follows (``--json`` keeps the exact text, as a JSON ``\\udcff`` escape).
:func:`json_text` is the JSON text of a value that stays valid UTF-8 the same way.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["COMPACT", "encodable", "json_text"]

COMPACT = (",", ":")
_compact = json.JSONEncoder(ensure_ascii=False, separators=COMPACT).encode


def encodable(text: str) -> str:
    """``text`` with each lone surrogate written as ``\\udcxx`` (``text`` itself when it
    has none; ASCII text is answered without a scan)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def json_text(value: Any, *, indent: int | str | None = None,
              separators: tuple[str, str] | None = COMPACT) -> str:
    """``value`` as JSON text with its UTF-8 kept (``json.dumps``'s ``indent`` and
    ``separators``); when it holds a lone surrogate, which UTF-8 cannot carry, the whole
    text is written with ``\\u`` escapes instead, so it stays valid UTF-8 and round-trips."""
    if indent is None and separators == COMPACT:
        text = _compact(value)
    else:
        text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, indent=indent, separators=separators)
    return text
