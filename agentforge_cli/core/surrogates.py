"""Text that can be encoded: lone surrogates written as ``\\udcxx`` escapes.

A Python string may hold a lone surrogate (``"\\udcff"``: ``os.listdir`` and
``os.fsdecode`` give one for a file name that is not UTF-8, ``json.loads`` for a ``\\ud800``
escape). No UTF-8 stream can carry it: the MCP server's JSON encoder would fail on it.
:func:`encodable` writes each as a backslash escape — the rule the command line's text
output already follows (``--json`` keeps the exact text, as a JSON ``\\udcff`` escape).
"""

from __future__ import annotations

__all__ = ["encodable"]


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
