"""What a transcript format is: the :class:`TranscriptFormat` value every format module
declares (``FORMAT = TranscriptFormat(...)``), its optional parts (:class:`FileReading`
for formats that read their files themselves, :class:`ApiReading` for formats that read
their API's HTTP calls), and :func:`pick_format`, which format claims given records.

The file side — JSONL streamed line by line, or one JSON document of messages — is common
to every format: a format only sees
:class:`~agentforge_cli.replay.transcripts.files.records.Record` values, one line or one
message each. Formats take part in replay through
:data:`~agentforge_cli.replay.transcripts.registry.TRANSCRIPT_FORMATS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from agentforge_cli.replay.transcripts.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.families import refusal, unread_family
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.model import Event, TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place
from agentforge_cli.replay.transcripts.reading.calls import CallBook, Updates
from agentforge_cli.replay.transcripts.reading.exchanges import Exchange

if TYPE_CHECKING:
    from agentforge_cli.replay.transcripts.writing.migration import Migration

__all__ = ["ApiReading", "Claim", "FileReading", "FormatList", "Migrate", "Rewrite",
           "TranscriptFormat", "looks_like", "no_format_reads", "pick_format"]

S = TypeVar("S", bound=CallBook)


class Claim(IntEnum):
    """How a format answers "is this record yours?" during auto-detection."""

    NO = 0
    """Not a record this format reads."""
    SHARED = 1
    """A record this format reads, but so might another one (a plain text chat message):
    the file is read in this format only when no record says more."""
    OWN = 2
    """A record only this format writes: the file is in this format."""


Rewrite = Callable[[Iterable[Record], Updates, set[int], S], Iterator[Record]]
"""``rewrite(records, updates, answered, state)``: ``records`` with today's results
written in.

``updates`` maps a call index to ``(text, is_error)``. A recorded result of an updated
call is changed in place; an updated call whose index is not in ``answered`` gets a new
result record where the format puts one. Every other record is yielded unchanged (an
unchanged JSONL record is written back byte for byte); a changed or new record is a new
:class:`Record` without ``text``. Each error result written where the format has no
error flag is noted in the state's ``unmarked``."""

Migrate = Callable[[Iterable[Record], "Migration", S], Iterator[Record]]
"""``migrate(records, migration, state)``: ``records`` with each recorded call the
:class:`~agentforge_cli.replay.transcripts.writing.migration.Migration` renames written
anew — its tool's name and its arguments, and the tool's name wherever the format
repeats it beside the call's result — and every other record yielded unchanged. A
changed record keeps its ``where`` and ``position`` (written back by editing what
changed)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class FileReading:
    """How a format reads its files itself, not as JSONL or one JSON document (VCR
    cassettes: YAML, often gzipped). Such a format is asked about a file before any
    record is read."""

    opens: Callable[[Path, str], bool]
    """``opens(path, head)``: whether the file is one of its own, from its name and
    ``head`` (its first characters, decoded), without reading the rest. It must be sure."""
    records: Callable[[Path], Iterator[Record]]
    """``records(path)``: the file's records, streamed (memory does not grow with the
    file)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ApiReading:
    """How a format reads its API's HTTP calls, as cassettes record them
    (:mod:`~agentforge_cli.replay.transcripts.reading.exchanges`)."""

    paths: tuple[str, ...]
    """Endings of its API's request paths (``/chat/completions``): a request to one of
    them is read by this format only, and must read."""
    exchange: Callable[[Any, Any, str, Place], Exchange | None]
    """``exchange(request, response, uri, where)``: the call a request body and its
    response body hold (each decoded: a JSON value,
    :class:`~agentforge_cli.replay.transcripts.reading.exchanges.ServerEvents` or
    :class:`~agentforge_cli.replay.transcripts.reading.exchanges.Unreadable`), or ``None``
    when the request is not one of this API's. Places start at ``where``. Never raises
    for a body it does not read."""


