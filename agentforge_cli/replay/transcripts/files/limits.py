"""Opening a transcript file (decompressed when ``.gz``) and reading it within the size
limits: a line or message at most :data:`MAX_LINE_BYTES`, a file read whole at most
:data:`MAX_DOCUMENT_BYTES`, a short file read once when opened, the head of a file to tell
its container. The limits are read from this module when used (a test may lower them)."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentforge_cli.replay.transcripts.model import TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

if TYPE_CHECKING:
    from io import BufferedIOBase

__all__ = ["BLOCK_BYTES", "HEAD_BYTES", "MAX_DOCUMENT_BYTES", "MAX_LINE_BYTES",
           "SMALL_FILE_BYTES", "is_compressed", "open_bytes", "open_content", "read_head",
           "read_small", "read_small_plain", "read_whole_text", "text_lines"]


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
        raise TranscriptError(path, WHOLE_FILE, f"cannot be read: {exc.strerror or exc}") from None
    with stream:
        number = 0
        while True:
            try:
                raw = stream.readline(MAX_LINE_BYTES + 1)
            except (OSError, EOFError) as exc:  # a damaged .gz stream
                raise TranscriptError(path, Place(number + 1), "cannot be read: "
                                      f"{getattr(exc, 'strerror', None) or exc}") from None
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise TranscriptError(path, Place(number), "the line is longer than "
                                      f"{MAX_LINE_BYTES} bytes (the limit)")
            try:
                yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise TranscriptError(path, Place(number),
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
        raise TranscriptError(path, WHOLE_FILE, f"cannot be read: {exc.strerror or exc}") from None


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
        raise TranscriptError(path, WHOLE_FILE, f"cannot be read: {exc}") from None
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise TranscriptError(path, WHOLE_FILE, f"the {what} is more than the {MAX_DOCUMENT_BYTES} "
                              f"bytes a {what} may have")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TranscriptError(path, WHOLE_FILE, f"not UTF-8 text ({exc.reason})") from None


BLOCK_BYTES = 1 << 20
"""How much of a file is read at a time when it is read in blocks (JSONL, leading blank
lines)."""


def open_content(path: Path, content: bytes | None) -> Any:
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
        with open_content(path, content) as stream:
            number, start = _skip_blank_lines(path, stream)
            whole = True
            while True:
                try:
                    raw = start.readline(HEAD_BYTES)
                    if not raw.endswith(b"\n") and len(raw) < HEAD_BYTES:
                        raw += stream.readline(HEAD_BYTES - len(raw))  # the rest of it
                except (OSError, EOFError) as exc:  # a damaged .gz stream
                    raise TranscriptError(path, Place(number + 1), "cannot be read: "
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
                    raise TranscriptError(path, Place(number),
                                          f"not UTF-8 text ({exc.reason})") from None
                if line.strip():
                    return line
    except OSError as exc:
        raise TranscriptError(path, WHOLE_FILE, f"cannot be read: {exc.strerror or exc}") from None


def _skip_blank_lines(path: Path, stream: Any) -> tuple[int, io.BytesIO]:
    """Read past the file's leading blank lines (ASCII white space), a block at a time:
    how many there were, and the bytes read after them (from the start of the first line
    that holds something), to be read before the rest of ``stream``."""
    lines = 0
    while True:
        try:
            block = stream.read(BLOCK_BYTES)
        except (OSError, EOFError) as exc:  # a damaged .gz stream
            raise TranscriptError(path, Place(lines + 1), "cannot be read: "
                                  f"{getattr(exc, 'strerror', None) or exc}") from None
        spaces = len(block) - len(block.lstrip())  # ASCII white space, as _SPACES
        cut = block.rfind(b"\n", 0, spaces) + 1
        lines += block.count(b"\n", 0, cut)
        if spaces < len(block) or not block:
            return lines, io.BytesIO(block[cut:])
