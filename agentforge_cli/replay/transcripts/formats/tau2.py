"""tau2-bench messages, as its results files (``{"simulations": [{"messages": [...]}]}``)
hold each simulated conversation.

* an ``assistant`` (or ``user``: tau2's user simulator has tools too) message's
  ``tool_calls`` are the calls: ``{"id", "name", "arguments": {...}, "requestor"}``;
* a ``tool`` message answers the call whose ``id`` it repeats; ``"error": true`` is an
  error result;
* ``content`` is what was said; a ``system`` message is the system prompt (a results
  file keeps its agent's policy in ``info.environment_info.policy``, read as the system
  prompt of every conversation in it).

Plain text messages read the same as OpenAI chat's (the first tau2 call or result in a
conversation tells the format). ``--update`` replaces the ``content`` (and ``error``) of
tool messages and inserts a tool message for each call that had none, after the tool
messages that follow its call.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.model import (
    AssistantMessage,
    Event,
    SystemPrompt,
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
)
from agentforge_cli.replay.transcripts.reading.calls import (
    CallBook,
    Updates,
    named_call,
    rewrite_as_items,
)
from agentforge_cli.replay.transcripts.reading.fields import content_text, optional_id
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["FORMAT", "claims", "record_events", "rewrite"]

def _tau2_call(call: Any) -> bool:
    return (isinstance(call, dict) and "function" not in call and isinstance(
        call.get("name"), str) and isinstance(call.get("arguments"), dict))


def claims(data: Any) -> Claim:
    """A message whose tool calls are ``{"id", "name", "arguments": {...}}`` (no
    ``function``), or a tool message naming its call by ``id`` with a ``requestor``, is
    tau2's own."""
    if not isinstance(data, dict):
        return Claim.NO
    role, calls = data.get("role"), data.get("tool_calls")
    if role in ("assistant", "user") and isinstance(calls, list) and calls and all(
            _tau2_call(call) for call in calls):
        return Claim.OWN
    if role == "tool" and "requestor" in data and "id" in data and "tool_call_id" not in data:
        return Claim.OWN
    return Claim.NO


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one message."""
    path, where, data = book.path, record.where, record.data
    if record.blank:
        return []
    if not isinstance(data, dict) or not isinstance(data.get("role"), str):
        raise TranscriptError(path, where, f"expected a tau2 message; found "
                              f"{record_shape(data)}")
    role = data["role"]
    text = content_text(data.get("content"))
    if role == "tool":
        call_id = optional_id(data.get("id"), path, where, "id")
        error = data.get("error", False)
        if not isinstance(error, bool):
            raise TranscriptError(path, where, '"error" must be true or false')
        return [ToolResult(book.result(call_id, where), call_id, text, error, where)]
    if role not in ("assistant", "user"):
        return [SystemPrompt(content=text, where=where)] if text and role == "system" else []
    said = UserMessage if role == "user" else AssistantMessage
    events: list[Event] = [said(content=text, where=where)] if text else []
    for i, call in enumerate(data.get("tool_calls") or []):
        at = where.at("tool_calls", i)
        if not isinstance(call, dict):
            raise TranscriptError(path, at, "expected a tool call object")
        events.append(named_call(call, optional_id(call.get("id"), path, at, "id"), call,
                                 book, at))
    return events


def _is_result(data: Any) -> bool:
    return isinstance(data, dict) and data.get("role") == "tool"


def _with_result(record: Record, text: str, is_error: bool) -> Record:
    data = {**record.data, "content": text}
    if is_error or "error" in data:
        data["error"] = is_error
    return Record(data, record.where, record.position)


def _new_result(call: ToolCall, text: str, is_error: bool) -> Record:
    requestor = call.raw.get("requestor", "assistant") if isinstance(call.raw, dict) else (
        "assistant")
    return Record({"id": call.id, "role": "tool", "content": text, "requestor": requestor,
                   "error": is_error})


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Yield the messages with the updated results applied."""
    return rewrite_as_items(records, updates, answered, book, read=record_events,
                            follows_call=_is_result, replace=_with_result,
                            new_item=_new_result)


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="tau2",
    title="tau2-bench messages",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events, (CallFields(("name",), ("arguments",)),)),
    before=("openai",),  # OpenAI's reader would refuse its calls and tool messages
)
