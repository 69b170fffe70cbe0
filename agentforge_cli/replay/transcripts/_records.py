"""Reading a transcript file into records, pairing results with calls, and the field
checks and steps the formats share.

A *record* is one JSONL line or one element of a JSON document's message list. JSONL is
read lazily, line by line, in binary so that a line that is not UTF-8 is reported by
number; a JSON document is parsed whole (it has to be). Blank JSONL lines are records
with ``data`` ``None`` so that a rewrite keeps them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.events import Event, ToolCall, TranscriptError

__all__ = ["CallBook", "Document", "Record", "calls_to_answer", "content_text", "dumps",
           "iter_jsonl", "load_document", "named_call", "read_head"]


@dataclass(slots=True)
class Record:
    """One line or message."""

    data: Any
    """The parsed JSON value (``None`` for a blank line)."""
    where: str = ""
    """``line 3`` or ``messages[2]``; empty for a record a rewrite creates."""
    position: int = 0
    """Line number (from 1) or message index (from 0)."""
    text: str | None = None
    """The original line, end of line included (JSONL only); ``None`` once changed."""

    @property
    def blank(self) -> bool:
        """A JSONL line with no value (blank, or ``null``): every format skips it and a
        rewrite writes it back as it was."""
        return self.data is None and self.text is not None


@dataclass(slots=True)
class Document:
    """A whole-file JSON transcript."""

    records: list[Record]
    """Its messages."""
    envelope: dict[str, Any] | None
    """The top-level object when the file is ``{"messages": [...], ...}``, else ``None``."""
    indent: int | None
    """2 when the file was pretty-printed, else ``None`` (compact)."""
    trailing_newline: bool
    """The file ended with a newline."""


_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def dumps(value: Any, indent: int | None = None) -> str:
    """JSON text as transcripts are written: UTF-8 kept, compact unless indented.

    Text holding a lone surrogate (which UTF-8 cannot carry) is written with ``\\u``
    escapes instead, so the file stays valid UTF-8 and the value round-trips.
    """
    if indent is None:
        text = _compact(value)
    else:
        text = json.dumps(value, ensure_ascii=False, indent=indent)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        separators = (",", ":") if indent is None else None
        return json.dumps(value, ensure_ascii=True, indent=indent, separators=separators)
    return text


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"the non-standard constant {name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_loads = _DECODER.decode
_scan = _DECODER.scan_once


def _loads_line(text: str) -> Any:
    """One JSONL line: the scanner's fast path, ``decode`` (for its errors) otherwise."""
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return _loads(text)
    return value if end == len(text) else _loads(text)


def _decode_error(path: Path, where: str, exc: Exception, line_offset: int = 0) -> TranscriptError:
    if isinstance(exc, json.JSONDecodeError):
        if exc.msg == "Extra data" and not line_offset:
            return TranscriptError(path, f"line {exc.lineno}",
                                   "more than one JSON document: a transcript file holds one "
                                   "conversation (a JSON array, an object with \"messages\", "
                                   "or one JSON object per line)")
        if line_offset:  # a JSONL line: the column is what helps
            return TranscriptError(path, where, f"invalid JSON: {exc.msg} (column {exc.colno})")
        return TranscriptError(path, f"line {exc.lineno}",
                               f"invalid JSON: {exc.msg} (column {exc.colno})")
    if isinstance(exc, RecursionError):
        return TranscriptError(path, where, "invalid JSON: nested too deeply")
    return TranscriptError(path, where, f"invalid JSON: {exc}")


MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longest JSONL line read (a longer one is refused with its line number, unread)."""
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
"""Largest whole-file JSON transcript read (JSONL files are streamed and have no limit)."""


def _lines(path: Path, stream: Any) -> Iterator[tuple[int, bytes]]:
    """``(number, raw line)`` pairs, refusing a line over :data:`MAX_LINE_BYTES` before it is
    read whole."""
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise TranscriptError(path, f"line {number}",
                                  f"the line is longer than {MAX_LINE_BYTES} bytes (the limit)")
        yield number, raw


def read_head(path: Path) -> str | None:
    """The first non-blank line of the file (decoded), or ``None`` for an empty file."""
    try:
        with path.open("rb") as stream:
            for number, raw in _lines(path, stream):
                try:
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    raise TranscriptError(path, f"line {number}",
                                          f"not UTF-8 text ({exc.reason})") from None
                if line.strip():
                    return line
    except OSError as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    return None


def iter_jsonl(path: Path) -> Iterator[Record]:
    """Yield each line of a JSONL file as a record, parsed, lazily."""
    try:
        stream = path.open("rb")
    except OSError as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    with stream:
        for number, raw in _lines(path, stream):
            where = f"line {number}"
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise TranscriptError(path, where, f"not UTF-8 text ({exc.reason})") from None
            if not line.strip():
                yield Record(None, where, number, line)
                continue
            try:
                data = _loads_line(line.rstrip("\r\n"))
            except (ValueError, RecursionError) as exc:
                raise _decode_error(path, where, exc, line_offset=number) from None
            yield Record(data, where, number, line)


def load_document(path: Path) -> Document:
    """Parse a whole-file JSON transcript: an array of messages or ``{"messages": [...]}``."""
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise TranscriptError(path, "", f"the file is {size} bytes, more than the "
                                  f"{MAX_DOCUMENT_BYTES} bytes a JSON transcript may have "
                                  "(use JSONL, which is streamed)")
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise TranscriptError(path, f"line {line}", f"not UTF-8 text ({exc.reason})") from None
    if not text.strip():
        raise TranscriptError(path, "", "the transcript is empty")
    try:
        data = _loads(text)
    except (ValueError, RecursionError) as exc:
        raise _decode_error(path, "", exc) from None
    envelope: dict[str, Any] | None = None
    if isinstance(data, dict):
        messages = data.get("messages")
        if not isinstance(messages, list):
            raise TranscriptError(path, "", 'a JSON object transcript needs a "messages" array')
        envelope = data
    elif isinstance(data, list):
        messages = data
    else:
        raise TranscriptError(path, "", "expected a JSON array of messages or an object "
                              f'with "messages", got a JSON {type(data).__name__}')
    records = [Record(item, f"messages[{i}]", i) for i, item in enumerate(messages)]
    stripped = text.strip()
    indent = 2 if "\n" in stripped else None
    return Document(records, envelope, indent, text.endswith("\n"))


def content_text(value: Any) -> str:
    """The text of a message or result ``content``: a string, or text parts/blocks.

    Text blocks (``{"type": "text", "text": ...}``) are joined with newlines; any other
    block, and any other JSON value, is written as compact JSON text.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for block in value:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(
                    block.get("text"), str):
                parts.append(block["text"])
            elif isinstance(block, str):
                parts.append(block)
            else:
                parts.append(dumps(block))
        return "\n".join(parts)
    if value is None:
        return ""
    return dumps(value)


def replace_content(old: Any, text: str) -> Any:
    """New ``content`` holding ``text`` in the shape of the old one (string or blocks)."""
    if isinstance(old, list):
        return [{"type": "text", "text": text}]
    return text


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

    def call(self, call_id: str | None, where: str) -> int:
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

    def result(self, call_id: str | None, where: str) -> int:
        """Register a result; returns the index of the call it answers."""
        if call_id is not None:
            index = self._by_id.pop(call_id, None)
            if index is None:
                raise TranscriptError(self.path, where,
                                      f"tool result for call id {call_id!r}, but no earlier "
                                      "call with that id is waiting for a result")
        elif self._anonymous:
            index = next(iter(self._anonymous))
        elif self._waiting:
            index = next(iter(self._waiting))
            self._by_id.pop(self._waiting[index], None)
        else:
            raise TranscriptError(self.path, where,
                                  "tool result without an id, and no call is waiting for a "
                                  "result")
        del self._waiting[index]
        self._anonymous.pop(index, None)
        if self.answered is not None:
            self.answered.add(index)
        return index


def optional_id(value: Any, path: Path, where: str, field: str) -> str | None:
    """A call id: a string (a number is accepted and written as text) or absent."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise TranscriptError(path, where, f'"{field}" must be a string, got {dumps(value)}')


def arguments_text(value: Any, path: Path, where: str) -> str:
    """The raw argument string of a call: a string as is, an object as compact JSON."""
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return dumps(value)
    raise TranscriptError(path, where, "the call's arguments must be a JSON string or "
                          f"object, got {dumps(value)[:80]}")


def optional_bool(value: Any, path: Path, where: str, field: str) -> bool | None:
    """``is_error``: true, false, or absent/null."""
    if value is None or isinstance(value, bool):
        return value
    raise TranscriptError(path, where, f'"{field}" must be true or false, got {dumps(value)}')


def named_call(function: dict, call_id: str | None, raw: Any, book: CallBook,
               where: str) -> ToolCall:
    """The call of a ``{"name", "arguments"}`` object (``arguments`` a JSON string or
    object), registered with ``book``; ``raw`` is what the event keeps as recorded."""
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise TranscriptError(book.path, where, 'a tool call needs a "name" string')
    arguments = arguments_text(function.get("arguments"), book.path, where)
    index = book.call(call_id, where)
    return ToolCall(index=index, id=call_id, name=name, arguments=arguments, raw=raw,
                    where=where)


def calls_to_answer(events: Iterable[Event], updates: Mapping[int, Any],
                    answered: set[int]) -> Iterator[ToolCall]:
    """The calls among ``events`` that a rewrite adds a result for: updated, and with no
    result recorded."""
    for event in events:
        if (isinstance(event, ToolCall) and event.index in updates
                and event.index not in answered):
            yield event
