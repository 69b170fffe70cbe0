"""A transcript file opened in a known format: its events, and results written back.

Reading never changes the file; :meth:`Transcript.write_results` rewrites it atomically.
"""

from __future__ import annotations

import contextlib
import errno
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentforge_cli.core.observe.fileio import FileStamp, file_stamp
from agentforge_cli.replay.transcripts import registry
from agentforge_cli.replay.transcripts.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.families import refusal, unread_family
from agentforge_cli.replay.transcripts.files.detection import (
    container_of,
    detect_format,
    document_records,
)
from agentforge_cli.replay.transcripts.files.documents import iter_document
from agentforge_cli.replay.transcripts.files.envelopes import envelope_keys
from agentforge_cli.replay.transcripts.files.json_text import scan_json
from agentforge_cli.replay.transcripts.files.jsonl import iter_jsonl
from agentforge_cli.replay.transcripts.files.limits import (
    is_compressed,
    read_head,
    read_small,
    read_small_plain,
)
from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.files.sources import (
    DocumentSource,
    FileSource,
    JsonlSource,
    RecordSource,
)
from agentforge_cli.replay.transcripts.format import Claim, FileReading, TranscriptFormat
from agentforge_cli.replay.transcripts.formats import conversations
from agentforge_cli.replay.transcripts.model import Event, SystemPrompt, TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE
from agentforge_cli.replay.transcripts.reading.calls import CallBook, Updates
from agentforge_cli.replay.transcripts.writing.migration import Migration

__all__ = ["ReadProgress", "Transcript", "Written", "open_transcript"]


