"""How a JSON transcript is laid out, so that ``replay --update`` writes it back alike.

A hand-written file keeps its shape: one line stays one line, a record a line stays a
record a line (``[`` and each message on its own line), pretty-printed keeps its
indentation width, and ``", "`` / ``": "`` spacing is kept. The diff of an update then
shows only the results that changed. Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agentforge_cli.core.observe.surrogates import COMPACT, json_text

__all__ = ["Layout", "detect_layout", "dump"]

_SPACED = re.compile(r'"\s*:\s|,\s+"')
_INDENT = re.compile(r"\n([ \t]+)\S")
_SAMPLE = 1 << 16


@dataclass(frozen=True, kw_only=True, slots=True)
class Layout:
    """The shape of a JSON transcript (or of a JSONL file's lines)."""

    indent: int | str | None = None
    """Spaces (or the whitespace) of one indentation level; ``None``: all on one line."""
    per_line: bool = False
    """Each record on its own line, written compactly, inside an indented document."""
    spaced: bool = False
    """``", "`` and ``": "`` between the parts written on one line."""


def detect_layout(text: str, records: int, envelope_keys: int = 0) -> Layout:
    """The layout of a JSON document ``text`` holding ``records`` records (inside an
    envelope object of ``envelope_keys`` keys, or 0 for a bare array)."""
    stripped = text.strip()
    spaced = _SPACED.search(stripped[:_SAMPLE]) is not None
    if "\n" not in stripped:
        return Layout(spaced=spaced)
    found = _INDENT.search(stripped)
    whitespace = found.group(1) if found else ""
    indent: int | str = len(whitespace) if set(whitespace) <= {" "} else whitespace[:1]
    lines = stripped.count("\n") + 1
    # pretty-printed, a record takes 3 lines or more; a record a line takes one
    per_line = records > 0 and lines <= 2 * records + 2 + envelope_keys
    return Layout(indent=indent, per_line=per_line, spaced=spaced)


def _one_line(value: Any, spaced: bool) -> str:
    return json_text(value, separators=(", ", ": ") if spaced else COMPACT)


def _array(items: list[Any], pad: str, level: int, spaced: bool) -> str:
    if not items:
        return "[]"
    inner = pad * (level + 1)
    return ("[\n" + ",\n".join(inner + _one_line(item, spaced) for item in items) + "\n"
            + pad * level + "]")


def dump(value: Any, layout: Layout, record_keys: Iterable[str] = ("messages",)) -> str:
    """``value`` (an array of records, or an envelope object whose ``record_keys`` hold
    them) written in ``layout``, without a final newline."""
    if layout.indent is None:
        return _one_line(value, layout.spaced)
    if not layout.per_line:
        return json_text(value, indent=layout.indent, separators=None)
    pad = " " * layout.indent if isinstance(layout.indent, int) else layout.indent
    if isinstance(value, list):
        return _array(value, pad, 0, layout.spaced)
    keys = set(record_keys)
    parts = []
    for key, item in value.items():
        shown = (_array(item, pad, 1, layout.spaced) if key in keys and isinstance(item, list)
                 else _one_line(item, layout.spaced))
        parts.append(f"{pad}{_one_line(key, False)}: {shown}")
    return "{\n" + ",\n".join(parts) + "\n}" if parts else "{}"
