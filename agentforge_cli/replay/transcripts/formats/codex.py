"""Codex CLI rollout files (``~/.codex/sessions/.../rollout-*.jsonl``): one JSON object a
line, ``{"timestamp", "type", "payload"}``.

* ``response_item`` lines hold OpenAI Responses items: ``function_call`` is a call,
  ``function_call_output`` answers it by ``call_id``, ``message`` items are what was said;
  a ``local_shell_call`` (a command Codex ran in its own sandbox, no tool of yours) is
  shown as not replayable, and its output skipped;
* the other lines (``session_meta``, ``turn_context``, ``event_msg``, which repeats the
  messages for the terminal) are skipped.

``--update`` is refused: a rollout belongs to Codex.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.formats import openai_responses
from agentforge_cli.replay.transcripts.model import AssistantMessage, Event, TranscriptError
from agentforge_cli.replay.transcripts.reading.calls import CallBook

__all__ = ["FORMAT", "claims", "record_events"]

_LINE_TYPES = ("response_item", "event_msg", "session_meta", "turn_context", "compacted")


def claims(data: Any) -> Claim:
    """A ``{"type", "payload"}`` line of a rollout's kinds is Codex's own."""
    if (isinstance(data, dict) and data.get("type") in _LINE_TYPES
            and isinstance(data.get("payload"), dict)):
        return Claim.OWN
    return Claim.NO


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one line: a response item's, or none."""
    if record.blank:
        return []
    if claims(record.data) != Claim.OWN:
        raise TranscriptError(book.path, record.where, "not a Codex rollout line "
                              f"({record_shape(record.data)})")
    if record.data["type"] != "response_item":
        return []
    payload, at = record.data["payload"], record.where.at("payload")
    if payload.get("type") == "local_shell_call":  # Codex's own sandbox: said, not run
        action = payload.get("action")
        command = action.get("command") if isinstance(action, dict) else None
        shown = " ".join(map(str, command)) if isinstance(command, list) else "a command"
        return [AssistantMessage(content=f"(not replayable: a local_shell_call that Codex "
                                 f"ran in its own sandbox: {shown})", where=at)]
    return openai_responses.item_events(payload, at, book)


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="codex",
    title="Codex CLI rollouts",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    not_updated="does not write into a Codex rollout; replay it without --update",
)
