"""Where a transcript's records come from: one :class:`RecordSource` per container.

Every format reads :class:`~agentforge_cli.replay.transcripts.files.records.Record` values;
how a file becomes records, how many it holds, and how rewritten records go back into
it, atomically, is the container's job:

* :class:`JsonlSource`: one record a line, streamed; written back line by line, unchanged
  lines byte for byte, a changed line edited where its value changed
  (:func:`~agentforge_cli.replay.transcripts.files.json_edits.edit_json`);
* :class:`DocumentSource`: one JSON document's messages, streamed; read through once
  before any event (nothing runs from a document that does not read); written back by
  editing its text where its value changed;
* :class:`FileSource`: a file its format reads itself (a
  :class:`~agentforge_cli.replay.transcripts.format.FileReading`: cassettes, traces, logs);
  written back by the format, if at all.

Standard library only.
"""

from __future__ import annotations

from codecs import BOM_UTF8
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agentforge_cli.core.observe.fileio import FileStamp
from agentforge_cli.replay.transcripts.files.documents import iter_document
from agentforge_cli.replay.transcripts.files.envelopes import envelope_values
from agentforge_cli.replay.transcripts.files.json_edits import (
    TextStyle,
    edit_json,
    escapes_non_ascii,
    fresh_json,
    text_style,
)
from agentforge_cli.replay.transcripts.files.jsonl import iter_jsonl
from agentforge_cli.replay.transcripts.files.limits import (
    MAX_LINE_BYTES,
    is_compressed,
    open_bytes,
    read_head,
)
from agentforge_cli.replay.transcripts.files.records import Document, Record
from agentforge_cli.replay.transcripts.files.whole_documents import load_document
from agentforge_cli.replay.transcripts.format import FileReading
from agentforge_cli.replay.transcripts.model import TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE

__all__ = ["DocumentSource", "FileSource", "JsonlSource", "RecordSource", "Rewrite"]

Rewrite = Callable[[Iterable[Record]], Iterator[Record]]
"""The format's rewrite of a file's records, today's results written in."""


@runtime_checkable
class RecordSource(Protocol):
    """A container of records: read them, count them, write rewritten ones back."""

    @property
    def checked_first(self) -> bool:
        """The records are read through once, keeping nothing, before the first event is
        yielded (so that a file that does not read runs nothing)."""
        ...

    def records(self) -> Iterator[Record]:
        """The records, in order, streamed."""
        ...

    def count(self) -> int:
        """How many records there are (lines, messages, interactions), for a progress
        bar."""
        ...

    def write(self, rewrite: Rewrite, unchanged: FileStamp | None = None) -> None:
        """Write ``rewrite(records)`` back into the file, atomically; refused when the
        file's stamp is no longer ``unchanged`` (see
        :func:`~agentforge_cli.core.observe.fileio.atomic_writer`).

        Raises:
            TranscriptError: The file cannot be rewritten (compressed, or its format
                refuses).
        """
        ...


def _refuse_compressed(path: Path) -> None:
    if is_compressed(path):
        raise TranscriptError(path, WHOLE_FILE, "a compressed transcript cannot be updated "
                              "(decompress it first)")


@dataclass(frozen=True, slots=True)
class JsonlSource:
    """A JSONL file: a record a line (``content``: its bytes, when read already)."""

    path: Path
    content: bytes | None = field(default=None, repr=False)
    checked_first: bool = False

    def records(self) -> Iterator[Record]:
        return iter_jsonl(self.path, self.content)

    def count(self) -> int:
        with open_bytes(self.path) as stream:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: stream.read(1 << 20), b""))

    def write(self, rewrite: Rewrite, unchanged: FileStamp | None = None) -> None:
        from agentforge_cli.core.observe.fileio import atomic_writer

        _refuse_compressed(self.path)
        with open_bytes(self.path) as stream:
            first = stream.readline(MAX_LINE_BYTES + 1)
        newline = "\r\n" if first.endswith(b"\r\n") else "\n"
        style = text_style(read_head(self.path) or "")  # ", " / ": " and escapes kept
        originals: dict[int, Record] = {}  # the lines read and not yet written back

        def remembered(records: Iterator[Record]) -> Iterator[Record]:
            for record in records:
                originals[record.position] = record
                yield record

        with atomic_writer(self.path, unchanged=unchanged) as out:
            if first.startswith(BOM_UTF8):
                out.write("\ufeff")
            ended = True  # the last line written ended with a newline
            for record in rewrite(remembered(iter_jsonl(self.path))):
                text = record.text
                if text is None:
                    text = _line_text(record, originals.get(record.position), style) + newline
                if record.where:  # one of the file's lines: those before it are written
                    while originals and next(iter(originals)) <= record.position:
                        del originals[next(iter(originals))]
                if not ended:
                    out.write(newline)
                out.write(text)
                ended = text.endswith("\n")


def _line_text(record: Record, original: Record | None, style: TextStyle) -> str:
    """A changed or new JSONL line, without its end: the original line edited where its
    value changed, or the record written anew in the file's style."""
    if original is None or not record.where or original.text is None:
        return fresh_json(record.data, style)
    body = original.text.rstrip("\r\n")
    shown = escapes_non_ascii(body)
    if shown is not None and shown != style.ascii:
        style = TextStyle(ascii=shown, spaced=style.spaced, indent=style.indent)
    return edit_json(body, record.data, original.data, style=style)


@dataclass(frozen=True, slots=True)
class DocumentSource:
    """A JSON document of messages (an array, or an object holding them)."""

    path: Path
    checked_first: bool = True

    def records(self) -> Iterator[Record]:
        return iter_document(self.path)

    def count(self) -> int:
        return sum(1 for _ in iter_document(self.path))

    def write(self, rewrite: Rewrite, unchanged: FileStamp | None = None) -> None:
        _refuse_compressed(self.path)
        document = load_document(self.path)
        _write_document(self.path, document, list(rewrite(iter(document.records))),
                        unchanged)


@dataclass(frozen=True, slots=True)
class FileSource:
    """A file its format reads itself."""

    path: Path
    reading: FileReading
    checked_first: bool = False

    def records(self) -> Iterator[Record]:
        return self.reading.records(self.path)

    def count(self) -> int:
        return sum(1 for _ in self.records())

    def write(self, rewrite: Rewrite, unchanged: FileStamp | None = None) -> None:
        for _ in rewrite(self.records()):  # the format refuses, or writes the file itself
            pass


def _write_document(path: Path, document: Document, records: list[Record],
                    unchanged: FileStamp | None) -> None:
    from agentforge_cli.core.observe.fileio import write_text_atomic

    data: Any
    if document.envelope is not None:
        data = envelope_values(document.envelope, document.keys, records)
    else:
        data = [record.data for record in records]
    text = edit_json(document.text, data, document.value)
    write_text_atomic(path, "\ufeff" + text if document.bom else text, unchanged=unchanged)