@dataclass(slots=True)
class ReadProgress:
    """How far a transcript's events have been read: records (lines, messages,
    interactions) so far, out of :meth:`Transcript.count_records`."""

    records: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class Written:
    """What :meth:`Transcript.write` wrote."""

    results: int = 0
    """Calls whose result was written (replaced or added)."""
    unmarked: frozenset[int] = frozenset()
    """Calls given an error result where the format has no error flag: the file now reads
    it as a success."""


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
    opened: FileStamp | None = field(default=None, repr=False, compare=False)
    """The file's stamp when it was opened: :meth:`write_results` refuses to replace a
    file that changed since (a program still writing to it)."""
    within: str | None = None
    """For a file of many conversations opened with a format named (``--format tau2`` on
    a tau2-bench results file): that format, every conversation's; ``None``: each
    conversation's format is detected."""

    @property
    def _format(self) -> TranscriptFormat[Any]:
        found = registry.find_format(self.format)
        if found is None:
            raise ValueError(f"transcript format {self.format!r} is not registered")
        return found

    @property
    def _formats(self) -> tuple[TranscriptFormat[Any], ...]:
        """The formats a reading of the file is given: the registered ones, or only its
        own and :attr:`within`'s."""
        formats = registry.transcript_formats()
        if self.within is None:
            return formats
        return tuple(fmt for fmt in formats if fmt.name in (self.format, self.within))

    @property
    def source(self) -> RecordSource:
        """Where the records come from: the container's record source."""
        if self.container == "jsonl":
            return JsonlSource(self.path, self.content)
        if self.container == "json":
            return DocumentSource(self.path)
        files = self._format.files  # a format that reads its files itself (cassettes)
        if files is None:
            raise ValueError(f"transcript format {self.format!r} reads no files itself")
        return FileSource(self.path, files)

    def events(self) -> Iterator[Event]:
        """Yield the conversation's events in order, reading the file as they are asked
        for (a JSONL line or a JSON document's message at a time).

        Raises:
            TranscriptError: At the first malformed line or message (for a JSON document,
                before any event is yielded: it is read through once first, keeping
                nothing, so that nothing runs from a document that does not read).
        """
        source = self.source
        if source.checked_first:
            return self._checked_events(source)
        return self._parse(source.records(), self.progress)  # one generator, not two

    def _checked_events(self, source: RecordSource) -> Iterator[Event]:
        for _ in self._parse(source.records(), ReadProgress()):
            pass
        if not isinstance(source, DocumentSource):
            yield from self._parse(source.records(), self.progress)
            return
        prompts: list[SystemPrompt] = []  # the document's own, beside its messages
        yield from self._parse(iter_document(self.path, prompts), self.progress, prompts)

    def _parse(self, records: Iterator[Record], progress: ReadProgress,
               before: list[SystemPrompt] | None = None) -> Iterator[Event]:
        """The events of ``records``; those ``before`` holds when a record comes (what
        the container found ahead of it) come first."""
        fmt = self._format
        book = fmt.start(self.path, self._formats)
        record_events = fmt.record_events
        where, data = WHOLE_FILE, None
        try:
            for record in records:
                if before:
                    yield from before
                    before.clear()
                where, data = record.where, record.data
                if data is not None or not record.text:
                    progress.records += 1
                else:  # a run of blank lines: as many as count_records counts
                    progress.records += max(record.text.count("\n"), 1)
                yield from record_events(record, book)
                where, data = WHOLE_FILE, None  # reading the next one
        except RecursionError:  # a reader without a nesting limit of its own
            raise TranscriptError(self.path, where, "nested too deeply to read") from None
        except TranscriptError:  # a record of a family replay does not read: named as such
            family = unread_family(data)  # (None between records: a line that is no JSON)
            if family is None:
                raise
            raise TranscriptFormatError(self.path, where, refusal(family)) from None
        yield from book.finish()

    def count_records(self) -> int:
        """Lines (JSONL), messages (JSON) or the format's records in the file, for a
        progress bar."""
        return self.source.count()

    def write_results(self, updates: Updates) -> int:
        """Record new results, atomically, and return how many calls were updated
        (:meth:`write` without a migration)."""
        return self.write(updates).results

    def write(self, updates: Updates, migration: Migration | None = None) -> Written:
        """Record new results and migrated calls, atomically, editing the file only where
        it changes.

        Args:
            updates: Call index (``ToolCall.index``) -> ``(text, is_error)``. A call that
                has a recorded result gets it rewritten in place; one that has none gets a
                result added. Everything else in the file is kept.
            migration: Renamed tools and arguments, written into every recorded call.

        Raises:
            TranscriptError: When the file no longer reads as it did, or cannot be
                rewritten (compressed, or a format that does not rewrite its files or,
                with a migration, its calls).
            OSError: The file cannot be written, or it changed since it was opened
                (``errno.EBUSY``).
        """
        if not updates and not migration:
            return Written()
        fmt = self._format
        rewrite = fmt.rewriter(self.path)  # a read-only format refuses here
        migrate = fmt.migrator(self.path) if migration else None
        source = self.source
        answered = self._answered(source)  # reads (and checks) the whole file first
        formats = self._formats
        book = fmt.start(self.path, formats)

        def rewritten(records: Iterable[Record]) -> Iterator[Record]:
            if migrate is not None and migration is not None:
                records = migrate(records, migration, fmt.start(self.path, formats))
            return rewrite(records, updates, answered, book)

        source.write(rewritten, self.opened)
        return Written(results=len([i for i in updates if i < book.count]),
                       unmarked=frozenset(book.unmarked))

    def check_migration(self) -> None:
        """Refuse a migration before anything runs when the format cannot write it back.

        Raises:
            TranscriptError: The format does not rewrite its recorded calls.
        """
        self._format.migrator(self.path)

    def _answered(self, source: RecordSource) -> set[int]:
        book: CallBook = self._format.start(self.path, self._formats)
        answered: set[int] = set()
        book.answered = answered
        record_events = self._format.record_events
        for record in source.records():
            record_events(record, book)
        book.finish()
        return answered


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
    opened = file_stamp(path) if path.is_file() else None
    content = _read_start(path)
    first = _first_line(content)
    try:
        head = first[0] if first is not None else read_head(path, content)
    except TranscriptError:  # not text: only a format reading binary files may take it
        reader = _file_reader(path, "")
        if reader is None:
            raise
        head = ""
    if head is None:
        raise TranscriptError(path, WHOLE_FILE, "the transcript is empty")
    reader = _file_reader(path, head)
    if reader is not None:  # a format that reads the whole file itself
        if format not in ("auto", reader.name):
            raise _not_the_named_format(path, reader, format)
        return Transcript(path=path, format=reader.name, container="file", opened=opened)
    named = registry.find_format(format) if format != "auto" else None
    if named is not None and named.files is not None:
        raise TranscriptFormatError(path, WHOLE_FILE, f"not one of the {format} format's files")
    if first is not None and not isinstance(first[1], list) and not envelope_keys(first[1]):
        # a record on the first line: JSONL, as container_of tells from the same value
        if format == "auto":
            format = _owner(first[1]) or _detect_jsonl(path, content)
        return Transcript(path=path, format=format, container="jsonl", content=content,
                          opened=opened)
    container = container_of(head, path)
    if format == "auto":
        if container == "json":
            with contextlib.closing(document_records(path)) as messages:
                format = detect_format(path, messages).name
        else:
            format = _detect_jsonl(path, content)
    elif named is not None and _holds_conversations(path, container, content, named):
        # read as auto-detection reads it, each conversation in the format named
        return Transcript(path=path, format=conversations.NAME, container=container,
                          content=content if container == "jsonl" else None,
                          opened=opened, within=format)
    return Transcript(path=path, format=format, container=container,
                      content=content if container == "jsonl" else None, opened=opened)


