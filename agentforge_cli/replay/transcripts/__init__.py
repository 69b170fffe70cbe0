"""Recorded function-call conversations: read them, detect their format, write results back.

Three formats (SPEC 6), one module each, all read into the event model of
:mod:`~agentforge_cli.replay.transcripts.events`:

* ``agentforge`` — agentforge JSONL, one event a line (:mod:`.agentforge`);
* ``openai`` — OpenAI chat messages (:mod:`.openai`);
* ``anthropic`` — Anthropic messages (:mod:`.anthropic`).

The chat formats come as a JSON array, as ``{"messages": [...]}`` or as JSONL of messages.
JSONL is streamed: events are parsed and yielded line by line, so a replay may have run
the calls before a malformed line when it reaches it. A JSON document is parsed and
checked whole before its first event is yielded::

    transcript = open_transcript("crm.jsonl")          # format="auto"
    for event in transcript.events():
        ...
    transcript.write_results({0: ("customer:长路,limit:5", False)})   # atomically

Standard library only.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from agentforge_cli.replay.transcripts import agentforge, anthropic, openai
from agentforge_cli.replay.transcripts._records import (
    MAX_LINE_BYTES,
    CallBook,
    Document,
    Record,
    dumps,
    iter_jsonl,
    load_document,
    read_head,
)
from agentforge_cli.replay.transcripts.events import (
    AssistantMessage,
    Event,
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
)

__all__ = [
    "FORMATS",
    "AssistantMessage",
    "Event",
    "ToolCall",
    "ToolResult",
    "Transcript",
    "TranscriptError",
    "UserMessage",
    "open_transcript",
]

FORMATS: dict[str, ModuleType] = {
    agentforge.NAME: agentforge,
    openai.NAME: openai,
    anthropic.NAME: anthropic,
}
"""Format name -> the module that reads and rewrites it."""

DETECTION_WINDOW = 1000
"""How many leading JSONL records auto-detection may look at before it settles."""


@dataclass(frozen=True, slots=True)
class Transcript:
    """One transcript file, its format known. Reading it never changes it."""

    path: Path
    """The file."""
    format: str
    """``agentforge``, ``openai`` or ``anthropic``."""
    container: str
    """``jsonl`` (streamed) or ``json`` (one document)."""

    @property
    def _module(self) -> Any:
        return FORMATS[self.format]

    def _records(self) -> Iterator[Record]:
        if self.container == "jsonl":
            return iter_jsonl(self.path)
        return iter(load_document(self.path).records)

    def events(self) -> Iterator[Event]:
        """Yield the conversation's events in order.

        Raises:
            TranscriptError: At the first malformed line or message (for a JSON document,
                before any event is yielded).
        """
        if self.container == "json":
            yield from list(self._parse(self._records()))
        else:
            yield from self._parse(self._records())

    def _parse(self, records: Iterator[Record]) -> Iterator[Event]:
        book = CallBook(self.path)
        record_events = self._module.record_events
        for record in records:
            yield from record_events(record, book)

    def count_records(self) -> int:
        """Lines (JSONL) or messages (JSON) in the file, for a progress bar."""
        if self.container == "json":
            return len(load_document(self.path).records)
        with self.path.open("rb") as stream:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: stream.read(1 << 20), b""))

    def write_results(self, updates: Mapping[int, Any]) -> int:
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
        from agentforge_cli.core.fileio import atomic_writer

        answered_calls = self._answered()  # reads (and checks) the whole file first
        book = CallBook(self.path)
        rewrite = self._module.rewrite
        if self.container == "jsonl":
            newline = _newline_of(self.path)
            with atomic_writer(self.path) as stream:
                ended = True  # the last line written ended with a newline
                for record in rewrite(iter_jsonl(self.path), updates, answered_calls, book):
                    text = record.text if record.text is not None else dumps(record.data)
                    if not ended:
                        stream.write(newline)
                    stream.write(text if record.text is not None else text + newline)
                    ended = text.endswith("\n") or record.text is None
        else:
            document = load_document(self.path)
            messages = [r.data for r in rewrite(iter(document.records), updates,
                                                answered_calls, book)]
            _write_document(self.path, document, messages)
        return len([i for i in updates if i < book.count])

    def _answered(self) -> set[int]:
        book = CallBook(self.path, track_answered=True)
        record_events = self._module.record_events
        for record in self._records():
            record_events(record, book)
        return book.answered or set()


def _newline_of(path: Path) -> str:
    with path.open("rb") as stream:
        first = stream.readline(MAX_LINE_BYTES + 1)
    return "\r\n" if first.endswith(b"\r\n") else "\n"


def _write_document(path: Path, document: Document, messages: list[Any]) -> None:
    from agentforge_cli.core.fileio import write_text_atomic

    if document.envelope is not None:
        data: Any = dict(document.envelope)
        data["messages"] = messages
    else:
        data = messages
    text = dumps(data, indent=document.indent)
    if document.trailing_newline:
        text += "\n"
    write_text_atomic(path, text)


def open_transcript(path: str | Path, format: str = "auto") -> Transcript:
    """Open a transcript, detecting its format unless one is named.

    Args:
        path: The file.
        format: ``auto``, ``agentforge``, ``openai`` or ``anthropic``.

    Raises:
        TranscriptError: The file is missing, unreadable, empty, or its format cannot be
            told.
        ValueError: ``format`` is not one of the names above.
    """
    path = Path(path)
    if format != "auto" and format not in FORMATS:
        raise ValueError(f"unknown transcript format {format!r}; expected auto, "
                         + ", ".join(FORMATS))
    if not path.exists():
        raise TranscriptError(path, "", "no such file")
    if path.is_dir():
        raise TranscriptError(path, "", "is a directory, not a transcript file")
    head = read_head(path)
    if head is None:
        raise TranscriptError(path, "", "the transcript is empty")
    container = _container(head)
    if format != "auto":
        return Transcript(path, format, container)
    if container == "json":
        records: Any = load_document(path).records
    else:
        records = itertools.islice(iter_jsonl(path), DETECTION_WINDOW)
    return Transcript(path, _detect(path, records), container)


def _container(head: str) -> str:
    """``json`` for a document (an array, a multi-line object, an envelope), else ``jsonl``."""
    stripped = head.strip()
    if stripped.startswith("["):
        return "json"
    import json

    try:
        first = json.loads(stripped)
    except ValueError:
        return "json"  # an object spread over several lines
    if isinstance(first, dict) and isinstance(first.get("messages"), list):
        return "json"
    return "jsonl"


def _detect(path: Path, records: Any) -> str:
    chat = False
    for record in records:
        if record.blank:
            continue
        data = record.data
        if agentforge.claims(data):
            return agentforge.NAME
        if anthropic.claims(data):
            return anthropic.NAME
        if openai.claims(data):
            return openai.NAME
        if isinstance(data, dict) and isinstance(data.get("role"), str):
            chat = True
            continue
        raise TranscriptError(path, record.where, "cannot tell the transcript's format: "
                              "expected an agentforge event, an OpenAI or an Anthropic "
                              "message (or name one with --format)")
    if chat:
        return openai.NAME  # text only: both chat formats read it the same way
    raise TranscriptError(path, "", "the transcript holds no messages")
