"""Descriptions from docstrings (Google, NumPy and Sphinx styles).

Parsing is delegated to ``docstring_parser``, imported lazily here — only when a spec is
generated — so ``from agentforge_cli import tool, P`` stays light.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Docstring", "parse_docstring"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Docstring:
    """The parts of a docstring a tool schema uses."""

    summary: str
    """The short description (first paragraph), or ``""``."""
    params: dict[str, str]
    """Parameter / attribute name -> its description."""


_EMPTY = Docstring(summary="", params={})


@lru_cache(maxsize=4096)
def _parse(text: str) -> Docstring:
    import docstring_parser  # lazy: only when a spec is generated

    try:
        parsed = docstring_parser.parse(text)
    except Exception:  # a docstring the parser cannot read still has a summary
        first = text.strip().split("\n\n", 1)[0]
        return Docstring(summary=" ".join(first.split()), params={})
    summary = " ".join((parsed.short_description or "").split())
    params = {
        p.arg_name: " ".join((p.description or "").split())
        for p in parsed.params
        if p.description
    }
    return Docstring(summary=summary, params=params)


def parse_docstring(obj: object) -> Docstring:
    """Return the summary and parameter descriptions of ``obj``'s own docstring."""
    text = inspect.getdoc(obj) if not isinstance(obj, str) else obj
    if not text:
        return _EMPTY
    text = inspect.cleandoc(text)
    if "\n" not in text and ":" not in text:  # a one-line summary: nothing to parse
        return Docstring(summary=" ".join(text.split()), params={})
    return _parse(text)
