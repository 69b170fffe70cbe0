"""agentforge JSONL: one event a line.

::

    {"type":"user","content":"..."}
    {"type":"tool_call","id":"call_1","name":"queryCustomer","arguments":"{\\"limit\\":5}"}
    {"type":"tool_result","id":"call_1","content":"customer:长路,limit:5","is_error":false}
    {"type":"assistant","content":"..."}

A bare ``{"name": ..., "arguments": ...}`` line (the plain function-call shape) is a
call with no id and, until a result follows, no recorded result. A ``tool_result``
without an id answers the oldest call still waiting that has no id. ``system`` lines are
accepted and skipped; any other ``type`` is an error, and so is a user or assistant line
without a ``content`` string (its text would be somewhere this format does not read it,
as in session logs that wrap each turn in ``"message"``).

``--update`` rewrites the ``content`` and ``is_error`` of result lines (every other key
stays, in its order) and inserts a result line right after each call that had none.
Unchanged lines are written back byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
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
    calls_to_answer,
    named_call,
)
from agentforge_cli.replay.transcripts.reading.fields import optional_bool, optional_id
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

TYPES = ("user", "assistant", "tool_call", "tool_result", "system")


def claims(data: Any) -> Claim:
    """A line of the shape its ``type`` needs and no ``role`` is agentforge's own: user and
    assistant lines with a ``content`` string, a ``tool_call`` with a ``name``, a
    ``tool_result`` with ``content``, a bare ``{"name", "arguments"}`` call. A ``system``
    line is only shared (it says nothing about the file); anything else is not claimed."""
    if not isinstance(data, dict) or "role" in data:
        return Claim.NO
    kind = data.get("type")
    if kind in ("user", "assistant"):
        fits = isinstance(data.get("content"), str)
    elif kind == "tool_call":
        fits = isinstance(data.get("name"), str)
    elif kind == "tool_result":
        fits = "content" in data
    elif kind == "system":
        return Claim.SHARED
    else:
        fits = "type" not in data and isinstance(data.get("name"), str) and "arguments" in data
    return Claim.OWN if fits else Claim.NO


def _text(data: dict[str, Any], path: Path, where: Place) -> str:
    content = data.get("content")
    if content is None:
        # never an empty turn: the text is somewhere this format does not read it
        raise TranscriptError(path, where, f'a "{data["type"]}" line needs "content" (a '
                              f"string); found {record_shape(data)}")
    if not isinstance(content, str):
        raise TranscriptError(path, where, f'"content" must be a string, got {dumps(content)[:80]}')
    return content


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one line (none for a blank or ``system`` line)."""
    data, where = record.data, record.where
    if type(data) is dict:  # hot path: the common shapes of a call and a result line
        kind = data.get("type")
        call_id = data.get("id")
        if type(call_id) is str or call_id is None:
            if kind == "tool_call":
                name, arguments = data.get("name"), data.get("arguments")
                if type(name) is str and name and type(arguments) is str:
                    return [ToolCall(book.call(call_id, where), call_id, name, arguments,
                                     data, where)]
            elif kind == "tool_result":
                content, is_error = data.get("content"), data.get("is_error")
                if type(content) is str and (is_error is None or type(is_error) is bool):
                    return [ToolResult(book.result(call_id, where), call_id, content,
                                       is_error, where)]
    return _record_events(record, book)


def _record_events(record: Record, book: CallBook) -> list[Event]:
    data, where, path = record.data, record.where, book.path
    if record.blank:
        return []
    if not isinstance(data, dict):
        raise TranscriptError(path, where, f"expected a JSON object, got {dumps(data)[:80]}")
    kind = data.get("type")
    if kind is None:
        if isinstance(data.get("name"), str) and "arguments" in data:
            return [named_call(data, None, data, book, where)]
        raise TranscriptError(path, where, 'missing "type" (one of user, assistant, '
                              'tool_call, tool_result) and not a {"name", "arguments"} call; '
                              f"found {record_shape(data)}")
    if kind == "user":
        return [UserMessage(content=_text(data, path, where), where=where)]
    if kind == "assistant":
        return [AssistantMessage(content=_text(data, path, where), where=where)]
    if kind == "system":
        return []
    if kind == "tool_call":
        return [named_call(data, optional_id(data.get("id"), path, where, "id"), data, book,
                           where)]
    if kind == "tool_result":
        call_id = optional_id(data.get("id"), path, where, "id")
        if "content" not in data:
            raise TranscriptError(path, where, 'a tool_result needs "content"')
        content = data["content"]
        text = content if isinstance(content, str) else dumps(content)
        is_error = optional_bool(data.get("is_error"), path, where, "is_error")
        index = book.result(call_id, where)
        return [ToolResult(call_index=index, id=call_id, content=text, is_error=is_error,
                           where=where)]
    raise TranscriptError(path, where, f'unknown "type" {dumps(kind)[:40]} '
                          f"(expected one of {', '.join(TYPES)})")


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Yield the records with the updated results applied (see the module docstring)."""
    for record in records:
        events = record_events(record, book)
        if not events:
            yield record
            continue
        event = events[0]
        if isinstance(event, ToolResult) and event.call_index in updates:
            text, is_error = updates[event.call_index]
            data = dict(record.data)
            data["content"] = text
            data["is_error"] = bool(is_error)
            yield Record(data, record.where, record.position)
            continue
        yield record
        for call in calls_to_answer(events, updates, answered):
            text, is_error = updates[call.index]
            data = {"type": "tool_result"}
            if call.id is not None:
                data["id"] = call.id
            data.update(content=text, is_error=bool(is_error))
            yield Record(data)


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="agentforge",
    title="agentforge JSONL",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events, (CallFields(("name",), ("arguments",)),)),
    before=("claude-code",),  # an event line that also carries session ids is ours
)
