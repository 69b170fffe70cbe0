"""Plain output for machine-readable results: exact text, no rich (so no rich import).

``tools call`` prints exactly the text the model receives and ``--json`` prints JSON; both
go through :func:`write`, which never fails on text the stream cannot encode (a lone
surrogate from a tool is written as a backslash escape).
"""

from __future__ import annotations

import sys

__all__ = ["write"]


def write(text: str, *, stderr: bool = False, end: str = "\n") -> None:
    """Write ``text`` exactly, plus ``end``, bypassing rich (for machine output)."""
    stream = sys.stderr if stderr else sys.stdout
    data = text + end
    try:
        stream.write(data)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(data.encode(encoding, "backslashreplace").decode(encoding))
    if end:
        stream.flush()
