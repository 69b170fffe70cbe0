"""JSON as transcripts are read and written: the decoder (the non-standard constants
refused), its fast scanner, the errors it reports by place, and :func:`dumps`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentforge_cli.core.observe.surrogates import COMPACT, json_text
from agentforge_cli.replay.transcripts.model import TranscriptError
from agentforge_cli.replay.transcripts.place import Place

__all__ = ["decode_error", "dumps", "loads", "scan_json"]


def dumps(value: Any, indent: int | None = None) -> str:
    """JSON text as transcripts are written: UTF-8 kept, compact unless indented, a lone
    surrogate escaped (:func:`~agentforge_cli.core.observe.surrogates.json_text`)."""
    return json_text(value, indent=indent, separators=COMPACT if indent is None else None)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"the non-standard constant {name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
loads = _DECODER.decode
"""``loads(text)``: the JSON value of ``text`` (the non-standard constants refused)."""
scan_json: Callable[[str, int], tuple[Any, int]]
scan_json = _DECODER.scan_once  # type: ignore[attr-defined]  # set by __init__, not in typeshed
"""``scan_json(text, 0)``: ``(value, end)`` of the JSON value at the start of ``text`` (no
whitespace before it; the non-standard constants refused), as a JSONL line is read on its
fast path. Raises ``StopIteration`` when no value starts there."""


def decode_error(path: Path, where: Place, exc: Exception,
                 line_offset: int = 0) -> TranscriptError:
    """The error for JSON that does not decode, at its place (a JSONL line's column, a
    document's line)."""
    if isinstance(exc, json.JSONDecodeError):
        if exc.msg == "Extra data" and not line_offset:
            return TranscriptError(path, Place(exc.lineno),
                                   "more than one JSON document: a transcript file holds one "
                                   "conversation (a JSON array, an object with \"messages\", "
                                   "or one JSON object per line)")
        if line_offset:  # a JSONL line: the column is what helps
            return TranscriptError(path, where, f"invalid JSON: {exc.msg} (column {exc.colno})")
        return TranscriptError(path, Place(exc.lineno),
                               f"invalid JSON: {exc.msg} (column {exc.colno})")
    if isinstance(exc, RecursionError):
        return TranscriptError(path, where, "invalid JSON: nested too deeply")
    return TranscriptError(path, where, f"invalid JSON: {exc}")
