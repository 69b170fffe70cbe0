"""Pairing results with calls while a transcript is read, and the calls a rewrite answers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Self, TypeVar

from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.model import Event, ToolCall, ToolResult, TranscriptError
from agentforge_cli.replay.transcripts.place import Place
from agentforge_cli.replay.transcripts.reading.fields import arguments_text

__all__ = [
    "CallBook",
    "Updates",
    "calls_to_answer",
    "named_call",
    "rewrite_as_items",
    "rewrite_in_turns",
    "update_parts",
]

Updates = Mapping[int, tuple[str, bool]]
"""Today's results a rewrite writes: call index (``ToolCall.index``) -> ``(text, is_error)``."""


class CallBook:
    """Pairs results with calls while a transcript is read.

    Calls are numbered in order. A result with an id answers the waiting call with that
    id; a result without one answers the oldest waiting call that has no id, else the
    oldest waiting call. Only waiting calls are remembered, so reading is constant-memory
    when results follow their calls.

    Args:
        path: The transcript (for error messages).
        track_answered: Keep the set of answered call indexes (for a rewrite).
    """

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        self.path = path
        self.count = 0
        self._waiting: dict[int, str | None] = {}
        self._anonymous: dict[int, None] = {}
        self._by_id: dict[str, int] = {}
        self.answered: set[int] | None = set() if track_answered else None
        self.earlier: dict[str, int] = {}
        """Calls made before what this book reads (a cassette's earlier responses): call
        id -> the file's index. A result naming one is paired with it (:attr:`outside`)."""
        self.outside: dict[int, int] = {}
        """The book's index of each result paired with an :attr:`earlier` call -> that
        call's index in the file."""
        self.unmarked: set[int] = set()
        """Calls a rewrite wrote an error result for where the format has no error flag
        (OpenAI chat's ``tool`` messages): the file reads it as a success."""

    @classmethod
    def start(cls, path: Path, formats: Sequence[Any] = ()) -> Self:
        """A new state for reading ``path`` (a format's ``start``); ``formats``, the
        registered formats, matter only to a format reading the others' records."""
        return cls(path)

    def finish(self) -> list[Event]:
        """The events, if any, that only the end of the file tells: called once every
        record has been read. A format keeping more state (a subclass) may refuse the
        file here."""
        return []

    def call(self, call_id: str | None, where: Place) -> int:
        """Register a call; returns its index."""
        index = self.count
        if call_id is None:
            self._anonymous[index] = None
        else:
            if call_id in self._by_id:
                raise TranscriptError(self.path, where,
                                      f"tool call id {call_id!r} is used twice "
                                      "before its first call was answered")
            self._by_id[call_id] = index
        self._waiting[index] = call_id
        self.count += 1
        return index

    def carry(self, old: str, new: str, where: Place) -> None:
        """The waiting call of id ``old`` goes on under id ``new`` (an MCP call sent
        again with the answers its server asked for): its result names ``new``.

        Raises:
            TranscriptError: No call of id ``old`` waits, or ``new`` is taken.
        """
        index = self._by_id.pop(old, None)
        if index is None or new in self._by_id:
            raise TranscriptError(self.path, where, f"tool call id {new!r} sends again a "
                                  "call that is not waiting, or is used twice")
        self._by_id[new] = index
        self._waiting[index] = new

    def answered_at_once(self) -> int:
        """Register a call answered by the very next record, while no other call waits:
        its index, as :meth:`call` then :meth:`result` would leave the book."""
        index = self.count
        self.count += 1
        if self.answered is not None:
            self.answered.add(index)
        return index

    def result(self, call_id: str | None, where: Place) -> int:
        """Register a result; returns the index of the call it answers."""
        if call_id is not None:
            index = self._by_id.pop(call_id, None)
            if index is None and call_id in self.earlier:
                index = self.count
                self.count += 1
                self.outside[index] = self.earlier[call_id]
                return index
            if index is None:
                raise TranscriptError(self.path, where,
                                      f"tool result for call id {call_id!r}, but no earlier "
                                      "call with that id is waiting for a result")
        elif self._anonymous:
            index = next(iter(self._anonymous))
        elif self._waiting:
            index = next(iter(self._waiting))
            waiting_id = self._waiting[index]  # not None: no call without an id waits
            if waiting_id is not None:
                self._by_id.pop(waiting_id, None)
        else:
            raise TranscriptError(self.path, where,
                                  "tool result without an id, and no call is waiting for a "
                                  "result")
        del self._waiting[index]
        self._anonymous.pop(index, None)
        if self.answered is not None:
            self.answered.add(index)
        return index


Part = dict[str, Any]
"""One part of a record's list (an Anthropic content block, a Gemini part)."""
B = TypeVar("B", bound=CallBook)
ReadEvents = Callable[[Record, B], list[Event]]
"""``read(record, book)``: the events of one record."""
ApplyUpdates = Callable[[Record, list[Event], Updates], Record]
"""``apply(record, events, updates)``: the record with its recorded results updated."""
AnswerPart = Callable[[ToolCall, str, bool], Part]
"""``answer(call, text, is_error)``: the part answering a call no result answered."""
MergeParts = Callable[[Record, list[Part]], "Record | None"]
"""``merge(record, parts)``: the user turn with ``parts`` added; ``None`` when it is not one."""
NewTurn = Callable[[list[Part]], Record]
"""``new_turn(parts)``: a user turn of ``parts``."""
UpdatePart = Callable[[Part, str, bool], Part]
"""``update(part, text, is_error)``: a recorded result part holding today's result."""


