"""pydantic-ai message histories: what ``result.all_messages_json()`` and
``ModelMessagesTypeAdapter.dump_json(...)`` write, a JSON array of messages (or JSONL of
them).

* a message is ``{"kind": "request"|"response", "parts": [...]}``, each part tagged by
  ``part_kind``;
* a response's ``tool-call`` part (``tool_name``, ``args`` object or JSON string,
  ``tool_call_id``) is a call; ``text`` parts are what the model said, ``thinking`` parts
  its reasoning;
* a request's ``tool-return`` part answers the call with the same ``tool_call_id`` (its
  ``content`` as text: a string as it is, anything else as compact JSON), an error when
  its ``outcome`` is not ``success`` (``retried``, ``failed``); a ``retry-prompt`` part
  naming a tool (older pydantic-ai) answers it with an error; ``user-prompt`` parts are
  what the user said; ``system-prompt`` parts are skipped.

``--update`` replaces the ``content`` of ``tool-return`` parts (a call now failing gets
the ``failed`` outcome, or becomes a ``retry-prompt`` in the older shape) and adds a
``tool-return`` part for each call that had none to the next request (a new request when
the next message is a response).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.model import (
    AssistantMessage,
    Event,
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
)
from agentforge_cli.replay.transcripts.place import Place
from agentforge_cli.replay.transcripts.reading.calls import (
    CallBook,
    Updates,
    named_call,
    rewrite_in_turns,
    update_parts,
)
from agentforge_cli.replay.transcripts.reading.fields import content_text, optional_id
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["FORMAT", "claims", "record_events", "rewrite"]

_KINDS = ("request", "response")


def claims(data: Any) -> Claim:
    """A ``{"kind": "request"|"response", "parts": [...]}`` message is pydantic-ai's own."""
    if (isinstance(data, dict) and data.get("kind") in _KINDS
            and isinstance(data.get("parts"), list)):
        return Claim.OWN
    return Claim.NO


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one message, in part order."""
    path, where, data = book.path, record.where, record.data
    if record.blank:
        return []
    if claims(data) != Claim.OWN:
        raise TranscriptError(path, where, 'expected a pydantic-ai message ({"kind", '
                              f'"parts"}}); found {record_shape(data)}')
    events: list[Event] = []
    for i, part in enumerate(data["parts"]):
        at = where.at("parts", i)
        if not isinstance(part, dict):
            raise TranscriptError(path, at, f"expected a part object, got {dumps(part)[:80]}")
        event = _part_event(part, data["kind"], book, at)
        if isinstance(event, ToolResult):
            event.part = i
        if event is not None:
            events.append(event)
    return events


def _part_event(part: dict[str, Any], kind: str, book: CallBook, where: Place) -> Event | None:
    part_kind = part.get("part_kind")
    if kind == "response" and part_kind == "tool-call":
        call_id = optional_id(part.get("tool_call_id"), book.path, where, "tool_call_id")
        return named_call({"name": part.get("tool_name"), "arguments": part.get("args")},
                          call_id, part, book, where)
    if kind == "response" and part_kind in ("text", "thinking"):
        text = part.get("content")
        if isinstance(text, str) and text:
            return AssistantMessage(content=text, where=where, thinking=part_kind == "thinking")
        return None
    if kind == "request" and part_kind in ("tool-return", "retry-prompt"):
        if part_kind == "retry-prompt" and not part.get("tool_name"):
            return None  # a retry of the model's final output, not of a call
        call_id = optional_id(part.get("tool_call_id"), book.path, where, "tool_call_id")
        index = book.result(call_id, where)
        failed = part_kind == "retry-prompt" or part.get("outcome") not in (None, "success")
        return ToolResult(call_index=index, id=call_id, content=_text(part.get("content")),
                          is_error=failed, where=where)
    if kind == "request" and part_kind == "user-prompt":
        text = content_text(part.get("content"))
        return UserMessage(content=text, where=where) if text else None
    return None  # system prompts, built-in tools, files


def _text(content: Any) -> str:
    return content if isinstance(content, str) else dumps(content)


def _return_part(call: ToolCall, text: str, is_error: bool) -> dict[str, Any]:
    part: dict[str, Any] = {"tool_name": call.name, "content": text}
    if call.id is not None:
        part["tool_call_id"] = call.id
    part["part_kind"] = "retry-prompt" if is_error else "tool-return"
    return part


def _updated_part(part: dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    if "outcome" in part:  # pydantic-ai 2.6x: a retried call is a tool-return too
        return {**part, "content": text, "outcome": "failed" if is_error else "success"}
    return {**part, "content": text, "part_kind": "retry-prompt" if is_error else "tool-return"}


def _merge_request(record: Record, waiting: list[dict[str, Any]]) -> Record | None:
    """New ``tool-return`` parts first in the next request."""
    if record.data.get("kind") != "request":
        return None
    return Record({**record.data, "parts": [*waiting, *record.data["parts"]]}, record.where,
                  record.position)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Yield the messages with the updated results applied; new results join the next
    request as ``tool-return`` parts."""
    return rewrite_in_turns(
        records, updates, answered, book, read=record_events,
        apply=lambda record, events, updates: update_parts(record, events, updates, "parts",
                                                           _updated_part),
        answer=_return_part, merge=_merge_request,
        new_turn=lambda parts: Record({"parts": parts, "kind": "request"}))


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="pydantic-ai",
    title="pydantic-ai message histories",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events, (CallFields(("tool_name",), ("args",)),),
                           (("tool_name",),)),
)
