"""Gemini CLI sessions (``~/.gemini/tmp/<project>/chats/session-*.json``): one JSON
document ``{"sessionId", "projectHash", "startTime", "lastUpdated", "messages": [...]}``,
or its JSONL form (that header on the first line, then a message a line).

* a message is ``{"id", "timestamp", "type", "content", ...}``: ``user`` messages are what
  was said, ``gemini`` messages the model's answer (its ``thoughts`` its reasoning);
  ``info``, ``error`` and ``warning`` messages are the CLI's own and skipped;
* a ``gemini`` message's ``toolCalls`` are its calls, each holding its own result:
  ``{"id", "name", "args", "result": [{"functionResponse": {"response": ...}}],
  "status"}``; the ``response`` object reads as a Gemini ``functionResponse``'s does
  (``{"output": ...}``, ``{"error": ...}``), and ``"status": "error"`` is an error
  result; a call whose ``result`` is missing or ``null`` has no recorded result.

``--update`` writes a call's result where the session keeps it: the
``functionResponse``'s ``response`` (``{"error": text}`` for an error) and the call's
``status``; a call that had no result gets one. ``--rename-tool`` renames the call and
its ``functionResponse``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from agentforge_cli.replay.transcripts.families import naming
from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.formats.gemini import result_value
from agentforge_cli.replay.transcripts.model import (
    AssistantMessage,
    Event,
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
)
from agentforge_cli.replay.transcripts.place import Place
from agentforge_cli.replay.transcripts.reading.calls import CallBook, Updates, named_call
from agentforge_cli.replay.transcripts.reading.fields import optional_id
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["FORMAT", "claims", "record_events", "rewrite"]

_TYPES = ("user", "gemini", "info", "error", "warning")
_RESPONSE_KEYS = ("functionResponse", "function_response")
_VALUE_KEYS = ("output", "result")


def claims(data: Any) -> Claim:
    """The session's header (``sessionId`` and ``projectHash``) or one of its messages
    (a ``type`` of the CLI's with the ``id`` and ``timestamp`` every message has, or
    ``toolCalls``) is Gemini CLI's own."""
    if not isinstance(data, dict) or "role" in data:
        return Claim.NO
    if "sessionId" in data and "projectHash" in data:
        return Claim.OWN
    kind = data.get("type")
    if kind == "gemini" or (isinstance(kind, str) and isinstance(data.get("toolCalls"), list)):
        return Claim.OWN
    if kind in _TYPES and isinstance(data.get("id"), str) and isinstance(
            data.get("timestamp"), str) and "content" in data:
        return Claim.OWN
    return Claim.NO


def _text(content: Any, book: CallBook, where: Place) -> str:
    """A message's ``content``: a string, or Gemini parts whose ``text`` is joined."""
    if content is None or isinstance(content, str):
        return content or ""
    parts = content if isinstance(content, list) else [content]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif not isinstance(part, dict):
            raise TranscriptError(book.path, where, "a message's content must be text or "
                                  f"parts, got {dumps(content)[:80]}")
    return "\n".join(texts)


