"""LangChain messages as ``messages_to_dict`` writes them: a JSON array (or JSONL) of
``{"type": "human"|"ai"|"tool"|"system", "data": {...}}``.

* an ``ai`` message's ``data.tool_calls`` (``name``, ``args`` object, ``id``) are the
  calls (``additional_kwargs.tool_calls``, OpenAI's raw shape, when it has none);
* a ``tool`` message answers the call named by ``data.tool_call_id``; ``"status":
  "error"`` is an error result;
* ``human`` and ``ai`` ``content`` (a string or content blocks) is what was said;
  a ``system`` message (LangChain's ``SystemMessage``) is the system prompt.

``--update`` replaces the ``content`` (and ``status``) of tool messages and inserts a tool
message for each call that had none, after the tool messages that follow its call.
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
from agentforge_cli.replay.transcripts.place import Place
from agentforge_cli.replay.transcripts.reading.calls import (
    CallBook,
    Updates,
    named_call,
    rewrite_as_items,
)
from agentforge_cli.replay.transcripts.reading.fields import content_text, optional_id
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["FORMAT", "claims", "record_events", "rewrite"]

_TYPES = ("human", "ai", "tool", "system", "function", "chat", "AIMessageChunk",
          "HumanMessageChunk", "ToolMessageChunk")


def claims(data: Any) -> Claim:
    """A ``{"type", "data": {...}}`` message of LangChain's types is LangChain's own."""
    if (isinstance(data, dict) and data.get("type") in _TYPES
            and isinstance(data.get("data"), dict) and "role" not in data):
        return Claim.OWN
    return Claim.NO


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one message."""
    path, where = book.path, record.where
    if record.blank:
        return []
    if claims(record.data) != Claim.OWN:
        raise TranscriptError(path, where, 'expected a LangChain message ({"type", "data"}); '
                              f"found {record_shape(record.data)}")
    kind, data = record.data["type"].removesuffix("MessageChunk").lower(), record.data["data"]
    at = where.at("data")
    if "content" not in data:  # never an empty turn: the text is elsewhere
        raise TranscriptError(path, at, f'a "{kind}" message needs "content"; found '
                              f"{record_shape(data)}")
    text = content_text(data["content"])
    if kind in ("human", "chat"):
        return [UserMessage(content=text, where=at)] if text else []
    if kind == "ai":
        events: list[Event] = [AssistantMessage(content=text, where=at)] if text else []
        return events + _calls(data, book, at)
    if kind in ("tool", "function"):
        call_id = optional_id(data.get("tool_call_id"), path, at, "tool_call_id")
        index = book.result(call_id, at)
        return [ToolResult(call_index=index, id=call_id, content=text,
                           is_error=data.get("status") == "error", where=at)]
    return [SystemPrompt(content=text, where=at)] if text and kind == "system" else []


def _calls(data: dict[str, Any], book: CallBook, where: Place) -> list[Event]:
    calls = data.get("tool_calls")
    if calls:
        shape = [({"name": c.get("name"), "arguments": c.get("args")}, c.get("id"), c)
                 for c in calls if isinstance(c, dict)]
    else:
        raw = (data.get("additional_kwargs") or {}).get("tool_calls") or []
        shape = [(c.get("function") or {}, c.get("id"), c) for c in raw if isinstance(c, dict)]
    events: list[Event] = []
    for i, (function, call_id, raw_call) in enumerate(shape):
        at = where.at("tool_calls", i)
        events.append(named_call(function, optional_id(call_id, book.path, at, "id"),
                                 raw_call, book, at))
    return events


def _is_result(data: Any) -> bool:
    return isinstance(data, dict) and data.get("type") in ("tool", "function")


def _with_result(record: Record, text: str, is_error: bool) -> Record:
    inner = dict(record.data["data"])
    inner["content"] = text
    if is_error or "status" in inner:
        inner["status"] = "error" if is_error else "success"
    return Record({**record.data, "data": inner}, record.where, record.position)


def _new_result(call: ToolCall, text: str, is_error: bool) -> Record:
    return Record({"type": "tool", "data": {"content": text, "type": "tool",
                                            "tool_call_id": call.id, "name": call.name,
                                            "status": "error" if is_error else "success"}})


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Yield the messages with the updated results applied."""
    return rewrite_as_items(records, updates, answered, book, read=record_events,
                            follows_call=_is_result, replace=_with_result,
                            new_item=_new_result)


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="langchain",
    title="LangChain message dicts",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events,
                           (CallFields(("name",), ("args",)),
                            CallFields(("function", "name"), ("function", "arguments"))),
                           (("name",),)),  # a tool message naming its tool
)
