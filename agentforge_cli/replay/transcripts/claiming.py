"""Picking the format that claims a transcript's records, among given formats.

:mod:`.detection` asks the registered formats; the ``conversations`` format asks them
about each conversation's messages. Neither the registry nor a format is imported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from agentforge_cli.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.events import TranscriptError
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.records import Record, record_shape

__all__ = ["pick_format", "unknown_format"]


def unknown_format(path: Path, where: str, found: str,
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
            raise unknown_format(path, record.where,
                                 f"no format reads this record ({record_shape(data)})",
                                 formats)
        shared = shared or first_sharing
    if shared is not None:
        return shared
    raise TranscriptError(path, "", "the transcript holds no messages")
