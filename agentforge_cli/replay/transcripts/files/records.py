"""A transcript file as records, and JSON text as transcripts are written.

A *record* is one JSONL line or one element of a JSON document's message list; every
format reads records, whatever file they came from. JSONL is read lazily, in blocks of
whole lines, each line numbered (a line that is not UTF-8 is reported by number); a JSON
document is streamed message by message
(:mod:`~agentforge_cli.replay.transcripts.files.documents`), and parsed whole only to be
written back. Blank JSONL lines are records with ``data`` ``None`` so that
a rewrite keeps them (a run of them is one record, whatever its length).
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.observe.surrogates import COMPACT, json_text
from agentforge_cli.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.files.layout import Layout, detect_layout
from agentforge_cli.replay.transcripts.model import TranscriptError

if TYPE_CHECKING:
    from io import BufferedIOBase

__all__ = [
    "ENVELOPE_KEYS",
    "HEAD_BYTES",
    "MAX_DOCUMENT_BYTES",
    "MAX_LINE_BYTES",
    "SMALL_FILE_BYTES",
    "Document",
    "Record",
    "dumps",
    "envelope_keys",
    "envelope_records",
    "envelope_values",
    "is_compressed",
    "iter_jsonl",
    "jsonl_blocks",
    "jsonl_record",
    "load_document",
    "open_bytes",
    "read_head",
    "read_small",
    "read_small_plain",
    "read_whole_text",
    "record_shape",
    "scan_json",
    "text_lines",
]

ENVELOPE_KEYS = ("messages", "contents", "input", "output", "traj", "simulations")
"""The arrays a JSON object transcript may hold its records in: chat ``messages``, Gemini
``contents``, OpenAI Responses ``input`` and ``output``, a tau-bench trajectory's chat
messages (``traj``), a tau2-bench results file's conversations (``simulations``), read in
this order."""


def envelope_keys(data: Any) -> tuple[str, ...]:
    """The :data:`ENVELOPE_KEYS` a JSON object holds its records under: ``messages``
    alone, else every other one that is an array (and a string ``input``, a Responses
    request's one user message); none for a record (an object with ``type``/``role``)."""
    if not isinstance(data, dict):
        return ()
    if isinstance(data.get("messages"), list):
        return ("messages",)
    if "type" in data or "role" in data:
        return ()
    keys = tuple(key for key in ENVELOPE_KEYS if isinstance(data.get(key), list))
    if isinstance(data.get("input"), str):
        keys = tuple(key for key in ENVELOPE_KEYS if key == "input" or key in keys)
    return keys


def envelope_records(data: dict[str, Any], keys: tuple[str, ...],
                     where: str = "") -> list[Record]:
    """The records under ``keys`` (from :func:`envelope_keys`), in order, each at
    ``contents[2]`` (after ``where``, when given: ``line 3, contents[2]``)."""
    prefix = f"{where}, " if where else ""
    records: list[Record] = []
    for key in keys:
        items = data[key]
        if isinstance(items, str):  # a Responses request's "input": one user message
            records.append(Record({"role": "user", "content": items}, prefix + key,
                                  len(records)))
            continue
        start = len(records)
        records.extend(Record(item, f"{prefix}{key}[{i}]", start + i)
                       for i, item in enumerate(items))
    return records


def envelope_values(data: dict[str, Any], keys: tuple[str, ...], records: list[Any],
                    where: str = "") -> dict[str, Any]:
    """``data`` with ``records`` (rewritten, from :func:`envelope_records` with the same
    ``where``) put back: each under the key it was read from, a new record under its
    predecessor's; a string ``input`` stays a string while unchanged."""
    read_from = {record.where: key for key in keys
                 for record in envelope_records(data, (key,), where)}
    groups: dict[str, list[Any]] = {key: [] for key in keys}
    key = keys[0]
    for record in records:
        key = read_from.get(record.where, key) if record.where else key
        groups[key].append(record.data)
    values = dict(data)
    for key, items in groups.items():
        original = data.get(key)
        keep = isinstance(original, str) and items == [{"role": "user", "content": original}]
        values[key] = original if keep else items
    return values


# Hot path: one Record per JSONL line. Not frozen (a frozen __init__ pays an
# object.__setattr__ per field) and built positionally; nothing changes one once built.
@dataclass(slots=True)
class Record:
    """One line or message."""

    data: Any
    """The parsed JSON value (``None`` for a blank line, or a run of them: one record)."""
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
    keys: tuple[str, ...] = ()
    """The envelope's keys the records came from, in order (``("input", "output")``)."""
    layout: Layout
    """How the file is laid out (one line, a record a line, indented): kept when it is
    written back."""
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


def dumps(value: Any, indent: int | None = None) -> str:
    """JSON text as transcripts are written: UTF-8 kept, compact unless indented, a lone
    surrogate escaped (:func:`~agentforge_cli.core.observe.surrogates.json_text`)."""
    return json_text(value, indent=indent, separators=COMPACT if indent is None else None)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"the non-standard constant {name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_loads = _DECODER.decode
_scan: Callable[[str, int], tuple[Any, int]]
_scan = _DECODER.scan_once  # type: ignore[attr-defined]  # set by __init__, not in typeshed
scan_json = _scan
"""``scan_json(text, 0)``: ``(value, end)`` of the JSON value at the start of ``text`` (no
whitespace before it; the non-standard constants refused), as a JSONL line is read on its
fast path. Raises ``StopIteration`` when no value starts there."""


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


def is_compressed(path: Path) -> bool:
    """A ``.gz`` file: read through gzip, transparently."""
    return path.name.lower().endswith(".gz")


def open_bytes(path: Path) -> BufferedIOBase:
    """The file opened for binary reading, decompressed when it is ``.gz``.

    Raises:
        OSError: It cannot be opened (a bad gzip stream fails when read).
    """
    if is_compressed(path):
        import gzip

        return gzip.open(path, "rb")
    return path.open("rb")


MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longest JSONL line or JSON document message read (a longer one is refused with its
line number or message index, unread)."""
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
"""Largest file a format may read whole (a YAML cassette); JSONL files and JSON documents
are streamed, and only a line or message has a limit (:data:`MAX_LINE_BYTES`)."""


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(number, text)`` of each line of a text file (decompressed when ``.gz``; the end
    of line kept), for formats that read text logs, refusing a line over
    :data:`MAX_LINE_BYTES` before it is read whole.

    Raises:
        TranscriptError: The file cannot be read, or a line is too long or not UTF-8.
    """
    try:
        stream = open_bytes(path)
    except OSError as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    with stream:
        number = 0
        while True:
            try:
                raw = stream.readline(MAX_LINE_BYTES + 1)
            except (OSError, EOFError) as exc:  # a damaged .gz stream
                raise TranscriptError(path, f"line {number + 1}", "cannot be read: "
                                      f"{getattr(exc, 'strerror', None) or exc}") from None
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise TranscriptError(path, f"line {number}", "the line is longer than "
                                      f"{MAX_LINE_BYTES} bytes (the limit)")
            try:
                yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise TranscriptError(path, f"line {number}",
                                      f"not UTF-8 text ({exc.reason})") from None


HEAD_BYTES = 1 << 20
"""At most this much of the first line is read to tell the container (a one-line JSON
document may be as long as the file)."""


SMALL_FILE_BYTES = 1 << 16
"""A plain file at most this long is read once, whole, when it is opened
(:func:`read_small`): its detection and its replay then read those bytes."""


def read_small(path: Path) -> bytes | None:
    """The bytes of a plain (not compressed) file of at most :data:`SMALL_FILE_BYTES`, or
    ``None`` for a longer or compressed one.

    Raises:
        TranscriptError: It cannot be read.
    """
    if is_compressed(path):
        return None
    try:
        return read_small_plain(path)
    except OSError as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None


_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows opens files as text without it


def read_small_plain(path: Path) -> bytes | None:
    """:func:`read_small` of a file that is not compressed, with its ``OSError`` (or the
    ``ValueError`` of a path the system cannot take) raised as is. Read through the file
    descriptor, without a file object's cost (a folder may hold thousands)."""
    descriptor = os.open(path, os.O_RDONLY | _O_BINARY)
    try:
        chunks, size = [], 0
        while size <= SMALL_FILE_BYTES:  # a pipe may return less than asked for
            chunk = os.read(descriptor, SMALL_FILE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(descriptor)
    if size > SMALL_FILE_BYTES:
        return None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_whole_text(path: Path, what: str) -> str:
    """The whole file as text (decompressed when ``.gz``), for a format that reads its
    files whole; ``what`` names the file in the size refusal (``trace``, ``log``).

    Raises:
        TranscriptError: It cannot be read, is over :data:`MAX_DOCUMENT_BYTES`, or is not
            UTF-8.
    """
    try:
        with open_bytes(path) as stream:
            raw = stream.read(MAX_DOCUMENT_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc}") from None
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise TranscriptError(path, "", f"the {what} is more than the {MAX_DOCUMENT_BYTES} "
                              f"bytes a {what} may have")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TranscriptError(path, "", f"not UTF-8 text ({exc.reason})") from None


def _open_content(path: Path, content: bytes | None) -> Any:
    """:func:`open_bytes`, or ``content`` (the file's bytes, read before) as a stream."""
    if content is None:
        return open_bytes(path)
    return io.BytesIO(content)


def read_head(path: Path, content: bytes | None = None) -> str | None:
    """The first non-blank line of the file (decoded; its first :data:`HEAD_BYTES` when it
    is longer, without a newline), or ``None`` for an empty file. ``content``: the file's
    bytes, when they were read already (:func:`read_small`)."""
    import codecs

    try:
        with _open_content(path, content) as stream:
            number, start = _skip_blank_lines(path, stream)
            whole = True
            while True:
                try:
                    raw = start.readline(HEAD_BYTES)
                    if not raw.endswith(b"\n") and len(raw) < HEAD_BYTES:
                        raw += stream.readline(HEAD_BYTES - len(raw))  # the rest of it
                except (OSError, EOFError) as exc:  # a damaged .gz stream
                    raise TranscriptError(path, f"line {number + 1}", "cannot be read: "
                                          f"{getattr(exc, 'strerror', None) or exc}") from None
                if not raw:
                    return None
                number += whole
                whole = raw.endswith(b"\n")
                # utf-8-sig only drops a leading byte order mark, and costs more than utf-8
                encoding = "utf-8-sig" if number == 1 and raw[:1] == b"\xef" else "utf-8"
                try:  # a cut line may end inside a character
                    line = codecs.getincrementaldecoder(encoding)().decode(raw, final=whole)
                except UnicodeDecodeError as exc:
                    raise TranscriptError(path, f"line {number}",
                                          f"not UTF-8 text ({exc.reason})") from None
                if line.strip():
                    return line
    except OSError as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None


_BLOCK_BYTES = 1 << 20


def _skip_blank_lines(path: Path, stream: Any) -> tuple[int, io.BytesIO]:
    """Read past the file's leading blank lines (ASCII white space), a block at a time:
    how many there were, and the bytes read after them (from the start of the first line
    that holds something), to be read before the rest of ``stream``."""
    lines = 0
    while True:
        try:
            block = stream.read(_BLOCK_BYTES)
        except (OSError, EOFError) as exc:  # a damaged .gz stream
            raise TranscriptError(path, f"line {lines + 1}", "cannot be read: "
                                  f"{getattr(exc, 'strerror', None) or exc}") from None
        spaces = len(block) - len(block.lstrip())  # ASCII white space, as _SPACES
        cut = block.rfind(b"\n", 0, spaces) + 1
        lines += block.count(b"\n", 0, cut)
        if spaces < len(block) or not block:
            return lines, io.BytesIO(block[cut:])


def _line_blocks(path: Path, stream: Any) -> Iterator[bytes]:
    """The file in blocks of whole lines (the last one may lack its newline), refusing a
    line over :data:`MAX_LINE_BYTES` before it is read whole. Reading blocks rather than
    a line at a time halves the cost of reading a long JSONL transcript."""
    rest: list[bytes] = []
    rest_size = lines_before = 0  # the unfinished line: its parts, size, and its number - 1
    while True:
        try:
            block = stream.read(_BLOCK_BYTES)
        except (OSError, EOFError) as exc:  # a damaged .gz stream
            raise TranscriptError(path, f"line {lines_before + 1}",
                                  f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
                                  ) from None
        if not block:
            break
        cut = block.rfind(b"\n") + 1
        if not cut:
            rest.append(block)
            rest_size += len(block)
        else:
            whole = b"".join([*rest, block[:cut]]) if rest else block[:cut]
            _check_lengths(path, whole, lines_before)
            lines_before += whole.count(b"\n")
            yield whole
            rest, rest_size = [block[cut:]], len(block) - cut
        if rest_size > MAX_LINE_BYTES:
            raise TranscriptError(path, f"line {lines_before + 1}", f"the line is longer "
                                  f"than {MAX_LINE_BYTES} bytes (the limit)")
    if rest_size:
        yield b"".join(rest)


def _check_lengths(path: Path, block: bytes, lines_before: int) -> None:
    if len(block) <= MAX_LINE_BYTES:
        return
    for number, line in enumerate(block.split(b"\n"), lines_before + 1):
        if len(line) + 1 > MAX_LINE_BYTES:
            raise TranscriptError(path, f"line {number}", f"the line is longer than "
                                  f"{MAX_LINE_BYTES} bytes (the limit)")


class _BlankRun(str):
    """Blank lines, one piece of :func:`_decode_block` (the whole run)."""

    __slots__ = ()


_SPACES = re.compile(r"[ \t\r\f\v\n]*")
"""ASCII white space, newlines included: blank lines, from a line's start."""
_BLANK_AFTER = re.compile(r"\n[ \t\r\f\v]*\n")
"""A line's end followed by a blank line."""


def _decode_block(path: Path, block: bytes, lines_before: int) -> list[str]:
    """A block's lines, decoded, each ending with its newline (but a last one without).

    A run of blank lines is one piece, so that millions of them cost what their bytes
    cost, not a record each: :func:`iter_jsonl` makes one blank record of it."""
    text = _decode_text(path, block, lines_before)
    if _BLANK_AFTER.search(text) is None:
        lines = text.split("\n")
        last = lines.pop()
        lines = [line + "\n" for line in lines]
        if last:
            lines.append(last)
        return lines
    pieces: list[str] = []
    start, size = 0, len(text)
    while start < size:
        spaces = _SPACES.match(text, start).end()  # type: ignore[union-attr]  # always matches
        end = text.rfind("\n", start, spaces) + 1 if spaces > start else 0
        if end:
            pieces.append(_BlankRun(text[start:end]))
        else:  # not a blank line: one line
            end = text.find("\n", start) + 1 or size
            pieces.append(text[start:end])
        start = end
    return pieces


def _decode_text(path: Path, block: bytes, lines_before: int) -> str:
    # utf-8-sig only drops a leading byte order mark, and costs more than utf-8
    encoding = "utf-8" if lines_before or block[:1] != b"\xef" else "utf-8-sig"
    try:
        return block.decode(encoding)
    except UnicodeDecodeError:  # name the line, with its own reason
        for number, raw in enumerate(block.split(b"\n"), lines_before + 1):
            try:
                raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise TranscriptError(path, f"line {number}",
                                      f"not UTF-8 text ({exc.reason})") from None
        raise  # not reached: some line failed


def jsonl_blocks(path: Path, content: bytes | None = None,
                 ) -> Iterator[tuple[int, list[str], bool]]:
    """The JSONL file in blocks of decoded lines, as :func:`iter_jsonl` reads it (the same
    checks and errors): ``(lines before the block, its lines without their "\\n", whether
    the block's last line ended with one)``. For a caller that handles the common lines
    itself and makes :func:`jsonl_record` of the others (the replay's short path).
    ``content``: the file's bytes, when they were read already (:func:`read_small`)."""
    try:
        stream = _open_content(path, content)
    except OSError as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    number = 0
    with stream:
        for block in _line_blocks(path, stream):
            lines = _decode_text(path, block, number).split("\n")
            ended = not lines[-1]
            if ended:
                lines.pop()
            yield number, lines, ended
            number += len(lines)


def jsonl_record(path: Path, line: str, number: int) -> Record:
    """The record of line ``number`` (``line`` with its end of line), as :func:`iter_jsonl`
    yields it."""
    body = line.rstrip("\r\n")
    try:  # hot path: json's C scanner directly; decode() for the rest
        data, end = _scan(body, 0)
    except (StopIteration, ValueError, RecursionError):
        end = -1
    if end != len(body):
        if not body.strip():
            return Record(None, f"line {number}", number, line)
        try:
            data = _loads(body)
        except (ValueError, RecursionError) as exc:
            raise _decode_error(path, f"line {number}", exc, line_offset=number) from None
    return Record(data, f"line {number}", number, line)


def iter_jsonl(path: Path, content: bytes | None = None) -> Generator[Record, None, None]:
    """Yield each line of a JSONL file as a record, parsed, lazily. ``content``: the file's
    bytes, when they were read already (:func:`read_small`)."""
    try:
        stream = _open_content(path, content)
    except OSError as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    number = 0
    scan = _scan
    with stream:
        for block in _line_blocks(path, stream):
            for line in _decode_block(path, block, number):
                number += 1
                if line.__class__ is _BlankRun:
                    yield Record(None, f"line {number}", number, str(line))
                    number += line.count("\n") - 1
                    continue
                body = line.rstrip("\r\n")
                try:  # hot path: json's C scanner directly; decode() for the rest
                    data, end = scan(body, 0)
                except (StopIteration, ValueError, RecursionError):
                    end = -1
                if end != len(body):
                    if not body.strip():
                        yield Record(None, f"line {number}", number, line)
                        continue
                    try:
                        data = _loads(body)
                    except (ValueError, RecursionError) as exc:
                        raise _decode_error(path, f"line {number}", exc,
                                            line_offset=number) from None
                yield Record(data, f"line {number}", number, line)


def load_document(path: Path) -> Document:
    """Parse a whole-file JSON transcript, all of it, with its layout (to write it back):
    an array of messages or ``{"messages": [...]}``. Reading for a replay streams it
    instead (:func:`~agentforge_cli.replay.transcripts.files.documents.iter_document`)."""
    try:
        with open_bytes(path) as stream:
            try:
                raw = stream.read()
            except EOFError as exc:  # a truncated .gz stream
                raise OSError(str(exc)) from None
        text = raw.decode("utf-8-sig")
    except OSError as exc:
        raise TranscriptError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise TranscriptError(path, f"line {line}", f"not UTF-8 text ({exc.reason})") from None
    if not text.strip():
        raise TranscriptError(path, "", "the transcript is empty")
    try:
        data = _loads(text)
    except (ValueError, RecursionError) as exc:
        raise _decode_error(path, "", exc) from None
    envelope: dict[str, Any] | None = None
    keys: tuple[str, ...] = ()
    if isinstance(data, dict):
        keys = envelope_keys(data)
        if not keys:
            raise TranscriptFormatError(path, "", 'a JSON object transcript needs a "messages" '
                                        'array (or "contents", "input", "output"); found '
                                        f"{record_shape(data)}")
        envelope = data
        records = envelope_records(data, keys)
    elif isinstance(data, list):
        records = [Record(item, f"messages[{i}]", i) for i, item in enumerate(data)]
    else:
        raise TranscriptFormatError(path, "", "expected a JSON array of messages or an object "
                                    f'with "messages", got {record_shape(data)}')
    layout = detect_layout(text, len(records), len(envelope) if envelope else 0)
    return Document(records=records, envelope=envelope, keys=keys, layout=layout,
                    trailing_newline=text.endswith("\n"))
