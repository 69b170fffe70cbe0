"""OpenAI Responses items: a JSON array of items, JSONL of items, or a request/response
dump ``{"input": [...], "output": [...]}`` (either array alone too).

* ``{"type": "function_call", "call_id", "name", "arguments"}`` is a call (``arguments``
  a JSON string);
* ``{"type": "function_call_output", "call_id", "output"}`` answers it by ``call_id``
  (``output`` a string or ``input_text`` parts); the format records no error flag;
* ``message`` items (``{"type": "message", "role", "content"}``, or the short
  ``{"role", "content"}``) carry text, as a string or ``input_text``/``output_text``
  parts; ``system`` and ``developer`` messages are the system prompt, as a request's
  ``instructions`` are;
* a ``reasoning`` item's summary is the model's reasoning; the built-in tools' items
  (web search, file search, computer use, MCP, ...) are skipped.

``--update`` replaces the ``output`` of ``function_call_output`` items and inserts one for
each call that had none, after the outputs that already follow its calls. An output has
no error flag: an error result is written as its text (and noted).
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
    with_system,
)
from agentforge_cli.replay.transcripts.reading.fields import optional_id
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["API_PATHS", "FORMAT", "claims", "http_exchange", "item_events", "record_events",
           "rewrite"]

_CALL, _OUTPUT = "function_call", "function_call_output"
_SKIPPED_TYPES = frozenset({
    "web_search_call", "file_search_call", "computer_call", "computer_call_output",
    "code_interpreter_call", "image_generation_call", "local_shell_call",
    "local_shell_call_output", "mcp_list_tools", "mcp_approval_request",
    "mcp_approval_response", "mcp_call", "item_reference", "custom_tool_call",
    "custom_tool_call_output", "compaction"})
_OWN_TYPES = frozenset({_CALL, _OUTPUT, "message", "reasoning"}) | _SKIPPED_TYPES
_TEXT_PARTS = ("input_text", "output_text", "text", "summary_text", "refusal")
_SYSTEM_ROLES = ("system", "developer")


def claims(data: Any) -> Claim:
    """An item with a Responses ``type`` (``function_call``, ``function_call_output``,
    ``message``, ``reasoning``, a built-in tool's item) is this format's own. The short
    ``{"role", "content"}`` message is left to OpenAI chat, which reads it the same way."""
    if not isinstance(data, dict) or data.get("type") not in _OWN_TYPES:
        return Claim.NO
    kind = data["type"]
    if kind == _CALL:
        return Claim.OWN if "name" in data and "call_id" in data else Claim.NO
    if kind == _OUTPUT:
        return Claim.OWN if "output" in data and "call_id" in data else Claim.NO
    if kind == "message":
        return Claim.OWN if "role" in data and "content" in data else Claim.NO
    return Claim.OWN


def parts_text(value: Any, path: Path, where: Place) -> str:
    """The text of ``content`` or ``output``: a string, or text parts joined with newlines
    (any other part is written as compact JSON text)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise TranscriptError(path, where, "expected a string or a list of parts, got "
                              f"{dumps(value)[:80]}")
    texts = []
    for part in value:
        if isinstance(part, dict) and part.get("type") in _TEXT_PARTS:
            text = part.get("text", part.get("refusal"))
            texts.append(text if isinstance(text, str) else dumps(text))
        else:
            texts.append(dumps(part))
    return "\n".join(texts)


def _refuse_chat(data: dict[str, Any], path: Path, where: Place) -> None:
    """A chat message is refused by name rather than read without its calls."""
    if "tool_calls" in data or "function_call" in data or data.get("role") in ("tool",
                                                                               "function"):
        raise TranscriptError(path, where, "this is OpenAI chat's format, not Responses'; "
                              "use --format openai")
    content = data.get("content")
    if isinstance(content, list) and any(
            isinstance(part, dict) and part.get("type") in ("tool_use", "tool_result")
            for part in content):
        raise TranscriptError(path, where, "this is Anthropic's format, not Responses'; "
                              "use --format anthropic")


def item_events(data: Any, where: Place, book: CallBook) -> list[Event]:
    """The events of one Responses item (any decoded JSON value)."""
    path = book.path
    if not isinstance(data, dict):
        raise TranscriptError(path, where, f"expected a Responses item, got {dumps(data)[:80]}")
    kind = data.get("type", "message" if "role" in data else None)
    if kind == _CALL:
        call_id = optional_id(data.get("call_id"), path, where, "call_id")
        return [named_call(data, call_id, data, book, where)]
    if kind == _OUTPUT:
        call_id = optional_id(data.get("call_id"), path, where, "call_id")
        if "output" not in data:
            raise TranscriptError(path, where, 'a function_call_output needs "output"')
        index = book.result(call_id, where)
        return [ToolResult(call_index=index, id=call_id,
                           content=parts_text(data["output"], path, where), is_error=None,
                           where=where)]
    if kind == "message":
        role = data.get("role")
        _refuse_chat(data, path, where)
        if "content" not in data:  # never an empty turn: the text is elsewhere
            raise TranscriptError(path, where, f'a message item needs "content"; found '
                                  f"{record_shape(data)}")
        if role in _SYSTEM_ROLES:
            return _system(data["content"], path, where)
        text = parts_text(data["content"], path, where)
        if role == "user":
            return [UserMessage(content=text, where=where)]
        if role == "assistant":
            return [AssistantMessage(content=text, where=where)] if text else []
        raise TranscriptError(path, where, f"unknown role {dumps(role)[:40]} (expected user, "
                              "assistant, system, developer)")
    if kind == "reasoning":
        summary = data.get("summary") or []
        text = parts_text(summary, path, where) if summary else ""
        return [AssistantMessage(content=text, where=where, thinking=True)] if text else []
    if kind in _SKIPPED_TYPES:
        return []
    raise TranscriptError(path, where, f"not a Responses item ({record_shape(data)}); "
                          "expected a function_call, function_call_output or message")


def _system(content: Any, path: Path, where: Place) -> list[Event]:
    """A system or developer message as the system prompt; none when its text does not
    read (replay passes it over, so it never fails a file)."""
    try:
        text = parts_text(content, path, where)
    except TranscriptError:
        return []
    return [SystemPrompt(content=text, where=where)] if text else []


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one item."""
    if record.blank:
        return []
    return item_events(record.data, record.where, book)


def _new_output(call: ToolCall, text: str, is_error: bool) -> Record:
    data: dict[str, Any] = {"type": _OUTPUT}
    if call.id is not None:
        data["call_id"] = call.id
    data["output"] = text
    return Record(data)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Yield the items with the updated outputs applied."""
    return rewrite_as_items(records, updates, answered, book, read=record_events,
                            follows_call=_is_call_or_output, replace=_with_output,
                            new_item=_new_output, marks_errors=False)


def _is_call_or_output(data: Any) -> bool:
    return isinstance(data, dict) and data.get("type") in (_CALL, _OUTPUT)


def _with_output(record: Record, text: str, is_error: bool) -> Record:
    old = record.data["output"]
    data = dict(record.data)
    data["output"] = [{"type": "input_text", "text": text}] if isinstance(old, list) else text
    return Record(data, record.where, record.position)


API_PATHS = ("/responses",)


def http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """The call read by :func:`_http_exchange`, with the request's ``instructions``."""
    return with_system(_http_exchange(request, response, uri, where), request, "instructions")


def _http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """A Responses call: the request's ``input`` items (a string is one user message) and
    the response's ``output`` items (a streamed response's ``response.completed`` event,
    else its ``response.output_item.done`` items)."""
    if not isinstance(request, dict):
        return None
    items = request.get("input")
    ours = uri_path(uri).endswith(API_PATHS)
    typed = isinstance(items, list) and bool(items) and all(
        isinstance(item, dict) for item in items)
    if not (typed or (ours and isinstance(items, str | list))):
        return None  # an embeddings request's "input" is strings or numbers
    asked = envelope_records(request, ("input",), where.at("request body"))
    previous = request.get("previous_response_id")
    previous = previous if isinstance(previous, str) else None
    at = where.at("response body")
    body = response
    chunks = stream_chunks(response)
    if chunks is not None:
        body = _completed(chunks)
    if isinstance(body, dict) and isinstance(body.get("output"), list):
        answer_id = body.get("id")
        return Exchange(asked=asked, answer=envelope_records(body, ("output",), at),
                        response_id=answer_id if isinstance(answer_id, str) else None,
                        previous_response_id=previous)
    return Exchange(asked=asked, unread=unread(response, "Responses output items"),
                    previous_response_id=previous)


def _completed(chunks: list[Any]) -> dict[str, Any] | None:
    """The response a stream of Responses events ends with."""
    done: list[Any] = []
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        if chunk.get("type") == "response.completed" and isinstance(chunk.get("response"),
                                                                     dict):
            response: dict[str, Any] = chunk["response"]
            return response
        if chunk.get("type") == "response.output_item.done" and isinstance(
                chunk.get("item"), dict):
            done.append(chunk["item"])
    return {"output": done} if done else None


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="openai-responses",
    title="OpenAI Responses items",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events, (CallFields(("name",), ("arguments",)),)),
    api=ApiReading(paths=API_PATHS, exchange=http_exchange),
)
