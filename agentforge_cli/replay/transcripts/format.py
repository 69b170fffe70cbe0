"""What a transcript format provides: the :class:`TranscriptFormat` protocol (and
:class:`FileFormat`, :class:`ApiFormat` for formats that read files or HTTP calls
themselves), and :func:`pick_format`, which format claims given records.

A format is usually a module (``agentforge``, ``openai``, ``anthropic``) whose top-level
names satisfy the protocol; any object with the same attributes works too. The file side
— JSONL streamed line by line, or one JSON document of messages — is common to every
format: a format only sees :class:`~agentforge_cli.replay.transcripts.files.records.Record`
values, one line or one message each. Formats take part in replay through
:data:`~agentforge_cli.replay.transcripts.registry.FORMATS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agentforge_cli.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.model import Event, TranscriptError
from agentforge_cli.replay.transcripts.reading.calls import CallBook, Updates
from agentforge_cli.replay.transcripts.reading.exchanges import Exchange

__all__ = ["ApiFormat", "Claim", "FileFormat", "TranscriptFormat", "looks_like",
           "no_format_reads", "pick_format"]


class Claim(IntEnum):
    """How a format answers "is this record yours?" during auto-detection."""

    NO = 0
    """Not a record this format reads."""
    SHARED = 1
    """A record this format reads, but so might another one (a plain text chat message):
    the file is read in this format only when no record says more."""
    OWN = 2
    """A record only this format writes: the file is in this format."""


@runtime_checkable
class TranscriptFormat(Protocol):
    """A transcript format: its name, how it recognises its records, how it reads them
    into events and how it writes results back.

    ``record_events`` and ``rewrite`` raise
    :class:`~agentforge_cli.errors.TranscriptError` (with the record's ``where``) for a
    record they cannot read — never an empty event for a record whose content is not
    where the format reads it.
    """

    NAME: str
    """The ``--format`` name: lower case, words joined by hyphens (``openai-responses``)."""
    TITLE: str
    """What a file in this format holds, for help text (``OpenAI chat messages``)."""

    def book(self, path: Path) -> CallBook:
        """A new book for reading one file: the reader's state for that file, and only
        that file (call numbering and pairing; a format keeping more, such as pairing by
        name, returns its own :class:`~agentforge_cli.replay.transcripts.reading.calls.CallBook`
        subclass). A module whose reading keeps nothing else says ``book = CallBook``."""
        ...

    def claims(self, data: Any) -> Claim:
        """Whether a parsed record (any JSON value) is one of this format's.

        Claim positively: only a record that carries the fields this format reads (a
        record whose content sits elsewhere, such as under a ``"message"`` wrapper, is
        :attr:`Claim.NO`), so that a file in an unknown format is refused at its first
        record instead of being read as empty turns. Auto-detection asks each registered
        format about the file's first records, in registry order; the first
        :attr:`Claim.OWN` decides, and a record no format claims stops it. It must not
        raise.
        """
        ...

    def record_events(self, record: Record, book: CallBook) -> list[Event]:
        """The events of one record, in order (none for a blank or skipped record).

        Calls and results are registered with ``book``, which numbers the calls and pairs
        each result with the call it answers.
        """
        ...

    def rewrite(self, records: Iterable[Record], updates: Updates, answered: set[int],
                book: CallBook) -> Iterator[Record]:
        """Yield ``records`` with today's results written in.

        ``updates`` maps a call index to ``(text, is_error)``. A recorded result of an
        updated call is changed in place; an updated call whose index is not in
        ``answered`` gets a new result record where the format puts one. Every other
        record is yielded unchanged (an unchanged JSONL record is written back byte for
        byte); a changed or new record is a new :class:`Record` without ``text``.
        """
        ...


@runtime_checkable
class ApiFormat(TranscriptFormat, Protocol):
    """A transcript format that also reads its API's HTTP calls, as cassettes record
    them (:mod:`~agentforge_cli.replay.transcripts.reading.exchanges`)."""

    API_PATHS: tuple[str, ...]
    """Endings of its API's request paths (``/chat/completions``): a request to one of
    them is read by this format only, and must read."""

    def http_exchange(self, request: Any, response: Any, uri: str,
                      where: str) -> Exchange | None:
        """The call a request body and its response body hold (each decoded: a JSON value,
        :class:`~agentforge_cli.replay.transcripts.reading.exchanges.ServerEvents` or
        :class:`~agentforge_cli.replay.transcripts.reading.exchanges.Unreadable`), or ``None``
        when the request is not one of this API's. Places start at ``where``. Never
        raises for a body it does not read."""
        ...


@runtime_checkable
class FileFormat(TranscriptFormat, Protocol):
    """A transcript format that reads its files itself, not as JSONL or one JSON document
    (VCR cassettes: YAML, often gzipped). It is asked about a file before any other."""

    def opens(self, path: Path, head: str) -> bool:
        """Whether the file is one of its own, from its name and ``head`` (its first
        characters, decoded), without reading the rest. It must be sure."""
        ...

    def file_records(self, path: Path) -> Iterator[Record]:
        """The file's records, streamed (memory does not grow with the file)."""
        ...


_RESPONSES_ONLY = (
    ("chat.completion", "OpenAI chat completion responses (ChatCompletion.model_dump())"),
    ("response", "OpenAI Responses responses (Response.model_dump())"),
)


def looks_like(data: Any) -> str:
    """What a record no format reads looks like, when it is a family replay knows of but
    cannot replay (``""`` otherwise): said after the refusal."""
    if not isinstance(data, dict):
        return ""
    found = next((name for kind, name in _RESPONSES_ONLY if data.get("object") == kind), None)
    if found is None and isinstance(data.get("candidates"), list):
        found = "Gemini generateContent responses"
    if found is None:
        return ""
    return (f"; this looks like {found}: the model's replies only, without the messages "
            "it was sent or the tools' results. Replay needs the conversation: save the "
            "request's messages, or record the HTTP calls as a VCR cassette")


def no_format_reads(path: Path, where: str, found: str,
                   formats: Sequence[TranscriptFormat]) -> TranscriptFormatError:
    """The error for records no format reads: where, what was found there, and every
    format tried."""
    tried = ", ".join(fmt.TITLE for fmt in formats)
    return TranscriptFormatError(path, where, f"not a known transcript format: {found}; "
                                 f"formats tried: {tried}")


def pick_format(path: Path, records: Iterable[Record],
                formats: Sequence[TranscriptFormat]) -> TranscriptFormat:
    """The format that claims a record as its own first; failing that (every record is
    one several formats read, such as plain text chat), the first format to share one.

    A record is claimed only when it has the fields a format reads
    (:class:`~agentforge_cli.replay.transcripts.format.Claim`), so records in a format
    nobody reads are refused at the first one rather than read as empty turns.

    Raises:
        TranscriptFormatError: A record no format claims.
        TranscriptError: No record at all.
    """
    shared: TranscriptFormat | None = None
    for record in records:
        if record.blank:
            continue
        data = record.data
        first_sharing = None
        for fmt in formats:
            claim = fmt.claims(data)
            if claim == Claim.OWN:
                return fmt
            if claim == Claim.SHARED and first_sharing is None:
                first_sharing = fmt
        if first_sharing is None:
            raise no_format_reads(path, record.where,
                                 f"no format reads this record ({record_shape(data)})"
                                 + looks_like(data), formats)
        shared = shared or first_sharing
    if shared is not None:
        return shared
    raise TranscriptError(path, "", "the transcript holds no messages")
