"""OpenAI chat messages: a JSON array, ``{"messages": [...]}``, or JSONL of messages.

* ``user`` / ``assistant`` messages carry text ``content`` (a string or text parts);
* an assistant message's ``tool_calls[]`` are the calls:
  ``{"id", "type": "function", "function": {"name", "arguments"}}`` where ``arguments``
  is a JSON *string*; the legacy ``function_call: {"name", "arguments"}`` is read too;
* ``role: tool`` messages answer them by ``tool_call_id`` (legacy ``role: function``
  messages answer the oldest call waiting); the format records no error flag;
* ``system`` and ``developer`` messages are the system prompt (a ``SystemPrompt``).

``--update`` replaces the ``content`` of tool messages and inserts a tool message for each
call that had none, after the tool messages that already follow its assistant message.
A tool message has no error flag: an error result is written as its text (and noted, see
:attr:`~agentforge_cli.replay.transcripts.reading.calls.CallBook.unmarked`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
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
    stream_chunks,
    unread,
    uri_path,
)
from agentforge_cli.replay.transcripts.reading.fields import (
    content_text,
    optional_id,
    replace_content,
)
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

_SYSTEM = ("system", "developer")
_TEXT_ROLES = ("user", "assistant", *_SYSTEM)
_RESULT_ROLES = ("tool", "function")


def claims(data: Any) -> Claim:
    """A ``tool``/``function`` message or one with ``tool_calls``/``function_call`` (not
    ``null``: SDK dumps write ``"tool_calls": null`` on every message) is OpenAI's own; a
    user, assistant, system or developer message with ``content`` is one it reads too
    (plain text chat reads the same in both chat formats). A message whose text is
    elsewhere (Gemini's ``parts``) is not claimed."""
    if not isinstance(data, dict):
        return Claim.NO
    if data.get("role") in _RESULT_ROLES or isinstance(data.get("tool_calls"), list) or (
            data.get("function_call") is not None):
        return Claim.OWN
    if data.get("role") in _TEXT_ROLES and "content" in data and "parts" not in data:
        return Claim.SHARED
    return Claim.NO


def _message(record: Record, path: Path) -> dict[str, Any]:
    data = record.data
    if not isinstance(data, dict):
        raise TranscriptError(path, record.where,
                              f"expected a message object, got {dumps(data)[:80]}")
    if not isinstance(data.get("role"), str):
        raise TranscriptError(path, record.where, 'not a chat message: no "role"')
    if "content" not in data and not ("tool_calls" in data or "function_call" in data):
        # never an empty turn: the text is somewhere this format does not read it
        found = ('"parts" (Gemini\'s format, not OpenAI\'s)' if "parts" in data
                 else record_shape(data))
        raise TranscriptError(path, record.where, f'a "{data["role"]}" message needs '
                              f'"content"; found {found}')
    return data


def _blocks_check(content: Any, path: Path, where: Place) -> None:
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result"):
                raise TranscriptError(path, where, f'a "{block["type"]}" block is Anthropic\'s '
                                      "format, not OpenAI's; use --format anthropic")


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one message."""
    path, where = book.path, record.where
    if record.blank:
        return []
    data = _message(record, path)
    role = data["role"]
    content = data.get("content")
    _blocks_check(content, path, where)
    if role in _SYSTEM:
        text = content_text(content)
        return [SystemPrompt(content=text, where=where)] if text else []
    if role == "user":
        return [UserMessage(content=content_text(content), where=where)]
    if role == "assistant":
        events: list[Event] = []
        text = content_text(content)
        if text:
            events.append(AssistantMessage(content=text, where=where))
        calls = data.get("tool_calls") or []
        if not isinstance(calls, list):
            raise TranscriptError(path, where, '"tool_calls" must be an array')
        for i, entry in enumerate(calls):
            at = where.at("tool_calls", i)
            function = entry.get("function") if isinstance(entry, dict) else None
            if not isinstance(function, dict):
                raise TranscriptError(path, at, 'a tool call needs a "function" object')
            events.append(named_call(function, optional_id(entry.get("id"), path, at, "id"),
                                     entry, book, at))
        legacy = data.get("function_call")
        if legacy is not None:
            if not isinstance(legacy, dict):
                raise TranscriptError(path, where, '"function_call" must be an object')
            events.append(named_call(legacy, None, legacy, book, where))
        return events
    if role in _RESULT_ROLES:
        call_id = (optional_id(data.get("tool_call_id"), path, where, "tool_call_id")
                   if role == "tool" else None)
        index = book.result(call_id, where)
        return [ToolResult(call_index=index, id=call_id, content=content_text(content),
                           is_error=None, where=where)]
    raise TranscriptError(path, where, f"unknown role {dumps(role)[:40]} (expected user, "
                          "assistant, tool, system)")


def _new_result(call: ToolCall, text: str, is_error: bool) -> Record:
    if call.id is None and isinstance(call.raw, dict) and "function" not in call.raw \
            and call.raw.get("name") == call.name and "type" not in call.raw:
        return Record({"role": "function", "name": call.name, "content": text})
    data: dict[str, Any] = {"role": "tool"}
    if call.id is not None:
        data["tool_call_id"] = call.id
    data["content"] = text
    return Record(data)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Yield the messages with the updated results applied."""
    return rewrite_as_items(records, updates, answered, book, read=record_events,
                            follows_call=_is_result, replace=_with_result,
                            new_item=_new_result, marks_errors=False)


def _is_result(data: Any) -> bool:
    return isinstance(data, dict) and data.get("role") in _RESULT_ROLES


def _with_result(record: Record, text: str, is_error: bool) -> Record:
    data = dict(record.data)
    data["content"] = replace_content(data.get("content"), text)
    return Record(data, record.where, record.position)


API_PATHS = ("/chat/completions",)
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking"})


def http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """A chat completions call: the request's ``messages`` and the response's
    ``choices[0].message`` (a streamed response's ``delta`` pieces joined into it)."""
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return None
    ours = uri_path(uri).endswith(API_PATHS)
    if not ours and not _chat_shaped(request["messages"], response):
        return None
    asked = envelope_records(request, ("messages",), where.at("request body"))
    at = where.at("response body")
    if isinstance(response, dict) and isinstance(response.get("choices"), list):
        choices = response["choices"]
        message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
        answer = [Record(message, at.at("choices", 0, "message"))] if message else []
        return Exchange(asked=asked, answer=answer)
    chunks = stream_chunks(response)
    if chunks is not None and any(isinstance(c, dict) and "choices" in c for c in chunks):
        return Exchange(asked=asked, answer=[Record(_joined_deltas(chunks), at.at("stream"))])
    return Exchange(asked=asked, unread=unread(response, "chat completion choices"))


def _chat_shaped(messages: list[Any], response: Any) -> bool:
    """Chat messages sent to an unknown path are OpenAI's when every content part is typed
    and none is an Anthropic block, and the response is not another API's (Anthropic's
    ``content`` list, Bedrock's ``output``)."""
    if isinstance(response, dict) and (isinstance(response.get("content"), list)
                                       or isinstance(response.get("output"), dict)):
        return False
    return not any(
        isinstance(message, dict) and isinstance(message.get("content"), list)
        and any(not isinstance(block, dict) or block.get("type") in _ANTHROPIC_BLOCKS
                or "type" not in block for block in message["content"])
        for message in messages)


def _joined_deltas(chunks: list[Any]) -> dict[str, Any]:
    """The assistant message a stream of chat completion chunks spells out."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                continue
            if isinstance(delta.get("content"), str):
                text.append(delta["content"])
            pieces = delta.get("tool_calls")
            for piece in pieces if isinstance(pieces, list) else ():
                if not isinstance(piece, dict):
                    continue
                position = piece.get("index")
                call = calls.setdefault(position if isinstance(position, int) else len(calls),
                                        {"type": "function",
                                         "function": {"name": "", "arguments": ""}})
                if isinstance(piece.get("id"), str) and piece["id"]:
                    call["id"] = piece["id"]
                function = piece.get("function")
                if isinstance(function, dict):
                    name = function.get("name")
                    # OpenAI sends the name once; some providers repeat it in every piece
                    if isinstance(name, str) and name != call["function"]["name"]:
                        call["function"]["name"] += name
                    if isinstance(function.get("arguments"), str):
                        call["function"]["arguments"] += function["arguments"]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="openai",
    title="OpenAI chat messages",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events,
                           (CallFields(("function", "name"), ("function", "arguments")),
                            CallFields(("name",), ("arguments",))),  # the legacy function_call
                           (("name",),)),  # a tool (or function) message naming its tool
    api=ApiReading(paths=API_PATHS, exchange=http_exchange),
    before=("anthropic", "openai-responses"),  # a mixed message is refused by name here
)
