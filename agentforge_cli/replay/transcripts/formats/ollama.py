"""Ollama chat messages (its native ``/api/chat``): a JSON array, ``{"messages": [...]}``
(a chat request), or JSONL of messages; and ``/api/chat`` calls in cassettes, answered in
JSON or streamed as JSON lines.

* ``user`` messages carry ``content`` (a string; ``images`` are not read);
* an ``assistant`` message's ``thinking`` is the model's reasoning, its ``content`` what it
  said, and its ``tool_calls[]`` the calls: ``{"function": {"name", "arguments"}}`` with
  ``arguments`` a JSON *object* (recent servers add an ``id`` and ``function.index``);
* a ``tool`` message answers a call: the one its ``tool_call_id`` names, else the oldest
  waiting call of its ``tool_name``, else the oldest waiting call. Its ``content`` is the
  result; the format records no error flag;
* a ``system`` message is the system prompt.

A message is told from OpenAI chat's by what only Ollama writes: a call without a
``type`` whose ``arguments`` is an object, or a tool message's ``tool_name``.
``--update`` replaces a tool message's ``content`` and inserts a tool message (with its
``tool_name``) for each call that had none, after the tool messages that follow its call.

A streamed response is one JSON object a line, each with a piece of the ``message``
(text and thinking in pieces, each call whole), the last ``"done": true``; a line with an
``error`` ends the turn without an answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.files.envelopes import envelope_records
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
    rewrite_as_items,
)
from agentforge_cli.replay.transcripts.reading.exchanges import (
    Exchange,
    stream_chunks,
    unread,
    uri_path,
)
from agentforge_cli.replay.transcripts.reading.fields import (
    arguments_text,
    content_text,
    optional_id,
)
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["API_PATHS", "FORMAT", "OllamaBook", "claims", "http_exchange", "record_events",
           "rewrite"]

API_PATHS = ("/api/chat",)
_ROLES = ("user", "assistant", "tool", "system")


def _ollama_call(entry: Any) -> bool:
    function = entry.get("function") if isinstance(entry, dict) else None
    return "type" not in entry and isinstance(function, dict) and isinstance(
        function.get("arguments"), dict)


def claims(data: Any) -> Claim:
    """An assistant message whose calls have object ``arguments`` and no ``type``, or a
    tool message with a ``tool_name``, is Ollama's own; any other message is left to
    OpenAI chat, which reads it the same way."""
    if not isinstance(data, dict) or data.get("role") not in _ROLES:
        return Claim.NO
    calls = data.get("tool_calls")
    if data["role"] == "assistant" and isinstance(calls, list) and any(
            _ollama_call(entry) for entry in calls):
        return Claim.OWN
    if data["role"] == "tool" and isinstance(data.get("tool_name"), str):
        return Claim.OWN
    return Claim.NO


class OllamaBook(CallBook):
    """The state of reading one file: the waiting calls' names, so that a tool message
    pairs by ``tool_name`` (every call is registered under a key: its id, or one made up
    for it)."""

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.named: dict[int, tuple[str, str]] = {}
        """A waiting call's index -> its name and the key it is registered under."""

    def key(self, name: str, call_id: str | None) -> str:
        """The key the next call, of ``name``, is registered under (its id, or one made
        up)."""
        key = call_id if call_id is not None else f"\0ollama#{self.count}"
        self.named[self.count] = (name, key)
        return key

    def answer(self, call_id: str | None, tool_name: str | None, where: Place) -> int:
        """The index of the call a tool message answers."""
        key = call_id
        if key is None and tool_name is not None:
            key = next((k for name, k in self.named.values() if name == tool_name), None)
        index = self.result(key, where)
        self.named.pop(index, None)
        return index


