"""Codex CLI rollout files (``~/.codex/sessions/.../rollout-*.jsonl``): one JSON object a
line, ``{"timestamp", "type", "payload"}``.

* ``response_item`` lines hold OpenAI Responses items: ``function_call`` is a call,
  ``function_call_output`` answers it by ``call_id``, ``message`` items are what was said;
  a ``local_shell_call`` (a command Codex ran in its own sandbox, no tool of yours) is
  shown as not replayable, and its output skipped: Codex answers it with a
  ``function_call_output`` of the same ``call_id`` (or a ``local_shell_call_output``);
* the other lines (``session_meta``, ``turn_context``, ``event_msg``, which repeats the
  messages for the terminal) are skipped.

``--update`` is refused: a rollout belongs to Codex.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.formats import openai_responses
from agentforge_cli.replay.transcripts.model import AssistantMessage, Event, TranscriptError
from agentforge_cli.replay.transcripts.reading.calls import CallBook

__all__ = ["FORMAT", "RolloutBook", "claims", "record_events"]

_LINE_TYPES = ("response_item", "event_msg", "session_meta", "turn_context", "compacted")


class RolloutBook(CallBook):
    """The state of reading one rollout: the shell calls whose output is still to come
    (their ids), so that it is skipped with them."""

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.shell_calls: set[str] = set()


def claims(data: Any) -> Claim:
    """A ``{"type", "payload"}`` line of a rollout's kinds is Codex's own."""
    if (isinstance(data, dict) and data.get("type") in _LINE_TYPES
            and isinstance(data.get("payload"), dict)):
        return Claim.OWN
    return Claim.NO


def record_events(record: Record, book: RolloutBook) -> list[Event]:
    """The events of one line: a response item's, or none."""
    if record.blank:
        return []
    if claims(record.data) != Claim.OWN:
        raise TranscriptError(book.path, record.where, "not a Codex rollout line "
                              f"({record_shape(record.data)})")
    if record.data["type"] != "response_item":
        return []
    payload, at = record.data["payload"], record.where.at("payload")
    kind = payload.get("type")
    if kind == "function_call_output" and payload.get("call_id") in book.shell_calls:
        book.shell_calls.discard(payload["call_id"])  # a shell call's output: skipped too
        return []
    if kind == "local_shell_call":  # Codex's own sandbox: said, not run
        for key in ("call_id", "id"):  # Codex answers by call_id, else by id
            if isinstance(payload.get(key), str):
                book.shell_calls.add(payload[key])
                break
        action = payload.get("action")
        command = action.get("command") if isinstance(action, dict) else None
        shown = " ".join(map(str, command)) if isinstance(command, list) else "a command"
        return [AssistantMessage(content=f"(not replayable: a local_shell_call that Codex "
                                 f"ran in its own sandbox: {shown})", where=at)]
    return openai_responses.item_events(payload, at, book)


FORMAT: TranscriptFormat[RolloutBook] = TranscriptFormat(
    name="codex",
    title="Codex CLI rollouts",
    claims=claims,
    start=RolloutBook.start,
    record_events=record_events,
    not_updated="does not write into a Codex rollout; replay it without --update",
)
