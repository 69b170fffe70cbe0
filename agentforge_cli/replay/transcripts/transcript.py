"""A transcript file opened in a known format: its events, and results written back.

Reading never changes the file; :meth:`Transcript.write_results` rewrites it atomically.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentforge_cli.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts import registry
from agentforge_cli.replay.transcripts.calls import Updates
from agentforge_cli.replay.transcripts.detection import (
    DETECTION_WINDOW,
    container_of,
    detect_format,
    document_records,
)
from agentforge_cli.replay.transcripts.documents import iter_document
from agentforge_cli.replay.transcripts.events import Event, TranscriptError
from agentforge_cli.replay.transcripts.format import Claim, FileFormat, TranscriptFormat
from agentforge_cli.replay.transcripts.layout import detect_layout, dump
from agentforge_cli.replay.transcripts.records import (
    MAX_LINE_BYTES,
    Document,
    Record,
    envelope_keys,
    envelope_values,
    is_compressed,
    iter_jsonl,
    load_document,
    open_bytes,
    read_head,
    read_small,
    read_small_plain,
    scan_json,
)

__all__ = ["ReadProgress", "Transcript", "open_transcript"]


@dataclass(slots=True)
class ReadProgress:
    """How far a transcript's events have been read: records (lines, messages,
    interactions) so far, out of :meth:`Transcript.count_records`."""

    records: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class Transcript:
    """One transcript file, its format known. Reading it never changes it."""

    path: Path
    """The file."""
    format: str
    """The format's name (``agentforge``, ``openai``, ``anthropic``: see the registry)."""
    container: str
    """``jsonl`` (streamed), ``json`` (one document) or ``file`` (read by its format
    itself, streamed: VCR cassettes)."""
    content: bytes | None = field(default=None, repr=False, compare=False)
    """A short JSONL file's bytes, read when it was opened: its events are read from them
    (one read of the file, not one for detection and one for the replay)."""
    progress: ReadProgress = field(default_factory=ReadProgress, repr=False, compare=False)
    """How far :meth:`events` has read (for a progress bar)."""

    @property
    def _format(self) -> TranscriptFormat:
        found = registry.find_format(self.format)
        if found is None:
            raise ValueError(f"transcript format {self.format!r} is not registered")
        return found

    def _records(self) -> Iterator[Record]:
        if self.container == "jsonl":
            return iter_jsonl(self.path, self.content)
        if self.container == "file":  # a format that reads its files itself (cassettes)
            fmt = self._format
            if not isinstance(fmt, FileFormat):
                raise ValueError(f"transcript format {self.format!r} reads no files itself")
            return fmt.file_records(self.path)
        return iter_document(self.path)

    def events(self) -> Iterator[Event]:
        """Yield the conversation's events in order, reading the file as they are asked
        for (a JSONL line or a JSON document's message at a time).

        Raises:
            TranscriptError: At the first malformed line or message (for a JSON document,
                before any event is yielded: it is read through once first, keeping
                nothing, so that nothing runs from a document that does not read).
        """
        if self.container == "json":
            return self._events()
        return self._parse(self._records(), self.progress)  # one generator, not two

    def _events(self) -> Iterator[Event]:
        if self.container == "json":
            for _ in self._parse(self._records(), ReadProgress()):
                pass
        yield from self._parse(self._records(), self.progress)

    def _parse(self, records: Iterator[Record], progress: ReadProgress) -> Iterator[Event]:
        fmt = self._format
        book = fmt.book(self.path)
        record_events = fmt.record_events
        for record in records:
            progress.records += 1
            yield from record_events(record, book)
        yield from book.finish()

    def count_records(self) -> int:
        """Lines (JSONL) or messages (JSON) in the file, for a progress bar."""
        if self.container == "json":
            return sum(1 for _ in iter_document(self.path))
        if self.container == "file":
            return sum(1 for _ in self._records())
        with open_bytes(self.path) as stream:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: stream.read(1 << 20), b""))

    def write_results(self, updates: Updates) -> int:
        """Record new results, atomically, and return how many calls were updated.

        Args:
            updates: Call index (``ToolCall.index``) -> ``(text, is_error)``. A call that
                has a recorded result gets it rewritten in place; one that has none gets a
                result added. Everything else in the file is kept.

        Raises:
            TranscriptError: When the file no longer reads as it did.
        """
        if not updates:
            return 0
        if self.container == "file":  # its format refuses, or writes the file itself
            return len(list(self._format.rewrite(self._records(), updates, set(),
                                                 self._format.book(self.path))))
        if is_compressed(self.path):
            raise TranscriptError(self.path, "", "a compressed transcript cannot be updated "
                                  "(decompress it first)")
        from agentforge_cli.core.fileio import atomic_writer

        answered_calls = self._answered()  # reads (and checks) the whole file first
        book = self._format.book(self.path)
        rewrite = self._format.rewrite
        if self.container == "jsonl":
            newline = _newline_of(self.path)
            layout = detect_layout(read_head(self.path) or "", 1)  # ", " / ": " kept
            with atomic_writer(self.path) as stream:
                ended = True  # the last line written ended with a newline
                for record in rewrite(iter_jsonl(self.path), updates, answered_calls, book):
                    text = record.text if record.text is not None else dump(record.data,
                                                                             layout)
                    if not ended:
                        stream.write(newline)
                    stream.write(text if record.text is not None else text + newline)
                    ended = text.endswith("\n") or record.text is None
        else:
            document = load_document(self.path)
            records = list(rewrite(iter(document.records), updates, answered_calls, book))
            _write_document(self.path, document, records)
        return len([i for i in updates if i < book.count])

    def _answered(self) -> set[int]:
        book = self._format.book(self.path)
        book.answered = set()
        record_events = self._format.record_events
        for record in self._records():
            record_events(record, book)
        book.finish()
        return book.answered


