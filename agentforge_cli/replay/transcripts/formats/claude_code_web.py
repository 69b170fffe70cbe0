"""Claude Code web sessions: ``{"loglines": [...]}``, the lines of a Claude Code session
as the web app exports them (and as ``claude-code-transcripts`` reads them), without the
session's ids.

Each line is read as a line of a Claude Code session (:mod:`.claude_code`): a
``user``/``assistant`` line's ``message`` is an Anthropic message (``tool_use`` calls,
``tool_result`` answers, ``is_error``), and the other lines are skipped.

``--update`` is refused: the export belongs to Claude Code, as its session files do.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.replay.transcripts.families import naming
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.formats import claude_code
from agentforge_cli.replay.transcripts.model import Event, TranscriptError
from agentforge_cli.replay.transcripts.reading.calls import CallBook

__all__ = ["FORMAT", "claims", "record_events"]


def claims(data: Any) -> Claim:
    """A line with a ``type``, a ``timestamp`` and a ``message`` object holding a ``role``
    (and no ``role`` of its own) is a Claude Code web session's; a line with the session's
    ids is the Claude Code session reader's. (A home-made log wrapping its turns in
    ``message`` without Claude Code's ``timestamp`` is claimed by no format.)"""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or "role" in data:
        return Claim.NO
    if not isinstance(data.get("timestamp"), str):
        return Claim.NO
    message = data.get("message")
    if not isinstance(message, dict) or "role" not in message:
        return Claim.NO
    return Claim.NO if claude_code.claims(data) is Claim.OWN else Claim.OWN


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one line: its message's, or none."""
    if record.blank:
        return []
    data = record.data
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or "role" in data:
        raise TranscriptError(book.path, record.where, "not a Claude Code web session line "
                              f"({record_shape(data)})")
    with naming("a Claude Code web session"):
        return claude_code.line_events(record, book)


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="claude-code-web",
    title="Claude Code web sessions",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    not_updated="does not write into a Claude Code web session; replay it without --update",
)
