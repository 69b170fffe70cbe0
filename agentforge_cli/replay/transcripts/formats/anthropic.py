"""Anthropic messages: a JSON array, ``{"messages": [...]}``, or JSONL of messages.

* the system prompt is the document's ``system`` (a string or text blocks, beside its
  ``messages``: read by the container), or a ``system`` message;
* ``content`` is a string or a list of blocks;
* ``text`` blocks are what was said; ``thinking`` blocks are the model's reasoning;
* an assistant ``tool_use`` block (``id``, ``name``, ``input`` object) is a call — its
  ``input`` becomes the argument string as compact JSON text;
* a user ``tool_result`` block (``tool_use_id``, ``content`` string or blocks,
  ``is_error``) answers it; a missing ``is_error`` means false, as the API reads it.

``--update`` replaces the ``content`` (and ``is_error``) of ``tool_result`` blocks and adds
a ``tool_result`` block for each call that had none to the next user message (a new user
message when the next one is not a user's).
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
    rewrite_in_turns,
    update_parts,
)
from agentforge_cli.replay.transcripts.reading.exchanges import (
    Exchange,
    stream_chunks,
    unread,
    uri_path,
    with_system,
)
from agentforge_cli.replay.transcripts.reading.fields import (
    content_text,
    optional_bool,
    optional_id,
    replace_content,
)
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

_OWN_BLOCKS = ("tool_use", "tool_result", "thinking")


def claims(data: Any) -> Claim:
    """A message with a ``tool_use``, ``tool_result`` or ``thinking`` block is Anthropic's
    own. Plain text messages are left to OpenAI's format, which reads them the same way."""
    if (not isinstance(data, dict) or data.get("role") not in ("user", "assistant")
            or not isinstance(data.get("content"), list)):
        return Claim.NO
    own = any(isinstance(block, dict) and block.get("type") in _OWN_BLOCKS
              for block in data["content"])
    return Claim.OWN if own else Claim.NO


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one message, in block order."""
    path, where = book.path, record.where
    if record.blank:
        return []
    data = record.data
    if not isinstance(data, dict):
        raise TranscriptError(path, where, f"expected a message object, got {dumps(data)[:80]}")
    role = data.get("role")
    if role not in ("user", "assistant"):
        if role in ("tool", "function") or "tool_calls" in data:
            raise TranscriptError(path, where, "this is OpenAI's format, not Anthropic's; "
                                  "use --format openai")
        if role == "system":  # not the API's place for it, but some tools write it so
            text = content_text(data.get("content"))
            return [SystemPrompt(content=text, where=where)] if text else []
        raise TranscriptError(path, where, f"unknown role {dumps(role)[:40]} "
                              "(expected user or assistant)")
    if "content" not in data:  # never an empty turn: the text is somewhere else
        raise TranscriptError(path, where, f'a "{role}" message needs "content"; found '
                              f"{record_shape(data)}")
    content = data.get("content")
    message = UserMessage if role == "user" else AssistantMessage
    if content is None or isinstance(content, str):
        return [message(content=content or "", where=where)] if content else []
    if not isinstance(content, list):
        raise TranscriptError(path, where, '"content" must be a string or a list of blocks')
    events: list[Event] = []
    texts: list[str] = []

    def flush() -> None:
        if texts:
            events.append(message(content="\n".join(texts), where=where))
            texts.clear()

    for i, block in enumerate(content):
        at = where.at("content", i)
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(block.get("text") or "")
        elif kind == "thinking" and role == "assistant":
            flush()
            events.append(AssistantMessage(content=str(block.get("thinking") or ""),
                                           where=at, thinking=True))
        elif kind == "tool_use":
            flush()
            events.append(_call(block, book, at))
        elif kind == "tool_result":
            flush()
            result = _result(block, book, at)
            result.part = i
            events.append(result)
    flush()
    return events


def _call(block: dict[str, Any], book: CallBook, where: Place) -> ToolCall:
    name = block.get("name")
    if not isinstance(name, str) or not name:
        raise TranscriptError(book.path, where, 'a tool_use block needs a "name" string')
    call_id = optional_id(block.get("id"), book.path, where, "id")
    arguments = block.get("input", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise TranscriptError(book.path, where, 'a tool_use block\'s "input" must be an '
                              f"object, got {dumps(arguments)[:80]}")
    index = book.call(call_id, where)
    return ToolCall(index=index, id=call_id, name=name, arguments=dumps(arguments), raw=block,
                    where=where)


def _result(block: dict[str, Any], book: CallBook, where: Place) -> ToolResult:
    call_id = optional_id(block.get("tool_use_id"), book.path, where, "tool_use_id")
    is_error = optional_bool(block.get("is_error"), book.path, where, "is_error")
    index = book.result(call_id, where)
    return ToolResult(call_index=index, id=call_id, content=content_text(block.get("content")),
                      is_error=bool(is_error), where=where)


def _result_block(call: ToolCall, text: str, is_error: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result"}
    if call.id is not None:
        block["tool_use_id"] = call.id
    block["content"] = text
    if is_error:
        block["is_error"] = True
    return block


def _apply(record: Record, events: list[Event], updates: Updates) -> Record:
    """Rewrite the recorded ``tool_result`` blocks of one message."""
    return update_parts(record, events, updates, "content", _updated_block)


def _updated_block(block: dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    block = dict(block)
    block["content"] = replace_content(block.get("content"), text)
    if is_error or "is_error" in block:
        block["is_error"] = bool(is_error)
    return block


def _merge(record: Record, waiting: list[dict[str, Any]]) -> Record:
    """Add new ``tool_result`` blocks to a user message, after any it already has."""
    data = dict(record.data)
    content = data.get("content")
    if content is None or isinstance(content, str):
        blocks = list(waiting) + ([{"type": "text", "text": content}] if content else [])
    else:
        blocks = list(content)
        at = 0
        for i, block in enumerate(blocks):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                at = i + 1
        blocks[at:at] = waiting
    data["content"] = blocks
    return Record(data, record.where, record.position)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Yield the messages with the updated results applied; new results join the next
    user message as ``tool_result`` blocks."""
    return rewrite_in_turns(records, updates, answered, book, read=record_events,
                            apply=_apply, answer=_result_block, merge=_merge_user,
                            new_turn=lambda blocks: Record({"role": "user",
                                                            "content": blocks}))


