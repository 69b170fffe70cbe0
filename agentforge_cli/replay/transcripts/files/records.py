"""The record model: a :class:`Record` is one JSONL line or one element of a JSON
document's message list, what every format reads, whatever file it came from; a
:class:`Document` is a whole JSON transcript kept, text and value, to be written back.

Blank JSONL lines are records with ``data`` ``None`` so that a rewrite keeps them (a run
of them is one record, whatever its length).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

__all__ = ["Document", "Record", "record_shape"]


# Hot path: one Record per JSONL line. Not frozen (a frozen __init__ pays an
# object.__setattr__ per field) and built positionally; nothing changes one once built.
@dataclass(slots=True)
class Record:
    """One line or message."""

    data: Any
    """The parsed JSON value (``None`` for a blank line, or a run of them: one record)."""
    where: Place = WHOLE_FILE
    """``line 3`` or ``messages[2]``; the empty place for a record a rewrite creates."""
    position: int = 0
    """Line number (from 1) or message index (from 0)."""
    text: str | None = None
    """The original line, end of line included (JSONL only); ``None`` once changed."""

    @property
    def blank(self) -> bool:
        """A JSONL line with no value (blank, or ``null``): every format skips it and a
        rewrite writes it back as it was."""
        return self.data is None and self.text is not None


@dataclass(frozen=True, kw_only=True, slots=True)
class Document:
    """A whole-file JSON transcript."""

    records: list[Record]
    """Its messages."""
    envelope: dict[str, Any] | None
    """The top-level object when the file is ``{"messages": [...], ...}``, else ``None``."""
    keys: tuple[str, ...] = ()
    """The envelope's keys the records came from, in order (``("input", "output")``)."""
    text: str
    """The file's text (after a byte order mark): what an update edits, keeping every
    part it does not change."""
    value: Any
    """The JSON value :attr:`text` spells."""
    bom: bool = False
    """The file starts with a UTF-8 byte order mark (written back too)."""


_SHOWN_KEYS = 8


def record_shape(data: Any) -> str:
    """What a record is, for a message saying it does not fit: ``keys: type, message``
    for an object (its first keys, in order), ``a JSON array`` otherwise."""
    if isinstance(data, dict):
        keys = [str(key) for key in data]
        shown = ", ".join(keys[:_SHOWN_KEYS]) + (", ..." if len(keys) > _SHOWN_KEYS else "")
        return f"keys: {shown}" if keys else "an empty object"
    names = {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return f"a JSON {names.get(type(data), 'value')}"
