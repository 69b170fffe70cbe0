"""Cohere v2 chat messages (``/v2/chat``): a JSON array, ``{"messages": [...]}`` (a chat
request), or JSONL of messages; and ``/v2/chat`` calls in cassettes, answered in JSON or
in server-sent events.

* ``user`` messages carry ``content``: a string, or ``text`` blocks;
* an ``assistant`` message's ``tool_plan`` is the model's reasoning before its calls, its
  ``content`` (a string, or ``text`` and ``thinking`` blocks) what it said, and its
  ``tool_calls[]`` the calls, OpenAI's shape: ``{"id", "type": "function", "function":
  {"name", "arguments"}}`` with ``arguments`` a JSON string;
* a ``tool`` message answers the call named by ``tool_call_id``: its ``content`` is a
  string, or ``text`` blocks and ``document`` blocks (``{"document": {"data": ...}}``: a
  string as it is, anything else as compact JSON), joined by newlines. The format records
  no error flag;
* a ``system`` message is the system prompt.

A message is told from OpenAI chat's by what only Cohere writes: an assistant's
``tool_plan``, or ``document`` blocks in a tool message. ``--update`` replaces a tool
message's ``content`` (in its shape: a string, ``text`` or ``document`` blocks) and
inserts a tool message for each call that had none, as OpenAI chat's writer does.

A streamed response is the events ``message-start``, ``content-start``/``-delta``/``-end``,
``tool-plan-delta``, ``tool-call-start``/``-delta``/``-end`` and ``message-end``, joined
into the message they spell out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from agentforge_cli.replay.transcripts.files.envelopes import envelope_records
from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import ApiReading, Claim, TranscriptFormat
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
from agentforge_cli.replay.transcripts.reading.exchanges import (
    Exchange,
    ServerEvents,
    unread,
    uri_path,
)
from agentforge_cli.replay.transcripts.reading.fields import content_text, optional_id
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["API_PATHS", "FORMAT", "claims", "http_exchange", "record_events", "rewrite"]

API_PATHS = ("/v2/chat",)
_ROLES = ("user", "assistant", "tool", "system")
_STREAM_EVENTS = frozenset({"message-start", "content-start", "content-delta",
                            "tool-plan-delta", "tool-call-start", "tool-call-delta",
                            "message-end"})


def _document_blocks(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "document" for block in content)


def claims(data: Any) -> Claim:
    """An assistant message with a ``tool_plan``, or a tool message with ``document``
    blocks, is Cohere's own; any other message is left to OpenAI chat, which reads it
    the same way."""
    if not isinstance(data, dict) or data.get("role") not in _ROLES:
        return Claim.NO
    if data["role"] == "assistant" and "tool_plan" in data:
        return Claim.OWN
    if data["role"] == "tool" and _document_blocks(data.get("content")):
        return Claim.OWN
    return Claim.NO


def _result_text(content: Any) -> str:
    """A tool message's text: ``document`` blocks' data beside ``text`` blocks."""
    if not isinstance(content, list):
        return content_text(content)
    parts = []
    for block in content:
        document = block.get("document") if isinstance(block, dict) else None
        if isinstance(document, dict) and "data" in document:
            data = document["data"]
            parts.append(data if isinstance(data, str) else dumps(data))
        else:
            parts.append(content_text([block]))
    return "\n".join(parts)


def _said(content: Any, where: Place) -> list[Event]:
    """An assistant's ``content``: a string, or ``text`` and ``thinking`` blocks."""
    if not isinstance(content, list):
        text = content_text(content)
        return [AssistantMessage(content=text, where=where)] if text else []
    events: list[Event] = []
    for i, block in enumerate(content):
        at = where.at("content", i)
        if isinstance(block, dict) and isinstance(block.get("thinking"), str):
            if block["thinking"]:
                events.append(AssistantMessage(content=block["thinking"], where=at,
                                               thinking=True))
        else:
            text = content_text([block])
            if text:
                events.append(AssistantMessage(content=text, where=at))
    return events


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one message."""
    path, where, data = book.path, record.where, record.data
    if record.blank:
        return []
    if not isinstance(data, dict) or data.get("role") not in _ROLES:
        raise TranscriptError(path, where, "expected a Cohere chat message with role user, "
                              f"assistant, tool or system; found {record_shape(data)}")
    role = data["role"]
    if role == "system":
        text = content_text(data.get("content"))
        return [SystemPrompt(content=text, where=where)] if text else []
    if role == "user":
        return [UserMessage(content=content_text(data.get("content")), where=where)]
    if role == "tool":
        call_id = optional_id(data.get("tool_call_id"), path, where, "tool_call_id")
        index = book.result(call_id, where)
        return [ToolResult(call_index=index, id=call_id,
                           content=_result_text(data.get("content")), is_error=None,
                           where=where)]
    events: list[Event] = []
    plan = data.get("tool_plan")
    if isinstance(plan, str) and plan:
        events.append(AssistantMessage(content=plan, where=where.at("tool_plan"),
                                       thinking=True))
    events.extend(_said(data.get("content"), where))
    calls = data.get("tool_calls") or []
    if not isinstance(calls, list):
        raise TranscriptError(path, where, '"tool_calls" must be an array')
    for i, entry in enumerate(calls):
        at = where.at("tool_calls", i)
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(function, dict):
            raise TranscriptError(path, at, 'a Cohere tool call needs a "function" object')
        events.append(named_call(function, optional_id(entry.get("id"), path, at, "id"),
                                 entry, book, at))
    return events


def _is_result(data: Any) -> bool:
    return isinstance(data, dict) and data.get("role") == "tool"


def _with_result(record: Record, text: str, is_error: bool) -> Record:
    data = dict(record.data)
    old = data.get("content")
    if _document_blocks(old):
        data["content"] = [{"type": "document", "document": {"data": text}}]
    elif isinstance(old, list):
        data["content"] = [{"type": "text", "text": text}]
    else:
        data["content"] = text
    return Record(data, record.where, record.position)


def _new_result(call: ToolCall, text: str, is_error: bool) -> Record:
    data: dict[str, Any] = {"role": "tool"}
    if call.id is not None:
        data["tool_call_id"] = call.id
    data["content"] = text
    return Record(data)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Yield the messages with the updated results applied (no error flag: an error is
    written as its text, and noted)."""
    return rewrite_as_items(records, updates, answered, book, read=record_events,
                            follows_call=_is_result, replace=_with_result,
                            new_item=_new_result, marks_errors=False)


