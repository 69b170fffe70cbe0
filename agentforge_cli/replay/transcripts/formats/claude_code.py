"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``): one JSON
object a line, each tool call and result inside an Anthropic message.

* ``{"type": "user"|"assistant", "message": {"role", "content"}, "uuid", "parentUuid",
  "sessionId", "isSidechain", ...}`` lines hold the conversation: their ``message`` is
  read as an Anthropic message (``tool_use`` blocks are the calls, ``tool_result`` blocks
  answer them by id);
* the other lines of a session (``summary``, ``system``, file snapshots) are skipped;
* a sub-agent's messages (``isSidechain``) are read where they are, their call ids their
  own.

``--update`` is refused: a session file belongs to Claude Code.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.formats import anthropic
from agentforge_cli.replay.transcripts.model import Event, TranscriptError
from agentforge_cli.replay.transcripts.reading.calls import CallBook

__all__ = ["FORMAT", "claims", "line_events", "record_events"]

_SESSION_KEYS = ("sessionId", "leafUuid", "parentUuid")


def claims(data: Any) -> Claim:
    """A line with a ``type`` and the ids of a session (``sessionId``, ``uuid``,
    ``leafUuid``) is Claude Code's own."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return Claim.NO
    if "role" in data or not (data.keys() & {*_SESSION_KEYS, "uuid"}):
        return Claim.NO
    return Claim.OWN


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one line: its message's, or none for a line that holds none."""
    if record.blank:
        return []
    data = record.data
    if not isinstance(data, dict) or claims(data) != Claim.OWN:
        raise TranscriptError(book.path, record.where, "not a Claude Code session line "
                              f"({record_shape(data)})")
    return line_events(record, book)


def line_events(record: Record, book: CallBook) -> list[Event]:
    """The events of a session line known to be one (a ``type`` string): its message's,
    or none for a line that holds none. Shared with the web sessions' reader."""
    data = record.data
    if data["type"] not in ("user", "assistant"):
        return []
    message = data.get("message")
    if not isinstance(message, dict):
        raise TranscriptError(book.path, record.where, f'a "{data["type"]}" line needs a '
                              '"message" object')
    return anthropic.record_events(Record(message, record.where.at("message"),
                                          record.position), book)


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="claude-code",
    title="Claude Code sessions",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    not_updated="does not write into a Claude Code session file; replay it without --update",
)