def named_call(function: dict[str, Any], call_id: str | None, raw: Any, book: CallBook,
               where: Place) -> ToolCall:
    """The call of a ``{"name", "arguments"}`` object (``arguments`` a JSON string or
    object), registered with ``book``; ``raw`` is what the event keeps as recorded."""
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise TranscriptError(book.path, where, 'a tool call needs a "name" string')
    arguments = arguments_text(function.get("arguments"), book.path, where)
    index = book.call(call_id, where)
    return ToolCall(index=index, id=call_id, name=name, arguments=arguments, raw=raw,
                    where=where)


def calls_to_answer(events: Iterable[Event], updates: Updates,
                    answered: set[int]) -> Iterator[ToolCall]:
    """The calls among ``events`` that a rewrite adds a result for: updated, and with no
    result recorded."""
    for event in events:
        if (isinstance(event, ToolCall) and event.index in updates
                and event.index not in answered):
            yield event


def rewrite_in_turns(records: Iterable[Record], updates: Updates, answered: set[int],
                     book: B, *, read: ReadEvents[B], apply: ApplyUpdates,
                     answer: AnswerPart, merge: MergeParts, new_turn: NewTurn
                     ) -> Iterator[Record]:
    """The ``rewrite`` of formats whose results are parts of the next user turn
    (Anthropic ``tool_result`` blocks, Gemini ``functionResponse`` parts).

    Each record is read (``read(record, book)`` -> events) and its recorded results
    updated (``apply(record, events, updates)``); answers to calls the transcript never
    answered (``answer(call, text, is_error)`` -> a part) join the next record when it is
    a user turn (``merge(record, parts)`` -> the record, or ``None`` when it is not),
    else a new user turn (``new_turn(parts)``) placed before it.
    """
    waiting: list[Part] = []
    for record in records:
        if record.blank:
            yield record
            continue
        events = read(record, book)
        changed = apply(record, events, updates)
        if waiting:
            merged = merge(changed, waiting)
            if merged is None:
                yield new_turn(list(waiting))
            else:
                changed = merged
            waiting = []
        yield changed
        for call in calls_to_answer(events, updates, answered):
            text, is_error = updates[call.index]
            waiting.append(answer(call, text, bool(is_error)))
    if waiting:
        yield new_turn(waiting)


def rewrite_as_items(records: Iterable[Record], updates: Updates, answered: set[int],
                     book: B, *, read: ReadEvents[B], follows_call: Callable[[Any], bool],
                     replace: Callable[[Record, str, bool], Record],
                     new_item: Callable[[ToolCall, str, bool], Record],
                     marks_errors: bool = True) -> Iterator[Record]:
    """The ``rewrite`` of formats whose results are records of their own (OpenAI chat
    ``tool`` messages, Responses ``function_call_output`` items).

    Each record is read (``read(record, book)`` -> events) and a recorded result updated
    (``replace(record, text, is_error)`` -> the record). Answers to calls the transcript
    never answered (``new_item(call, text, is_error)`` -> a record) are written after the
    records that may follow a call (``follows_call(data)``: its results, the next calls),
    before the first record that may not. Without ``marks_errors`` (the format has no
    error flag) each error result written is noted in ``book.unmarked``.
    """
    waiting: list[Record] = []
    for record in records:
        if record.blank:
            yield record
            continue
        if waiting and not follows_call(record.data):
            yield from waiting
            waiting.clear()
        events = read(record, book)
        changed = record
        for event in events:
            if isinstance(event, ToolResult) and event.call_index in updates:
                text, is_error = updates[event.call_index]
                changed = replace(record, text, bool(is_error))
                if is_error and not marks_errors:
                    book.unmarked.add(event.call_index)
        yield changed
        for call in calls_to_answer(events, updates, answered):
            text, is_error = updates[call.index]
            waiting.append(new_item(call, text, bool(is_error)))
            if is_error and not marks_errors:
                book.unmarked.add(call.index)
    yield from waiting


def update_parts(record: Record, events: list[Event], updates: Updates, key: str,
                 update: UpdatePart) -> Record:
    """``record`` with each recorded result among its ``key`` list (Anthropic message
    ``content`` blocks, Gemini ``parts``) replaced by ``update(part, text, is_error)``."""
    targets = {e.part: e.call_index for e in events
               if isinstance(e, ToolResult) and e.call_index in updates and e.part is not None}
    if not targets:
        return record
    data = dict(record.data)
    parts = []
    for i, part in enumerate(data[key]):
        index = targets.get(i)
        if index is not None:
            text, is_error = updates[index]
            part = update(part, text, is_error)
        parts.append(part)
    data[key] = parts
    return type(record)(data, record.where, record.position)
