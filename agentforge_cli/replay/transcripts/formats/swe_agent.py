"""SWE-agent trajectories (``trajectories/<user>/<run>/<instance>/<instance>.traj``): one
JSON document whose ``history`` is the conversation as the model saw it, OpenAI chat
messages that SWE-agent marks with ``agent`` and ``message_type``.

* an ``assistant`` message's ``tool_calls`` are the calls: SWE-agent's commands (``bash``,
  ``open``, ``edit``, ``find_file``, ...), replayed by name against the target's tools;
* a ``tool`` message answers the calls its ``tool_call_ids`` list names (SWE-agent asks
  for one call a turn, so the list holds one) with the observation as the model read it:
  the command's output followed by SWE-agent's state (``(Open file: ...)``,
  ``(Current directory: ...)``, ``bash-$``), so a tool replaying it gives that text too;
  the format records no error flag;
* an action given only as a command line (``action`` with no ``tool_calls``, as older
  SWE-agent versions parse a model's text) is shown as not replayable: it names no tool
  and no arguments;
* ``system`` messages are the system prompt; the demonstrations (``is_demo``) are
  skipped; the ``submit`` that ends a run is a step of ``trajectory`` and no message of
  ``history``, so it is no call.

``--update`` is refused: the trajectory keeps each observation twice (rendered in
``history``, raw in ``trajectory``), and ``sweagent run-replay`` replays the second; a
file with one written and not the other would contradict itself.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.replay.transcripts.families import naming
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.formats import openai
from agentforge_cli.replay.transcripts.model import (
    AssistantMessage,
    Event,
    ToolResult,
    TranscriptError,
)
from agentforge_cli.replay.transcripts.reading.calls import CallBook
from agentforge_cli.replay.transcripts.reading.fields import content_text, optional_id

__all__ = ["FORMAT", "claims", "record_events"]


def claims(data: Any) -> Claim:
    """A chat message marked with SWE-agent's ``message_type`` (or answering by a
    ``tool_call_ids`` list) is SWE-agent's own."""
    if not isinstance(data, dict) or not isinstance(data.get("role"), str):
        return Claim.NO
    if isinstance(data.get("message_type"), str) or isinstance(data.get("tool_call_ids"),
                                                                  list):
        return Claim.OWN
    return Claim.NO


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one message of ``history``."""
    if record.blank:
        return []
    with naming("a SWE-agent trajectory"):
        return _message_events(record, book)


def _message_events(record: Record, book: CallBook) -> list[Event]:
    data, where = record.data, record.where
    if not isinstance(data, dict) or not isinstance(data.get("role"), str):
        raise TranscriptError(book.path, where, "not a message of its history "
                              f"({record_shape(data)})")
    if data.get("is_demo") is True:
        return []  # a demonstration from another trajectory, shown to the model
    role = data["role"]
    if role == "tool" and "tool_call_ids" in data:
        return _observation(data, record, book)
    if role == "assistant" and not data.get("tool_calls") and isinstance(
            data.get("action"), str) and data["action"].strip():
        events = openai.record_events(record, book)
        return [*events, AssistantMessage(
            content=f"(not replayable: a command SWE-agent ran in its shell: "
                    f"{data['action'].strip()})", where=where.at("action"))]
    return openai.record_events(record, book)


def _observation(data: dict[str, Any], record: Record, book: CallBook) -> list[Event]:
    """A ``tool`` message: the observation answering each call it names."""
    ids = data["tool_call_ids"]
    at = record.where.at("tool_call_ids")
    if not isinstance(ids, list) or not ids:
        raise TranscriptError(book.path, at, '"tool_call_ids" must be a non-empty array of '
                              "call ids")
    text = content_text(data.get("content"))
    events: list[Event] = []
    for i, value in enumerate(ids):
        call_id = optional_id(value, book.path, at.then(i), "tool_call_ids")
        events.append(ToolResult(call_index=book.result(call_id, record.where), id=call_id,
                                 content=text, is_error=None, where=record.where))
    return events


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="swe-agent",
    title="SWE-agent trajectories",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    not_updated="does not write into a SWE-agent trajectory (it keeps each observation "
                "twice, in history and in trajectory); replay it without --update",
    names=("*.traj",),
    before=("openai",),  # its messages are OpenAI's, marked with SWE-agent's fields
)
