"""Telling a transcript's container (JSONL or one JSON document) and its format.

The container comes from the first non-blank line; the format from the records: each
registered format is asked, in registry order, whether a record is its own
(:class:`~agentforge_cli.replay.transcripts.format.Claim`), record after record until
one is some format's own, one is no format's, or the file ends. There is no window of
leading records that blank lines or plain text messages (which several formats read)
could fill: an Anthropic conversation whose first ``tool_use`` comes after thousands of
text messages is still told from an OpenAI one. Runs of blank lines cost what their bytes
cost (:func:`~agentforge_cli.replay.transcripts.files.jsonl.iter_jsonl`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts import registry
from agentforge_cli.replay.transcripts.errors import TranscriptFormatError
from agentforge_cli.replay.transcripts.files.documents import iter_document
from agentforge_cli.replay.transcripts.files.envelopes import envelope_keys
from agentforge_cli.replay.transcripts.files.limits import open_bytes
from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.format import (
    TranscriptFormat,
    no_format_reads,
    pick_format,
)
from agentforge_cli.replay.transcripts.place import Place

__all__ = ["container_of", "detect_format", "document_records", "unknown_format"]


def container_of(head: str, path: Path | None = None) -> str:
    """``json`` for a document (an array, a multi-line object, an envelope such as
    ``{"messages": [...]}``), else ``jsonl``.

    A whole conversation on the first line is a document unless more lines follow (given
    ``path``): then the file is JSONL of conversations, one a line.

    Args:
        head: The file's first non-blank line.
        path: The file, to look for a second line.
    """
    try:
        first = json.loads(head.strip())
    except (ValueError, RecursionError):  # not JSON on its own, or nested too deeply
        if head.lstrip().startswith("{") and not head.endswith("\n") and path is not None:
            # a first line longer than the head: one object, or the first of many lines
            return "jsonl" if _has_second_line(path) else "json"
        return "json"  # an array or object spread over several lines
    if isinstance(first, list) or envelope_keys(first):
        return "jsonl" if path is not None and _has_second_line(path) else "json"
    return "jsonl"


_NOT_SPACE = re.compile(rb"[^ \t\r\f\v\n]")


def _has_second_line(path: Path) -> bool:
    """Two lines of the file hold something (read in blocks: a line may be very long,
    and blank lines, however many, are skipped at the cost of their bytes)."""
    found, current = 0, False  # non-blank lines ended; the current one holds something
    with open_bytes(path) as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            if not block.strip():  # blank lines only, or the current line's spaces
                if current and b"\n" in block:
                    found, current = found + 1, False
                continue
            at = 0
            while found < 2:
                something = _NOT_SPACE.search(block, at)
                stop = len(block) if something is None else something.start()
                if current and block.find(b"\n", at, stop) >= 0:
                    found, current = found + 1, False
                if something is None:
                    break
                current = True
                end = block.find(b"\n", stop)
                if end < 0:
                    break
                found, current, at = found + 1, False, end + 1
            if found >= 2:
                return True
    return found + current >= 2


def unknown_format(path: Path, where: Place, found: str) -> TranscriptFormatError:
    """The error for a file no registered format reads: where, what was found there, and
    every format tried."""
    return no_format_reads(path, where, found, registry.transcript_formats())


def document_records(path: Path) -> Generator[Record, None, None]:
    """A JSON document's messages, streamed, for detection.

    Raises:
        TranscriptFormatError: The document is neither a message array nor an object with
            ``"messages"``.
    """
    try:
        yield from iter_document(path)
    except TranscriptFormatError as exc:
        raise unknown_format(path, exc.where, exc.reason) from None


def detect_format(path: Path, records: Iterable[Record]) -> TranscriptFormat[Any]:
    """The registered format that claims a record as its own first; failing that (every
    record is one several formats read, such as plain text chat), the first format to
    share one (:func:`~agentforge_cli.replay.transcripts.format.pick_format`).

    Raises:
        TranscriptFormatError: A record no format claims.
        TranscriptError: No record at all.
    """
    return pick_format(path, records, registry.transcript_formats())
