"""Many conversations in one file: JSONL whose lines are whole conversations, or a JSON
array of them (benchmark trajectories, fine-tuning sets).

A conversation is an array of messages or an object holding them (``{"messages": [...]}``,
``{"contents": [...]}``, ``{"input": [...], "output": [...]}``) in any of the other
formats; each conversation's format is detected on its own, and each keeps its own call
ids (``call_1`` in two conversations are two calls). Calls are numbered across the file.
Places read ``line 3, messages[2]``.

``--update`` rewrites each conversation with its format's rewrite; a conversation with
nothing to update is written back unchanged (a JSONL line byte for byte).

The format is an object, :class:`Conversations`, given the formats a conversation may be
in (the registry passes its own list, read at each use).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.files.records import (
    Record,
    envelope_keys,
    envelope_records,
    envelope_values,
    record_shape,
)
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat, pick_format
from agentforge_cli.replay.transcripts.model import (
    ConversationStart,
    Event,
    ToolCall,
    TranscriptError,
)
from agentforge_cli.replay.transcripts.reading.calls import CallBook, Updates

__all__ = ["Conversations"]

_PEEK = 20
"""How many messages of an array are asked about when claiming it."""


def _inner_book(book: CallBook, fmt: TranscriptFormat) -> CallBook:
    """A book for one conversation in ``fmt``: its own call ids, the file's call
    numbering."""
    inner = fmt.book(book.path)
    inner.count = book.count
    inner.answered = book.answered
    return inner


class ConversationsBook(CallBook):
    """The state of reading a file of conversations: how many have started."""

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.started = 0


class Conversations:
    """The ``conversations`` format, reading each conversation in one of ``formats()``."""

    NAME = "conversations"
    TITLE = "many conversations per file"

    def __init__(self, formats: Callable[[], Sequence[TranscriptFormat]]) -> None:
        self._formats = formats

    def book(self, path: Path) -> ConversationsBook:
        """A new book for one file of conversations."""
        return ConversationsBook(path)

    def _others(self) -> list[TranscriptFormat]:
        return [fmt for fmt in self._formats() if fmt.NAME != self.NAME]

    def claims(self, data: Any) -> Claim:
        """A whole conversation is this format's own: an object holding messages
        (``messages``, ``contents``, ``input``/``output`` arrays, and no ``type`` or
        ``role``), or an array of messages another format claims."""
        if isinstance(data, dict):
            return Claim.OWN if envelope_keys(data) else Claim.NO
        if isinstance(data, list) and data:
            others = self._others()
            if any(fmt.claims(item) for item in data[:_PEEK] for fmt in others):
                return Claim.OWN
        return Claim.NO

    def _conversation(self, record: Record,
                      book: CallBook) -> tuple[list[Record], TranscriptFormat | None]:
        """A conversation's records and their format (``None`` when it has none)."""
        data = record.data
        if isinstance(data, list):
            records = [Record(item, f"{record.where}, messages[{i}]", i)
                       for i, item in enumerate(data)]
        elif keys := envelope_keys(data):
            records = envelope_records(data, keys, record.where)
        else:
            raise TranscriptError(book.path, record.where, "expected a conversation (an array "
                                  'of messages or an object with "messages"), got '
                                  f"{record_shape(data)}")
        if not records:
            return [], None
        return records, pick_format(book.path, records, self._others())

    def record_events(self, record: Record, book: CallBook) -> list[Event]:
        """The events of one conversation."""
        if record.blank:
            return []
        records, fmt = self._conversation(record, book)
        if fmt is None:
            return []
        if not isinstance(book, ConversationsBook):
            raise TypeError("conversations are read with a ConversationsBook")
        inner = _inner_book(book, fmt)
        number = book.started = book.started + 1
        events: list[Event] = [ConversationStart(conversation=number, where=record.where)]
        for item in records:
            for event in fmt.record_events(item, inner):
                if isinstance(event, ToolCall):
                    event = dataclasses.replace(event, conversation=number)
                events.append(event)
        events.extend(inner.finish())
        book.count = inner.count
        return events

    def rewrite(self, records: Iterable[Record], updates: Updates, answered: set[int],
                book: CallBook) -> Iterator[Record]:
        """Yield each conversation with its results written in."""
        for record in records:
            items, fmt = ([], None) if record.blank else self._conversation(record, book)
            if fmt is None:
                yield record
                continue
            inner = _inner_book(book, fmt)
            written = list(fmt.rewrite(iter(items), updates, answered, inner))
            book.count = inner.count
            if isinstance(record.data, list):
                data: Any = [item.data for item in written]
            else:
                data = envelope_values(record.data, envelope_keys(record.data), written,
                                       record.where)
            yield record if data == record.data else Record(data, record.where,
                                                            record.position)
