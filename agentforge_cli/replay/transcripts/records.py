"""A transcript file as records, and JSON text as transcripts are written.

A *record* is one JSONL line or one element of a JSON document's message list; every
format reads records, whatever file they came from. JSONL is read lazily, line by line,
in binary so that a line that is not UTF-8 is reported by number; a JSON document is
parsed whole (it has to be). Blank JSONL lines are records with ``data`` ``None`` so that
a rewrite keeps them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentforge_cli.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.events import TranscriptError

__all__ = ["MAX_DOCUMENT_BYTES", "MAX_LINE_BYTES", "Document", "Record", "dumps",
           "iter_jsonl", "load_document", "read_head", "record_shape"]


# Hot path: one Record per JSONL line. Not frozen (a frozen __init__ pays an
# object.__setattr__ per field) and built positionally; nothing changes one once built.
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


@dataclass(frozen=True, kw_only=True, slots=True)
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
            raise TranscriptFormatError(path, "", 'a JSON object transcript needs a "messages" '
                                        f"array; found {record_shape(data)}")
        envelope = data
    elif isinstance(data, list):
        messages = data
    else:
        raise TranscriptFormatError(path, "", "expected a JSON array of messages or an object "
                                    f'with "messages", got {record_shape(data)}')
    records = [Record(item, f"messages[{i}]", i) for i, item in enumerate(messages)]
    stripped = text.strip()
    indent = 2 if "\n" in stripped else None
    return Document(records=records, envelope=envelope, indent=indent,
                    trailing_newline=text.endswith("\n"))