def _holds_conversations(path: Path, container: str, content: bytes | None,
                         named: TranscriptFormat[Any]) -> bool:
    """Whether the file's first record is a whole conversation (the many-conversations
    format's own) that ``named`` does not read as one of its records: a file of
    conversations, each of which ``named`` is to read."""
    if named.name == conversations.NAME:
        return False
    formats = registry.transcript_formats()
    records = iter_document(path) if container == "json" else iter_jsonl(path, content)
    try:
        with contextlib.closing(records):
            first = next((record for record in records if not record.blank), None)
    except TranscriptError:  # the reading proper says what is wrong, as it would have
        return False
    return (first is not None and conversations.FORMAT.claim(first.data, formats) == Claim.OWN
            and named.claim(first.data, formats) == Claim.NO)


def _not_the_named_format(path: Path, reader: TranscriptFormat[Any],
                          format: str) -> TranscriptFormatError:
    """The refusal of a file ``reader`` takes for its own (a YAML file: a cassette) when
    another format is named: what the file holds, said as auto-detection says it. A file
    that is no ``reader`` file either (a YAML file of something else) is refused with
    ``reader``'s own reason, and the format named is said not to read it."""
    files = reader.files
    assert files is not None  # a reader of whole files
    records = files.records(path)
    try:
        next(records, None)
    except TranscriptError as exc:
        named = registry.find_format(format)
        kind = "" if named is None or named.files is not None else (
            f" ({named.title} are JSON or JSONL)")
        return TranscriptFormatError(path, exc.where, f"{exc.reason}; nor does --format "
                                     f"{format} read it{kind}")
    finally:
        close = getattr(records, "close", None)
        if close is not None:
            close()
    return TranscriptFormatError(path, WHOLE_FILE, f"this file holds {reader.title}; read "
                                 f"it with --format {reader.name} (or without --format)")


def _detect_jsonl(path: Path, content: bytes | None) -> str:
    # closed here: a refusal's traceback would otherwise keep the file open
    with contextlib.closing(iter_jsonl(path, content)) as lines:
        return detect_format(path, lines).name


def _read_start(path: Path) -> bytes | None:
    """:func:`read_small` after telling a missing file or a folder (:func:`_is_dir`); a
    plain file is read first and only looked at when that fails (one system call less)."""
    if not is_compressed(path):
        try:
            return read_small_plain(path)
        except (OSError, ValueError):
            pass  # told below, as it would have been
    if _is_dir(path):
        raise TranscriptError(path, WHOLE_FILE, "is a directory, not a transcript file")
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
    formats = registry.transcript_formats()
    for fmt in formats:
        if fmt.claim(data, formats) == Claim.OWN:
            return fmt.name
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
            raise TranscriptError(path, WHOLE_FILE, "no such file") from None
        raise
    except ValueError:  # what exists() reads as missing: a path it cannot represent
        raise TranscriptError(path, WHOLE_FILE, "no such file") from None
    return stat.S_ISDIR(mode)


def _file_reader(path: Path, head: str) -> TranscriptFormat[Any] | None:
    """The registered format that reads ``path`` whole itself (its
    :class:`~agentforge_cli.replay.transcripts.format.FileReading` opens it: VCR
    cassettes), or ``None``."""
    for fmt in registry.transcript_formats():
        files: FileReading | None = fmt.files
        if files is not None and files.opens(path, head):
            return fmt
    return None