def _merge_user(record: Record, waiting: list[dict[str, Any]]) -> Record | None:
    if isinstance(record.data, dict) and record.data.get("role") == "user":
        return _merge(record, waiting)
    return None


API_PATHS = ("/v1/messages",)


def http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """The call read by :func:`_http_exchange`, with the request's ``system``."""
    return with_system(_http_exchange(request, response, uri, where), request, "system")


def _http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """A Messages API call: the request's ``messages`` and the response's ``content``
    blocks (a streamed response's ``content_block_*`` events joined into them)."""
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return None
    if not uri_path(uri).endswith(API_PATHS) and not _messages_shaped(request["messages"],
                                                                      response):
        return None
    asked = envelope_records(request, ("messages",), where.at("request body"))
    at = where.at("response body")
    if isinstance(response, dict) and isinstance(response.get("content"), list):
        return Exchange(asked=asked, answer=[
            Record({"role": "assistant", "content": response["content"]}, at)])
    chunks = stream_chunks(response)
    if chunks is not None and any(isinstance(c, dict) and str(c.get("type", "")).startswith(
            "content_block") for c in chunks):
        return Exchange(asked=asked, answer=[
            Record({"role": "assistant", "content": _joined_blocks(chunks)}, at.at("stream"))])
    return Exchange(asked=asked, unread=unread(response, "Anthropic content blocks"))


def _messages_shaped(messages: list[Any], response: Any) -> bool:
    """Messages sent to an unknown path are Anthropic's when one holds an Anthropic block
    or the response is a ``content`` list."""
    if isinstance(response, dict) and isinstance(response.get("content"), list):
        return True
    return any(claims(message) == Claim.OWN for message in messages)


def _joined_blocks(chunks: list[Any]) -> list[dict[str, Any]]:
    """The content blocks a stream of Messages API events spells out."""
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, list[str]] = {}
    for chunk in chunks:
        if not isinstance(chunk, dict) or not isinstance(chunk.get("index"), int):
            continue
        index = chunk["index"]
        if chunk.get("type") == "content_block_start" and isinstance(
                chunk.get("content_block"), dict):
            blocks[index] = dict(chunk["content_block"])
        delta = chunk.get("delta")
        block = blocks.get(index)
        if chunk.get("type") != "content_block_delta" or block is None or not isinstance(
                delta, dict):
            continue
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(delta.get("text"), str):
            block["text"] = block.get("text", "") + delta["text"]
        elif kind == "thinking_delta" and isinstance(delta.get("thinking"), str):
            block["thinking"] = block.get("thinking", "") + delta["thinking"]
        elif kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            partial.setdefault(index, []).append(delta["partial_json"])
    for index, pieces in partial.items():
        text = "".join(pieces)
        blocks[index]["input"] = _json_or_text(text) if text.strip() else {}
    return [blocks[i] for i in sorted(blocks)]


def _json_or_text(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="anthropic",
    title="Anthropic messages",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events, (CallFields(("name",), ("input",)),)),
    api=ApiReading(paths=API_PATHS, exchange=http_exchange),
    before=("openai-responses",),  # its plain {"role", "content"} messages are chat's
)