def http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """A ``/v2/chat`` call: the request's ``messages`` and the response's ``message`` (a
    streamed response's events joined into it)."""
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return None
    streamed = isinstance(response, ServerEvents) and any(
        isinstance(data, dict) and data.get("type") in _STREAM_EVENTS for _, data in response)
    answered = isinstance(response, dict) and isinstance(response.get("message"), dict) and (
        "finish_reason" in response)
    if not uri_path(uri).endswith(API_PATHS) and not streamed and not answered:
        return None
    asked = envelope_records(request, ("messages",), where.at("request body"))
    at = where.at("response body")
    if isinstance(response, dict) and isinstance(response.get("message"), dict):
        message = {"role": "assistant", **response["message"]}
        return Exchange(asked=asked, answer=[Record(message, at.at("message"))])
    if streamed:
        return Exchange(asked=asked, answer=[Record(_joined(response), at.at("stream"))])
    return Exchange(asked=asked, unread=unread(response, "a Cohere v2 chat message",
                                                       "a Cohere v2 /v2/chat call"))


def _joined(events: ServerEvents) -> dict[str, Any]:
    """The assistant message a Cohere v2 stream spells out."""
    plan: list[str] = []
    content: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[str, Any]] = {}
    for _, data in events:
        if not isinstance(data, dict):
            continue
        kind, index = data.get("type"), data.get("index")
        delta = data.get("delta")
        message = delta.get("message") if isinstance(delta, dict) else None
        if not isinstance(message, dict):
            continue
        if kind == "tool-plan-delta" and isinstance(message.get("tool_plan"), str):
            plan.append(message["tool_plan"])
        piece = message.get("content")
        if kind in ("content-start", "content-delta") and isinstance(
                piece, dict) and isinstance(index, int):
            block = content.setdefault(index, {"type": piece.get("type", "text")})
            for key in ("text", "thinking"):
                if isinstance(piece.get(key), str):
                    block[key] = block.get(key, "") + piece[key]
        call = message.get("tool_calls")
        if kind in ("tool-call-start", "tool-call-delta") and isinstance(
                call, dict) and isinstance(index, int):
            _add_call_piece(calls, index, call)
    joined: dict[str, Any] = {"role": "assistant"}
    if plan:
        joined["tool_plan"] = "".join(plan)
    joined["content"] = [content[i] for i in sorted(content)]
    if calls:
        joined["tool_calls"] = [calls[i] for i in sorted(calls)]
    return joined


def _add_call_piece(calls: dict[int, dict[str, Any]], index: int,
                    piece: dict[str, Any]) -> None:
    call = calls.setdefault(index, {"type": "function",
                                    "function": {"name": "", "arguments": ""}})
    if isinstance(piece.get("id"), str) and piece["id"]:
        call["id"] = piece["id"]
    function = piece.get("function")
    if isinstance(function, dict):
        if isinstance(function.get("name"), str) and function["name"]:
            call["function"]["name"] = function["name"]
        if isinstance(function.get("arguments"), str):
            call["function"]["arguments"] += function["arguments"]


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="cohere",
    title="Cohere v2 chat messages",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events,
                           (CallFields(("function", "name"), ("function", "arguments")),)),
    api=ApiReading(paths=API_PATHS, exchange=http_exchange),
    before=("openai",),  # OpenAI chat reads its messages too, without the tool plan
)
