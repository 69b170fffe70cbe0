"""Telling a transcript's container (JSONL or one JSON document) and its format.

The container comes from the first non-blank line; the format from the records: each
registered format is asked, in registry order, whether a record is its own
(:class:`~agentforge_cli.replay.transcripts.format.Claim`), for up to
:data:`DETECTION_WINDOW` leading records.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from agentforge_cli.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts import registry
from agentforge_cli.replay.transcripts.events import TranscriptError
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.records import Record, load_document, record_shape

__all__ = ["DETECTION_WINDOW", "container_of", "detect_format", "document_records",
           "unknown_format"]

DETECTION_WINDOW = 1000
"""How many leading JSONL records auto-detection may look at before it settles."""


def container_of(head: str) -> str:
    """``json`` for a document (an array, a multi-line object, an envelope), else ``jsonl``.

    Args:
        head: The file's first non-blank line.
    """
    stripped = head.strip()
    if stripped.startswith("["):
        return "json"
    try:
        first = json.loads(stripped)
    except ValueError:
        return "json"  # an object spread over several lines
    if isinstance(first, dict) and isinstance(first.get("messages"), list):
        return "json"
    return "jsonl"


def unknown_format(path: Path, where: str, found: str) -> TranscriptFormatError:
    """The error for a file no registered format reads: where, what was found there, and
    every format tried."""
    tried = ", ".join(fmt.TITLE for fmt in registry.FORMATS)
    return TranscriptFormatError(path, where, f"not a known transcript format: {found}; "
                                 f"formats tried: {tried}")


def document_records(path: Path) -> list[Record]:
    """The messages of a JSON document, for detection.

    Raises:
        TranscriptFormatError: The document is neither a message array nor an object with
            ``"messages"``.
    """
    try:
        return load_document(path).records
    except TranscriptFormatError as exc:
        raise unknown_format(path, exc.where, exc.reason) from None


def detect_format(path: Path, records: Iterable[Record]) -> TranscriptFormat:
    """The format that claims a record as its own first; failing that (every record is
    one several formats read, such as plain text chat), the first format to share one.

    A record is claimed only when it has the fields a format reads
    (:class:`~agentforge_cli.replay.transcripts.format.Claim`), so a file in a format
    nobody reads is refused at its first record rather than read as empty turns.

    Raises:
        TranscriptFormatError: A record no format claims.
        TranscriptError: No record at all.
    """
    formats = registry.FORMATS
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
                                 f"no format reads this record ({record_shape(data)})")
        shared = shared or first_sharing
    if shared is not None:
        return shared
    raise TranscriptError(path, "", "the transcript holds no messages")