def _newline_of(path: Path) -> str:
    with open_bytes(path) as stream:
        first = stream.readline(MAX_LINE_BYTES + 1)
    return "\r\n" if first.endswith(b"\r\n") else "\n"


def _write_document(path: Path, document: Document, records: list[Record]) -> None:
    from agentforge_cli.core.fileio import write_text_atomic

    if document.envelope is not None:
        data: Any = envelope_values(document.envelope, document.keys, records)
    else:
        data = [record.data for record in records]
    text = dump(data, document.layout, document.keys or ("messages",))
    if document.trailing_newline:
        text += "\n"
    write_text_atomic(path, text)


def open_transcript(path: str | Path, format: str = "auto") -> Transcript:
    """Open a transcript, detecting its format unless one is named.

    Args:
        path: The file.
        format: ``auto``, or a registered format's name (``agentforge``, ``openai``,
            ``anthropic``).

    Raises:
        TranscriptFormatError: No registered format reads the file (a subclass of
            TranscriptError).
        TranscriptError: The file is missing, unreadable or empty.
        ValueError: ``format`` is not one of the names above.
    """
    path = path if isinstance(path, Path) else Path(path)  # keeps a subclass (stdin's copy)
    if format != "auto" and registry.find_format(format) is None:
        raise ValueError(f"unknown transcript format {format!r}; expected auto, "
                         + ", ".join(registry.format_names()))
    content = _read_start(path)
    first = _first_line(content)
    head = first[0] if first is not None else read_head(path, content)
    if head is None:
        raise TranscriptError(path, "", "the transcript is empty")
    reader = _file_reader(path, head)
    if reader is not None:  # a format that reads the whole file itself
        if format not in ("auto", reader.NAME):
            raise TranscriptFormatError(path, "", f"this file holds {reader.TITLE}; read it "
                                        f"with --format {reader.NAME} (or without --format)")
        return Transcript(path=path, format=reader.NAME, container="file")
    if format != "auto" and isinstance(registry.find_format(format), FileFormat):
        raise TranscriptFormatError(path, "", f"not one of the {format} format's files")
    if first is not None and not isinstance(first[1], list) and not envelope_keys(first[1]):
        # a record on the first line: JSONL, as container_of tells from the same value
        if format == "auto":
            format = _owner(first[1]) or _detect_jsonl(path, content)
        return Transcript(path=path, format=format, container="jsonl", content=content)
    container = container_of(head, path)
    if format == "auto":
        if container == "json":
            format = detect_format(path, document_records(path)).NAME
        else:
            format = _detect_jsonl(path, content)
    return Transcript(path=path, format=format, container=container,
                      content=content if container == "jsonl" else None)