FAMILY = "a Gemini CLI session"


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one message (none for the header and the CLI's own messages)."""
    if record.blank:
        return []
    with naming(FAMILY):
        return _message_events(record, book)


def _message_events(record: Record, book: CallBook) -> list[Event]:
    data, where = record.data, record.where
    if claims(data) is Claim.NO:
        raise TranscriptError(book.path, where, f"not a message ({record_shape(data)})")
    kind = data.get("type")
    if kind == "user":
        return [UserMessage(content=_text(data.get("content"), book, where.at("content")),
                            where=where)]
    if kind != "gemini" and "toolCalls" not in data:
        return []  # the header, or the CLI's info, error and warning lines
    events: list[Event] = []
    for i, thought in enumerate(_listed(data, "thoughts", book, where)):
        if isinstance(thought, dict):
            shown = ": ".join(str(thought[key]) for key in ("subject", "description")
                              if thought.get(key))
            if shown:
                events.append(AssistantMessage(content=shown, where=where.at("thoughts", i),
                                               thinking=True))
    text = _text(data.get("content"), book, where.at("content"))
    if text:
        events.append(AssistantMessage(content=text, where=where))
    for i, call in enumerate(_listed(data, "toolCalls", book, where)):
        events.extend(_call_events(call, book, where.at("toolCalls", i)))
    return events


def _listed(data: dict[str, Any], key: str, book: CallBook, where: Place) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise TranscriptError(book.path, where.at(key), f'"{key}" must be an array, got '
                              f"{dumps(value)[:80]}")
    return value


def _call_events(call: Any, book: CallBook, where: Place) -> list[Event]:
    """A recorded call and, when it has one, its result."""
    if not isinstance(call, dict):
        raise TranscriptError(book.path, where, f"a tool call must be an object, got "
                              f"{dumps(call)[:80]}")
    args = call.get("args")
    if args is not None and not isinstance(args, dict):
        raise TranscriptError(book.path, where.at("args"), "a tool call's \"args\" must be an "
                              f"object, got {dumps(args)[:80]}")
    call_id = optional_id(call.get("id"), book.path, where, "id")
    made = named_call({"name": call.get("name"), "arguments": args}, call_id, call, book,
                      where)
    if call.get("result") is None:
        return [made]
    text, is_error, at = _result(call, book, where)
    return [made, ToolResult(call_index=book.result(call_id, where), id=call_id,
                             content=text, is_error=is_error, where=at)]


def _result(call: dict[str, Any], book: CallBook, where: Place) -> tuple[str, bool, Place]:
    """The result text of a call's ``result``, whether it is an error, and its place (the
    ``functionResponse`` part's, when it has one)."""
    result, status = call["result"], call.get("status")
    if status is not None and not isinstance(status, str):
        raise TranscriptError(book.path, where.at("status"), '"status" must be a string, '
                              f"got {dumps(status)[:80]}")
    parts = result if isinstance(result, list) else [result]
    for i, part in enumerate(parts):
        answer = next((part[key] for key in _RESPONSE_KEYS if key in part), None) if (
            isinstance(part, dict)) else None
        if answer is not None:
            at = where.at("result", i) if isinstance(result, list) else where.at("result")
            if not isinstance(answer, dict) or "response" not in answer:
                raise TranscriptError(book.path, at, 'a functionResponse needs a "response" '
                                      "object")
            text, flagged = result_value(answer["response"])
            return text, bool(flagged) or status == "error", at
    at = where.at("result")
    return _text(result, book, at), status == "error", at


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """The messages with today's results written into their calls."""
    for record in records:
        events = record_events(record, book)
        indexes = {event.where.path[-1][-1]: event.index for event in events
                   if isinstance(event, ToolCall) and event.index in updates}
        if not indexes:
            yield record
            continue
        calls = list(record.data["toolCalls"])
        for i, index in indexes.items():
            assert isinstance(i, int)  # the call's place ends with its index
            text, is_error = updates[index]
            calls[i] = _with_result(calls[i], text, bool(is_error))
        yield Record({**record.data, "toolCalls": calls}, record.where, record.position)


def _with_result(call: dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    """A call holding today's result: its ``functionResponse`` (or a new one) and its
    ``status``."""
    result = call.get("result")
    parts = list(result) if isinstance(result, list) else []
    at = next((i for i, part in enumerate(parts) if isinstance(part, dict)
               and any(key in part for key in _RESPONSE_KEYS)), None)
    if at is None:
        answer: dict[str, Any] = {"name": call["name"], "response": {}}
        if call.get("id") is not None:
            answer = {"id": call["id"], **answer}
        parts, at, key = [{"functionResponse": answer}], 0, "functionResponse"
    else:
        key = next(key for key in _RESPONSE_KEYS if key in parts[at])
        answer = parts[at][key]
    response = _response(answer.get("response"), text, is_error)
    parts[at] = {**parts[at], key: {**answer, "response": response}}
    status = "error" if is_error else "success"
    return {**call, "result": parts, "status": status}


def _response(old: Any, text: str, is_error: bool) -> dict[str, Any]:
    """The ``response`` written for today's result, as Gemini CLI writes one: ``{"error":
    text}`` or ``{"output": text}`` (a recorded success keeps its key)."""
    if is_error:
        return {"error": text}
    if isinstance(old, dict) and len(old) == 1 and next(iter(old)) in _VALUE_KEYS:
        return {next(iter(old)): text}
    return {"output": text}


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="gemini-cli",
    title="Gemini CLI sessions",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events, (CallFields(("name",), ("args",)),),
                           (("functionResponse", "name"), ("function_response", "name"))),
    before=("agentforge",),  # its user messages are {"type": "user", "content"} lines too
)
