"""A whole-file JSON transcript read one message at a time, in constant memory.

The document is decoded in blocks into a sliding text buffer, and each message of its
array (a top-level array, or the ``messages``/``contents``/``input``/``output`` arrays
of a top-level object) is parsed with ``json``'s own scanner as soon as it is whole, so
memory holds one block and one message whatever the file's length. A message longer
than :data:`~agentforge_cli.replay.transcripts.files.limits.MAX_LINE_BYTES` is refused by its
index. An object is read twice: once for its keys (which arrays hold the records, see
:func:`~agentforge_cli.replay.transcripts.files.envelopes.envelope_keys`), then for each array
in turn. Standard library only.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.files import limits
from agentforge_cli.replay.transcripts.files.envelopes import (
    ENVELOPE_KEYS,
    PROMPT_KEYS,
    envelope_keys,
    envelope_prompt,
)
from agentforge_cli.replay.transcripts.files.json_text import decode_error, scan_json
from agentforge_cli.replay.transcripts.files.limits import open_bytes
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.model import SystemPrompt, TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

__all__ = ["iter_document"]

_BLOCK_CHARS = 1 << 20
_WHITESPACE = json.decoder.WHITESPACE.match  # type: ignore[attr-defined]  # not in typeshed
_NEAR_END = 8
"""An error this close to the buffer's end may only mean the value goes on in the next
block (``tru`` of ``true``, a ``\\u`` escape cut short)."""


class _Reader:
    """The document's text, a block at a time, and a position in it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._stream = open_bytes(path)
        except OSError as exc:
            raise TranscriptError(path, WHOLE_FILE,
                                  f"cannot be read: {exc.strerror or exc}") from None
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.buf = ""
        self.pos = 0
        self.eof = False
        self._lines_before = 0  # newlines in the text already dropped from the buffer
        self._column_before = 0  # characters after the last of them

    def close(self) -> None:
        self._stream.close()

    def more(self) -> bool:
        """Drop the text read past, append the next block; False at the end of the file."""
        if self.eof:
            return False
        try:
            raw = self._stream.read(_BLOCK_CHARS)
        except (OSError, EOFError) as exc:  # a damaged .gz stream
            raise TranscriptError(self.path, WHOLE_FILE, "cannot be read: "
                                  f"{getattr(exc, 'strerror', None) or exc}") from None
        pending = len(self._decoder.getstate()[0])
        try:
            text = self._decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            line = (self._lines_before + self.buf.count("\n")
                    + raw[: max(exc.start - pending, 0)].count(b"\n") + 1)
            raise TranscriptError(self.path, Place(line),
                                  f"not UTF-8 text ({exc.reason})") from None
        if self.pos:
            dropped = self.buf[: self.pos]
            newlines = dropped.count("\n")
            self._lines_before += newlines
            self._column_before = (len(dropped) - dropped.rfind("\n") - 1 if newlines
                                   else self._column_before + len(dropped))
            self.buf, self.pos = self.buf[self.pos:], 0
        self.buf += text
        self.eof = not raw
        return True

    def peek(self) -> str:
        """The next character that is not whitespace (the position moves to it); empty at
        the end of the file."""
        while True:
            self.pos = _WHITESPACE(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def value(self, where: Place) -> Any:
        """Decode the JSON value at the position (after :meth:`peek`)."""
        while True:
            try:
                value, end = scan_json(self.buf, self.pos)
            except StopIteration as stop:  # no value could start at stop.value
                if self.eof or stop.value < len(self.buf) - _NEAR_END:
                    raise self.syntax_error("Expecting value", stop.value) from None
            except json.JSONDecodeError as exc:
                if self.eof or not (exc.msg.startswith("Unterminated string")
                                    or exc.pos >= len(self.buf) - _NEAR_END):
                    raise self.syntax_error(exc.msg, exc.pos) from None
            except (ValueError, RecursionError) as exc:
                raise decode_error(self.path, WHOLE_FILE, exc) from None
            else:
                if end - self.pos > limits.MAX_LINE_BYTES:
                    break
                if end + _NEAR_END < len(self.buf) or self.eof:  # 1.5 may be 1.5e3 in full
                    self.pos = end
                    return value
            if len(self.buf) - self.pos > limits.MAX_LINE_BYTES:
                break
            self.more()
        raise TranscriptError(self.path, where, "the message is longer than "
                              f"{limits.MAX_LINE_BYTES} bytes (the limit)")

    def expect(self, char: str, message: str) -> None:
        if self.peek() != char:
            raise self.syntax_error(message, self.pos)
        self.pos += 1

    def syntax_error(self, message: str, pos: int) -> TranscriptError:
        line = self.buf.count("\n", 0, pos)
        column = pos - self.buf.rfind("\n", 0, pos) if line else pos + self._column_before + 1
        return TranscriptError(self.path, Place(self._lines_before + line + 1),
                               f"invalid JSON: {message} (column {column})")

    def items(self, key: str) -> Iterator[tuple[int, Any]]:
        """The values of the array whose ``[`` is at the position, as ``(index, value)``;
        ``key`` names them (``messages`` -> ``messages[3]``)."""
        self.pos += 1
        if self.peek() == "]":
            self.pos += 1
            return
        index = 0
        while True:
            if not self.peek():
                raise self.syntax_error("Expecting value", self.pos)
            yield index, self.value(WHOLE_FILE.at(key, index))
            char = self.peek()
            self.pos += 1
            if char == "]":
                return
            if char != ",":
                raise self.syntax_error("Expecting ',' delimiter", self.pos - 1)
            index += 1

    def members(self) -> Iterator[str]:
        """The keys of the object whose ``{`` is at the position; after each key the
        position is at its value, which the caller reads (or :meth:`skip`\\ s)."""
        self.pos += 1
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            if self.peek() != '"':
                raise self.syntax_error("Expecting property name enclosed in double quotes",
                                        self.pos)
            key = self.value(WHOLE_FILE)
            self.expect(":", "Expecting ':' delimiter")
            self.peek()
            yield key
            char = self.peek()
            self.pos += 1
            if char == "}":
                return
            if char != ",":
                raise self.syntax_error("Expecting ',' delimiter", self.pos - 1)

    def skip(self, key: str) -> Any:
        """Read past the value of ``key`` at the position: an array a value at a time
        (``[]`` is returned for it), anything else whole."""
        if self.peek() == "[":
            for _ in self.items(key):
                pass
            return []
        return self.value(WHOLE_FILE.at(key))

    def end(self) -> None:
        """Only whitespace may follow the document."""
        if self.peek():
            line = self.syntax_error("", self.pos).where
            raise TranscriptError(self.path, line, "more than one JSON document: a transcript "
                                  "file holds one conversation (a JSON array, an object with "
                                  "\"messages\", or one JSON object per line)")


def iter_document(path: Path, prompts: list[SystemPrompt] | None = None
                  ) -> Generator[Record, None, None]:
    """Yield the messages of a whole-file JSON transcript as records, lazily: an array of
    messages (``messages[3]``) or an object holding them (``contents[2]``). Given a list
    as ``prompts``, the system prompt an object gives beside its messages
    (:func:`~agentforge_cli.replay.transcripts.files.envelopes.envelope_prompt`, for the
    whole file) is appended to it before the first record is yielded.

    Raises:
        TranscriptFormatError: The document is neither (before any record).
        TranscriptError: It cannot be read, is not JSON, or a message is too long (at
            that message: the ones before it have been yielded).
    """
    reader = _Reader(path)
    try:
        first = reader.peek()
        if not first:
            raise TranscriptError(path, WHOLE_FILE, "the transcript is empty")
        if first == "[":
            for index, data in reader.items("messages"):
                yield Record(data, WHOLE_FILE.at("messages", index), index)
            reader.end()
            return
        if first != "{":
            data = reader.value(WHOLE_FILE)
            reader.end()
            raise TranscriptFormatError(path, WHOLE_FILE, "expected a JSON array of messages or an "
                                        'object with "messages", got '
                                        f"{record_shape(data)}")
        shape, member = _object_shape(reader)
        reader.end()
    finally:
        reader.close()
    keys = envelope_keys(shape)
    if not keys:
        raise TranscriptFormatError(path, WHOLE_FILE, 'a JSON object transcript needs a "messages" '
                                    'array (or "contents", "input", "output"); found '
                                    f"{record_shape(shape)}")
    prompt = envelope_prompt(shape, file_wide=True) if prompts is not None else None
    if prompt is not None and prompts is not None:
        prompts.append(prompt)
    position = 0
    for key in keys:
        if isinstance(shape[key], str):  # a Responses request's "input": one user message
            yield Record({"role": "user", "content": shape[key]}, WHOLE_FILE.at(key),
                         position)
            position += 1
            continue
        for index, data in _member_items(path, member[key], key):
            yield Record(data, WHOLE_FILE.at(key, index), position)
            position += 1


def _object_shape(reader: _Reader) -> tuple[dict[str, Any], dict[str, int]]:
    """The object's keys with a stand-in for each value (``[]`` for an array, the text of
    an envelope string, the value where a system prompt may be, ``None`` otherwise), and
    each key's member number (the last one counts, as in ``json.loads``)."""
    shape: dict[str, Any] = {}
    member: dict[str, int] = {}
    for number, key in enumerate(reader.members()):
        if key in PROMPT_KEYS and key not in ENVELOPE_KEYS:  # kept whole, blocks and all
            shape[key] = reader.value(WHOLE_FILE.at(key))
        else:
            value = reader.skip(key)
            shape[key] = value if value == [] or (key in ENVELOPE_KEYS
                                                  and isinstance(value, str)) else None
        member[key] = number
    return shape, member


def _member_items(path: Path, number: int, key: str) -> Iterator[tuple[int, Any]]:
    """The items of the array that is the object's ``number``-th member, read again."""
    reader = _Reader(path)
    try:
        reader.peek()
        for found, name in enumerate(reader.members()):
            if found == number:
                yield from reader.items(key)
                return
            reader.skip(name)
    finally:
        reader.close()