def _detect_jsonl(path: Path, content: bytes | None) -> str:
    # closed here: a refusal's traceback would otherwise keep the file open
    with contextlib.closing(iter_jsonl(path, content)) as lines:
        return detect_format(path, itertools.islice(lines, DETECTION_WINDOW)).NAME


def _read_start(path: Path) -> bytes | None:
    """:func:`read_small` after telling a missing file or a folder (:func:`_is_dir`); a
    plain file is read first and only looked at when that fails (one system call less)."""
    if not is_compressed(path):
        try:
            return read_small_plain(path)
        except (OSError, ValueError):
            pass  # told below, as it would have been
    if _is_dir(path):
        raise TranscriptError(path, "", "is a directory, not a transcript file")
    return read_small(path)


def _first_line(content: bytes | None) -> tuple[str, Any] | None:
    """The first line of a short file and its JSON value, in the common case only: the
    line is not blank, the whole file is UTF-8 without a byte order mark, and the line is
    one JSON value as a JSONL line is read on its fast path. Then the line is what
    :func:`read_head` returns, its value what :func:`container_of` and the first record
    of :func:`iter_jsonl` hold, and reading the records from ``content`` meets no
    undecodable line. ``None`` otherwise (read the general way)."""
    if not content or content[:1] == b"\xef":
        return None
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    end = text.find("\n")
    if end < 0:  # one line without a newline: read the general way
        return None
    head = text[:end + 1]
    body = head.rstrip("\r\n")
    try:
        data, stop = scan_json(body, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    return (head, data) if stop == len(body) and data is not None else None


def _owner(data: Any) -> str | None:
    """The format claiming ``data`` as its own first (detection's answer when it is the
    first record), or ``None``."""
    for fmt in registry.FORMATS:
        if fmt.claims(data) == Claim.OWN:
            return fmt.NAME
    return None


_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})
_MISSING_WINDOWS = frozenset({21, 123, 1921})  # not ready, invalid name, unresolvable
"""What :meth:`Path.exists` reads as a missing file (it raises any other error)."""


def _is_dir(path: Path) -> bool:
    """``path.is_dir()`` after ``path.exists()``, with one ``stat``.

    Raises:
        TranscriptError: There is no such file.
    """
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if exc.errno in _MISSING or getattr(exc, "winerror", None) in _MISSING_WINDOWS:
            raise TranscriptError(path, "", "no such file") from None
        raise
    except ValueError:  # what exists() reads as missing: a path it cannot represent
        raise TranscriptError(path, "", "no such file") from None
    return stat.S_ISDIR(mode)


def _file_reader(path: Path, head: str) -> TranscriptFormat | None:
    """The registered format that reads ``path`` whole itself (it has ``opens(path, head)``
    and ``file_records(path)``: VCR cassettes), or ``None``."""
    for fmt in _file_readers():
        if fmt.opens(path, head):
            return fmt
    return None


def _file_readers() -> tuple[FileFormat, ...]:
    return _readers_among(registry.FORMATS)


@functools.lru_cache(maxsize=1)
def _readers_among(formats: tuple[TranscriptFormat, ...]) -> tuple[FileFormat, ...]:
    """The formats that read their files themselves, found again only when the registry
    changes (asking each module for a missing attribute costs more than the whole
    check)."""
    return tuple(fmt for fmt in formats if isinstance(fmt, FileFormat))
