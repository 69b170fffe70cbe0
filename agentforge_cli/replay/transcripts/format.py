"""What a transcript format provides: the :class:`TranscriptFormat` protocol.

A format is usually a module (``agentforge``, ``openai``, ``anthropic``) whose top-level
names satisfy the protocol; any object with the same attributes works too. The file side
— JSONL streamed line by line, or one JSON document of messages — is common to every
format: a format only sees :class:`~agentforge_cli.replay.transcripts.records.Record`
values, one line or one message each. Formats take part in replay through
:data:`~agentforge_cli.replay.transcripts.registry.FORMATS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import Any, Protocol, runtime_checkable

from agentforge_cli.replay.transcripts.calls import CallBook, Updates
from agentforge_cli.replay.transcripts.events import Event
from agentforge_cli.replay.transcripts.records import Record

__all__ = ["Claim", "TranscriptFormat"]


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
