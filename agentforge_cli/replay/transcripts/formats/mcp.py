"""MCP sessions: JSON-RPC 2.0 messages, one a JSONL line or in a JSON array.

* a ``tools/call`` request (``{"jsonrpc": "2.0", "id", "method": "tools/call", "params":
  {"name", "arguments"}}``) is a call; its response, paired by ``id``, is the result:
  the ``result.content`` blocks one after another as an MCP target's result reads
  (text as is; an image as ``[image/png, 4 035 bytes, sha256 1a2b3c4d]``, see
  :mod:`~agentforge_cli.core.run.content_blocks`), ``result.isError`` as the error flag; a
  JSON-RPC ``error`` response is an error result worded as an MCP target's failed call
  is (``Error executing tool NAME: MESSAGE``), so replay compares it with the server's
  answer today;
* every other message (``initialize``, ``tools/list``, notifications and their responses)
  is skipped;
* a message may be wrapped as recorders write it, with its direction and time:
  ``{"direction": "...", "timestamp": "...", "message": {...}}`` (the message under
  ``message``, ``payload`` or ``data``).

``--update`` writes the result into the response (``content`` as one text block and
``isError``; a recorded ``structuredContent`` is dropped, it would be stale) and adds a
response right after each call that had none (wrapped under the same key as the request,
without its other fields).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.core.run.content_blocks import blocks_text
from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.model import Event, ToolResult, TranscriptError
from agentforge_cli.replay.transcripts.place import Place
from agentforge_cli.replay.transcripts.reading.calls import (
    CallBook,
    Updates,
    calls_to_answer,
    named_call,
)
from agentforge_cli.replay.transcripts.reading.fields import content_text, optional_bool
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["FORMAT", "McpBook", "claims", "message_events", "record_events", "rewrite"]

_WRAPPERS = ("message", "payload", "data")


def _is_jsonrpc(data: Any) -> bool:
    return isinstance(data, dict) and data.get("jsonrpc") == "2.0" and (
        "method" in data or "result" in data or "error" in data)


def unwrap(data: Any) -> tuple[Any, str | None]:
    """The JSON-RPC message of a record and the wrapper key it sat under (``None`` when
    it is not wrapped)."""
    if isinstance(data, dict) and "jsonrpc" not in data:
        for key in _WRAPPERS:
            if _is_jsonrpc(data.get(key)):
                return data[key], key
    return data, None


def claims(data: Any) -> Claim:
    """A JSON-RPC 2.0 message (``"jsonrpc": "2.0"`` with a ``method``, ``result`` or
    ``error``), bare or wrapped, is MCP's own."""
    return Claim.OWN if _is_jsonrpc(unwrap(data)[0]) else Claim.NO


class McpBook(CallBook):
    """The state of reading one file: the ids of the ``tools/call`` requests waiting for
    a response, and the tool each calls (only their responses are results; other
    requests' ids are not calls)."""

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.pending: dict[str, str] = {}


def _id_text(value: Any, book: McpBook, where: Place) -> str:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise TranscriptError(book.path, where, 'a JSON-RPC "id" must be a string or a number, '
                          f"got {dumps(value)[:40]}")


def message_events(data: Any, where: Place, book: McpBook) -> list[Event]:
    """The events of one JSON-RPC message (any decoded JSON value, bare or wrapped)."""
    message, _ = unwrap(data)
    if not _is_jsonrpc(message):
        raise TranscriptError(book.path, where, "not a JSON-RPC 2.0 message "
                              f"({record_shape(data)})")
    pending = book.pending
    if message.get("method") == "tools/call":
        if "id" not in message:
            raise TranscriptError(book.path, where, 'a tools/call request needs an "id"')
        call_id = _id_text(message["id"], book, where)
        params = message.get("params")
        if not isinstance(params, dict):
            raise TranscriptError(book.path, where, 'a tools/call request needs "params"')
        call = named_call(params, call_id, message, book, where)
        pending[call_id] = call.name
        return [call]
    if "method" in message or message.get("id") is None:
        return []  # another request, a notification, or an error about no request
    call_id = _id_text(message["id"], book, where)
    if call_id not in pending:
        return []  # the response to another request
    name = pending.pop(call_id)
    index = book.result(call_id, where)
    if "error" in message:
        error = message["error"]
        text = error.get("message") if isinstance(error, dict) else None
        said = text if isinstance(text, str) else dumps(error)
        return [ToolResult(call_index=index, id=call_id,
                           content=f"Error executing tool {name}: {said}",
                           is_error=True, where=where)]
    result = message["result"]
    if not isinstance(result, dict) or "content" not in result:
        raise TranscriptError(book.path, where, 'a tools/call result needs "content"; found '
                              f"{record_shape(result)}")
    is_error = optional_bool(result.get("isError"), book.path, where, "isError")
    return [ToolResult(call_index=index, id=call_id, content=_result_text(result["content"]),
                       is_error=bool(is_error), where=where)]


def _result_text(content: Any) -> str:
    """A ``tools/call`` result's text: its blocks rendered as an MCP target's result is
    (:mod:`~agentforge_cli.core.run.content_blocks`), so the two compare block by block."""
    if isinstance(content, list) and all(isinstance(block, dict) for block in content):
        return blocks_text(content)
    return content_text(content)


def record_events(record: Record, book: McpBook) -> list[Event]:
    """The events of one message."""
    if record.blank:
        return []
    return message_events(record.data, record.where, book)


def _response(message_id: Any, text: str, is_error: bool, old: dict[str, Any] | None
              ) -> dict[str, Any]:
    result = {k: v for k, v in (old or {}).items() if k != "structuredContent"}
    result["content"] = [{"type": "text", "text": text}]
    result["isError"] = is_error
    return {"jsonrpc": "2.0", "id": message_id, "result": result}


def _wrapped(record: Record, message: dict[str, Any], key: str | None) -> Record:
    data = message if key is None else {**record.data, key: message}
    return Record(data, record.where, record.position)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: McpBook) -> Iterator[Record]:
    """Yield the messages with the updated results written into the responses."""
    for record in records:
        if record.blank:
            yield record
            continue
        events = record_events(record, book)
        message, key = unwrap(record.data)
        result = next((e for e in events if isinstance(e, ToolResult)), None)
        if result is not None and result.call_index in updates:
            text, is_error = updates[result.call_index]
            old = message.get("result")
            new = _response(message["id"], text, bool(is_error),
                             old if isinstance(old, dict) else None)
            rest = {k: v for k, v in message.items() if k not in ("result", "error")}
            yield _wrapped(record, {**rest, **new}, key)
            continue
        yield record
        for call in calls_to_answer(events, updates, answered):
            text, is_error = updates[call.index]
            response = _response(message["id"], text, bool(is_error), None)
            yield Record(response if key is None else {key: response})


FORMAT: TranscriptFormat[McpBook] = TranscriptFormat(
    name="mcp",
    title="MCP JSON-RPC messages",
    claims=claims,
    start=McpBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events,
                           (CallFields(("params", "name"), ("params", "arguments")),)),
)