def record_events(record: Record, book: OllamaBook) -> list[Event]:
    """The events of one message."""
    path, where, data = book.path, record.where, record.data
    if record.blank:
        return []
    if not isinstance(data, dict) or data.get("role") not in _ROLES:
        raise TranscriptError(path, where, "expected an Ollama chat message with role user, "
                              f"assistant, tool or system; found {record_shape(data)}")
    role = data["role"]
    if role == "system":
        text = content_text(data.get("content"))
        return [SystemPrompt(content=text, where=where)] if text else []
    if role == "user":
        return [UserMessage(content=content_text(data.get("content")), where=where)]
    if role == "tool":
        call_id = optional_id(data.get("tool_call_id"), path, where, "tool_call_id")
        name = data.get("tool_name")
        index = book.answer(call_id, name if isinstance(name, str) else None, where)
        return [ToolResult(call_index=index, id=call_id,
                           content=content_text(data.get("content")), is_error=None,
                           where=where)]
    events: list[Event] = []
    thinking = data.get("thinking")
    if isinstance(thinking, str) and thinking:
        events.append(AssistantMessage(content=thinking, where=where.at("thinking"),
                                       thinking=True))
    text = content_text(data.get("content"))
    if text:
        events.append(AssistantMessage(content=text, where=where))
    calls = data.get("tool_calls") or []
    if not isinstance(calls, list):
        raise TranscriptError(path, where, '"tool_calls" must be an array')
    for i, entry in enumerate(calls):
        at = where.at("tool_calls", i)
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise TranscriptError(path, at, 'an Ollama tool call needs a "function" object '
                                  'with a "name"')
        call_id = optional_id(entry.get("id"), path, at, "id")
        name = function["name"]
        arguments = arguments_text(function.get("arguments"), path, at)
        index = book.call(book.key(name, call_id), at)
        events.append(ToolCall(index=index, id=call_id, name=name, arguments=arguments,
                               raw=entry, where=at))
    return events


def _is_result(data: Any) -> bool:
    return isinstance(data, dict) and data.get("role") == "tool"


def _with_result(record: Record, text: str, is_error: bool) -> Record:
    return Record({**record.data, "content": text}, record.where, record.position)


def _new_result(call: ToolCall, text: str, is_error: bool) -> Record:
    data: dict[str, Any] = {"role": "tool", "content": text, "tool_name": call.name}
    if call.id is not None:
        data["tool_call_id"] = call.id
    return Record(data)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: OllamaBook) -> Iterator[Record]:
    """Yield the messages with the updated results applied (no error flag: an error is
    written as its text, and noted)."""
    return rewrite_as_items(records, updates, answered, book, read=record_events,
                            follows_call=_is_result, replace=_with_result,
                            new_item=_new_result, marks_errors=False)


def http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """An ``/api/chat`` call: the request's ``messages`` and the response's ``message`` (a
    streamed response's lines joined into it)."""
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return None
    chunks = stream_chunks(response)
    pieces = [response] if chunks is None else chunks
    ours = any(isinstance(p, dict) and isinstance(p.get("message"), dict) and "done" in p
               for p in pieces)
    if not uri_path(uri).endswith(API_PATHS) and not ours:
        return None
    asked = envelope_records(request, ("messages",), where.at("request body"))
    if any(isinstance(p, dict) and "error" in p for p in pieces):
        return Exchange(asked=asked)  # the server failed the turn: no answer
    if not ours:
        return Exchange(asked=asked, unread=unread(response, "an Ollama chat message",
                                                       "an Ollama /api/chat call"))
    at = where.at("response body")
    if chunks is None:
        return Exchange(asked=asked, answer=[Record({"role": "assistant",
                                                     **response["message"]},
                                                    at.at("message"))])
    return Exchange(asked=asked, answer=[Record(_joined(pieces), at.at("stream"))])


def _joined(chunks: list[Any]) -> dict[str, Any]:
    """The assistant message a stream of ``/api/chat`` lines spells out."""
    text: list[str] = []
    thinking: list[str] = []
    calls: list[Any] = []
    for chunk in chunks:
        message = chunk.get("message") if isinstance(chunk, dict) else None
        if not isinstance(message, dict):
            continue
        if isinstance(message.get("content"), str):
            text.append(message["content"])
        if isinstance(message.get("thinking"), str):
            thinking.append(message["thinking"])
        if isinstance(message.get("tool_calls"), list):
            calls.extend(message["tool_calls"])
    joined: dict[str, Any] = {"role": "assistant", "content": "".join(text)}
    if thinking:
        joined["thinking"] = "".join(thinking)
    if calls:
        joined["tool_calls"] = calls
    return joined


FORMAT: TranscriptFormat[OllamaBook] = TranscriptFormat(
    name="ollama",
    title="Ollama chat messages",
    claims=claims,
    start=OllamaBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events,
                           (CallFields(("function", "name"), ("function", "arguments")),),
                           (("tool_name",),)),  # a tool message naming its tool
    api=ApiReading(paths=API_PATHS, exchange=http_exchange),
    before=("openai",),  # OpenAI chat reads its messages too, without the tool names
)
