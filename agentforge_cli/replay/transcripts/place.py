"""``Place``: where something is in a transcript file, kept as data and rendered only when
shown.

A place is the record's line in the file (``line 3``; ``None`` for a message of a whole JSON
document) and a path inside it, in parts: each part a sequence of keys and indexes
(``("interactions", 1)``, ``("response body",)``). Rendered, the parts are joined with
``", "`` and the steps of a part as a JSON path (``line 18, interactions[1], request body``,
``line 1, resourceSpans[0].scopeSpans[0].spans[2]``). Nothing reads a rendered place back.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["WHOLE_FILE", "Place", "Step"]

Step = str | int
"""A key of an object (or a label such as ``request body``) or an index into an array."""


# Hot path: one Place per JSONL line. Not frozen (a frozen __init__ pays an
# object.__setattr__ per field); nothing changes one once built: ``at`` makes a new one.
@dataclass(slots=True, unsafe_hash=True)
class Place:
    """A record's line and a path inside it."""

    line: int | None = None
    """The line of the file the record starts on, from 1; ``None`` when the file's lines
    do not locate it (a message of a JSON document is located by its path)."""
    path: tuple[tuple[Step, ...], ...] = ()
    """The way down from the record (or the document) to the thing, in parts."""

    def __bool__(self) -> bool:
        """Whether it locates anything (the empty place is the file as a whole)."""
        return self.line is not None or bool(self.path)

    def at(self, *steps: Step) -> Place:
        """This place, one part deeper: ``place.at("parts", 2)``."""
        return Place(self.line, (*self.path, steps))

    def then(self, *steps: Step) -> Place:
        """This place with ``steps`` added to its last part: ``samples[2].messages[0]``
        rather than ``samples[2], messages[0]``."""
        if not self.path:
            return self.at(*steps)
        return Place(self.line, (*self.path[:-1], (*self.path[-1], *steps)))

    def __str__(self) -> str:
        if not self.path:  # a JSONL line, shown once for each call replay reports
            return "" if self.line is None else f"line {self.line}"
        parts = [] if self.line is None else [f"line {self.line}"]
        parts.extend(_part(steps) for steps in self.path)
        return ", ".join(parts)


def _part(steps: tuple[Step, ...]) -> str:
    text = ""
    for step in steps:
        if isinstance(step, int):
            text += f"[{step}]"
        else:
            text += f".{step}" if text else step
    return text


WHOLE_FILE = Place()
"""The empty place: an error about the file as a whole, a record a rewrite made."""