@dataclass(frozen=True, kw_only=True, slots=True, eq=False)
class TranscriptFormat(Generic[S]):
    """A transcript format: its name, how it recognises its records, how it reads them
    into events, and — when it can — how it writes results back.

    ``S`` is the format's reading state: a
    :class:`~agentforge_cli.replay.transcripts.reading.calls.CallBook` (call numbering and
    pairing), or a subclass for a format that keeps more. ``start`` makes one per file
    read and ``record_events`` and ``rewrite`` take that class, so nothing is downcast.

    ``record_events`` and ``rewrite`` raise
    :class:`~agentforge_cli.replay.transcripts.errors.TranscriptError` (with the record's
    ``where``) for a record they cannot read — never an empty event for a record whose
    content is not where the format reads it.
    """

    name: str
    """The ``--format`` name: lower case, words joined by hyphens (``openai-responses``)."""
    title: str
    """What a file in this format holds, for help text (``OpenAI chat messages``)."""
    claims: Callable[[Any], Claim]
    """Whether a parsed record (any JSON value) is one of this format's.

    Claim positively: only a record that carries the fields this format reads (a record
    whose content sits elsewhere, such as under a ``"message"`` wrapper, is
    :attr:`Claim.NO`), so that a file in an unknown format is refused at its first record
    instead of being read as empty turns. Auto-detection asks each registered format
    about the file's first records, in registry order; the first :attr:`Claim.OWN`
    decides, and a record no format claims stops it. It must not raise."""
    start: Callable[[Path, FormatList], S]
    """``start(path, formats)``: the state for reading one file, and only that file
    (``CallBook.start``, or a subclass's). ``formats`` are the registered formats, for a
    format that reads records in the others' formats (cassettes, many conversations)."""
    record_events: Callable[[Record, S], list[Event]]
    """The events of one record, in order (none for a blank or skipped record). Calls and
    results are registered with the state, which numbers the calls and pairs each result
    with the call it answers."""
    rewrite: Rewrite[S] | None = None
    """Writes today's results into the records (see :data:`Rewrite`); ``None``: the
    format is read-only and ``--update`` refuses its files (:meth:`rewriter`)."""
    migrate: Migrate[S] | None = None
    """Rewrites recorded calls after a rename (``--rename-tool``, ``--rename-arg``,
    ``--drop-arg``; see :data:`Migrate`); ``None``: the format's calls cannot be migrated,
    and ``--update`` with a migration refuses its files before any call runs
    (:meth:`migrator`). Most formats make it with
    :func:`~agentforge_cli.replay.transcripts.writing.recorded_calls.call_migration`."""
    not_updated: str = ""
    """For a read-only format, what ``--update``'s refusal says after "--update " (``does
    not write into a trace; replay it without --update``); empty: said from the title."""
    files: FileReading | None = None
    """How it reads its files itself, when they are not JSONL or one JSON document."""
    api: ApiReading | None = None
    """How it reads its API's HTTP calls in cassettes, when it is a model API's format."""
    claims_among: Callable[[Any, FormatList], Claim] | None = None
    """For a format whose records hold the others' records (a whole conversation): its
    claim given the registered formats; used instead of :attr:`claims` by detection."""
    before: tuple[str, ...] = ()
    """The formats it must be asked before (names): it claims a record they claim too."""
    names: tuple[str, ...] = ("*.json", "*.jsonl")
    """The file names a folder search collects for it: shell patterns, matched without
    case against a name without its ``.gz`` ending. JSON and JSONL by default; a format
    that reads its files itself names them (``*.eval``, ``*.log``), and a file so named
    is collected when its :attr:`FileReading.opens` also says it is one."""

    def claim(self, data: Any, formats: FormatList) -> Claim:
        """:attr:`claims_among` when the format has it, else :attr:`claims`."""
        among = self.claims_among
        return self.claims(data) if among is None else among(data, formats)

    def rewriter(self, path: Path) -> Rewrite[S]:
        """:attr:`rewrite`; for a read-only format, the refusal ``--update`` reports.

        Raises:
            TranscriptError: The format does not write its files.
        """
        if self.rewrite is None:
            said = self.not_updated or (f"does not write into {self.title}; replay it "
                                        "without --update")
            raise TranscriptError(path, WHOLE_FILE, f"--update {said}")
        return self.rewrite

    def migrator(self, path: Path) -> Migrate[S]:
        """:attr:`migrate`; for a format that cannot migrate its calls (or write its
        files at all), the refusal ``--update`` reports.

        Raises:
            TranscriptError: The format does not rewrite its recorded calls.
        """
        self.rewriter(path)  # a read-only format says so in its own words
        if self.migrate is None:
            raise TranscriptError(path, WHOLE_FILE, "--update cannot rename or drop what "
                                  f"{self.title} record of a call; replay it without "
                                  "--rename-tool, --rename-arg and --drop-arg")
        return self.migrate


FormatList = Sequence[TranscriptFormat[Any]]
"""The registered formats, in registry order."""


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


def no_format_reads(path: Path, where: Place, found: str,
                    formats: Iterable[TranscriptFormat[Any]]) -> TranscriptFormatError:
    """The error for records no format reads: where, what was found there, and every
    format tried."""
    tried = ", ".join(fmt.title for fmt in formats)
    return TranscriptFormatError(path, where, f"not a known transcript format: {found}; "
                                 f"formats tried: {tried}")


def pick_format(path: Path, records: Iterable[Record], formats: FormatList,
                among: FormatList | None = None) -> TranscriptFormat[Any]:
    """The format of ``formats`` that claims a record as its own first; failing that
    (every record is one several formats read, such as plain text chat), the first format
    to share one. ``among`` is the whole registry (for a format made of others; default:
    ``formats``).

    A record is claimed only when it has the fields a format reads (:class:`Claim`), so
    records in a format nobody reads are refused at the first one rather than read as
    empty turns.

    Raises:
        TranscriptFormatError: A record no format claims.
        TranscriptError: No record at all.
    """
    registered = formats if among is None else among
    shared: TranscriptFormat[Any] | None = None
    for record in records:
        if record.blank:
            continue
        data = record.data
        first_sharing = None
        for fmt in formats:
            claim = fmt.claim(data, registered)
            if claim == Claim.OWN:
                return fmt
            if claim == Claim.SHARED and first_sharing is None:
                first_sharing = fmt
        if first_sharing is None:
            family = unread_family(data)
            if family is not None:
                raise TranscriptFormatError(path, record.where, refusal(family))
            raise no_format_reads(path, record.where,
                                  f"no format reads this record ({record_shape(data)})"
                                  + looks_like(data), formats)
        shared = shared or first_sharing
    if shared is not None:
        return shared
    raise TranscriptError(path, WHOLE_FILE, "the transcript holds no messages")
