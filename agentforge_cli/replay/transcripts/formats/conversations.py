"""Many conversations in one file: JSONL whose lines are whole conversations, or a JSON
array of them (benchmark trajectories, fine-tuning sets).

A conversation is an array of messages or an object holding them (``{"messages": [...]}``,
``{"contents": [...]}``, ``{"input": [...], "output": [...]}``) in any of the other
formats; each conversation's format is detected on its own, and each keeps its own call
ids (``call_1`` in two conversations are two calls). Calls are numbered across the file.
Places read ``line 3, messages[2]``. A conversation's envelope may give its system prompt
(``system``, ``systemInstruction``, ``instructions``), read after its start.

``--update`` rewrites each conversation with its format's rewrite (and migrates its calls
with its format's migrate); a conversation with nothing to update is written back
unchanged (a JSONL line byte for byte).

A file of conversations opened with another format named (``--format tau2`` on a
tau2-bench results file) is read the same way, given only that format: every
conversation is read in it, without detection.

The formats a conversation may be in are the registered ones, given when a file is read
(:meth:`ConversationsBook.start`) or a record claimed (:func:`claims_among`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Self

from agentforge_cli.replay.transcripts.files.envelopes import (
    envelope_keys,
    envelope_prompt,
    envelope_records,
    envelope_values,
)
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import (
    Claim,
    FormatList,
    TranscriptFormat,
    pick_format,
)
from agentforge_cli.replay.transcripts.model import (
    ConversationStart,
    Event,
    ToolCall,
    TranscriptError,
)
from agentforge_cli.replay.transcripts.reading.calls import CallBook, Updates
from agentforge_cli.replay.transcripts.writing.migration import Migration

__all__ = ["FORMAT", "ConversationsBook", "claims", "claims_among", "migrate",
           "record_events", "rewrite"]

_PEEK = 20
"""How many messages of an array are asked about when claiming it."""


NAME = "conversations"


def _inner_book(book: ConversationsBook, fmt: TranscriptFormat[Any]) -> Any:
    """A book for one conversation in ``fmt``: its own call ids, the file's call
    numbering."""
    inner = fmt.start(book.path, book.formats)
    inner.count = book.count
    inner.answered = book.answered
    inner.unmarked = book.unmarked  # what a conversation's rewrite notes is the file's
    return inner


def _others(formats: FormatList) -> list[TranscriptFormat[Any]]:
    """The formats a conversation may be in: every registered one but this."""
    return [fmt for fmt in formats if fmt.name != NAME]


class ConversationsBook(CallBook):
    """The state of reading a file of conversations: the formats a conversation may be
    in, and how many have started."""

    def __init__(self, path: Path, formats: FormatList = (), *,
                 track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.formats = formats
        self.others = _others(formats)
        self.started = 0

    @classmethod
    def start(cls, path: Path, formats: Sequence[Any] = ()) -> Self:
        """A new book for one file of conversations in any of ``formats``."""
        return cls(path, formats)


def claims(data: Any) -> Claim:
    """An object holding messages (``messages``, ``contents``, ``input``/``output``
    arrays, and no ``type`` or ``role``) is a whole conversation: this format's own."""
    if isinstance(data, dict):
        return Claim.OWN if envelope_keys(data) else Claim.NO
    return Claim.NO


def claims_among(data: Any, formats: FormatList) -> Claim:
    """:func:`claims`, and an array of messages another of ``formats`` claims."""
    if isinstance(data, list) and data:
        others = _others(formats)
        if any(fmt.claim(item, formats) for item in data[:_PEEK] for fmt in others):
            return Claim.OWN
        return Claim.NO
    return claims(data)


def _conversation(record: Record, book: ConversationsBook
                  ) -> tuple[list[Record], TranscriptFormat[Any] | None]:
    """A conversation's records and their format (``None`` when it has none)."""
    data = record.data
    if isinstance(data, list):
        records = [Record(item, record.where.at("messages", i), i)
                   for i, item in enumerate(data)]
    elif keys := envelope_keys(data):
        records = envelope_records(data, keys, record.where)
    else:
        raise TranscriptError(book.path, record.where, "expected a conversation (an array "
                              'of messages or an object with "messages"), got '
                              f"{record_shape(data)}")
    if not records:
        return [], None
    if len(book.others) == 1:  # one format named for every conversation: nothing to detect
        return records, book.others[0]
    return records, pick_format(book.path, records, book.others, book.formats)


def record_events(record: Record, book: ConversationsBook) -> list[Event]:
    """The events of one conversation."""
    if record.blank:
        return []
    records, fmt = _conversation(record, book)
    if fmt is None:
        return []
    inner = _inner_book(book, fmt)
    number = book.started = book.started + 1
    events: list[Event] = [ConversationStart(conversation=number, where=record.where)]
    prompt = envelope_prompt(record.data, record.where)  # {"system": ..., "messages": ...}
    if prompt is not None:
        events.append(prompt)
    for item in records:
        for event in fmt.record_events(item, inner):
            if isinstance(event, ToolCall):
                event = dataclasses.replace(event, conversation=number)
            events.append(event)
    events.extend(inner.finish())
    book.count = inner.count
    return events


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: ConversationsBook) -> Iterator[Record]:
    """Yield each conversation with its results written in (by its format's rewrite)."""
    return _each_conversation(records, book, lambda fmt, items, inner: fmt.rewriter(
        book.path)(items, updates, answered, inner))


def migrate(records: Iterable[Record], migration: Migration, book: ConversationsBook
            ) -> Iterator[Record]:
    """Yield each conversation with its calls migrated (by its format's migrate)."""
    return _each_conversation(records, book, lambda fmt, items, inner: fmt.migrator(
        book.path)(items, migration, inner))


def _each_conversation(records: Iterable[Record], book: ConversationsBook,
                       write: Callable[[TranscriptFormat[Any], Iterator[Record], Any],
                                       Iterator[Record]]) -> Iterator[Record]:
    """Each conversation written by ``write(its format, its records, its book)``; one
    that comes back unchanged is yielded as it was read."""
    for record in records:
        items, fmt = ([], None) if record.blank else _conversation(record, book)
        if fmt is None:
            yield record
            continue
        inner = _inner_book(book, fmt)
        written = list(write(fmt, iter(items), inner))
        book.count = inner.count
        if isinstance(record.data, list):
            data: Any = [item.data for item in written]
        else:
            data = envelope_values(record.data, envelope_keys(record.data), written)
        yield record if data == record.data else Record(data, record.where,
                                                        record.position)


FORMAT: TranscriptFormat[ConversationsBook] = TranscriptFormat(
    name=NAME,
    title="many conversations per file",
    claims=claims,
    claims_among=claims_among,
    start=ConversationsBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=migrate,
)
