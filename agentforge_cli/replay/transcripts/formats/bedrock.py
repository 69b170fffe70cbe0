"""AWS Bedrock Converse messages: a JSON array, ``{"messages": [...]}`` (a ``converse``
request), or JSONL of messages; and ``converse`` calls in cassettes.

* a message is ``{"role": "user"|"assistant", "content": [blocks]}``; ``{"text"}`` blocks
  are what was said, ``{"reasoningContent"}`` the model's reasoning;
* an assistant ``{"toolUse": {"toolUseId", "name", "input"}}`` block is a call (``input``
  becomes the argument string as compact JSON text);
* a user ``{"toolResult": {"toolUseId", "content": [...], "status"}}`` block answers it:
  its ``text`` blocks joined, a ``json`` block as compact JSON; ``"status": "error"`` is an
  error result, another status a success, none unknown.

``--update`` replaces the ``content`` (and ``status``) of ``toolResult`` blocks and adds a
``toolResult`` block for each call that had none to the next user message (a new one when
the next is not a user's). A ``converse-stream`` call's response, AWS's binary event stream
(:mod:`.bedrock_stream`), is joined into the message its events spell out; a stream that
ends in an exception is a turn without an answer, as an HTTP error status is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from agentforge_cli.replay.transcripts.files.envelopes import envelope_records
from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.files.records import Record, record_shape
from agentforge_cli.replay.transcripts.format import ApiReading, Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.formats.bedrock_stream import (
    EventMessage,
    EventStreamError,
    decode_event_stream,
)
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
    rewrite_in_turns,
    update_parts,
)
from agentforge_cli.replay.transcripts.reading.exchanges import Exchange, Unreadable, unread
from agentforge_cli.replay.transcripts.reading.fields import optional_id
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = ["API_PATHS", "FORMAT", "claims", "http_exchange", "record_events", "rewrite"]

_OWN_BLOCKS = ("toolUse", "toolResult", "reasoningContent")
API_PATHS = ("/converse", "/converse-stream")


def claims(data: Any) -> Claim:
    """A message with a ``toolUse``, ``toolResult`` or ``reasoningContent`` block is
    Bedrock's own; text-only messages are left to the chat formats, which read them the
    same way."""
    if (not isinstance(data, dict) or data.get("role") not in ("user", "assistant")
            or not isinstance(data.get("content"), list)):
        return Claim.NO
    own = any(isinstance(block, dict) and block.keys() & set(_OWN_BLOCKS)
              for block in data["content"])
    return Claim.OWN if own else Claim.NO


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The events of one message, in block order."""
    path, where, data = book.path, record.where, record.data
    if record.blank:
        return []
    if not isinstance(data, dict) or data.get("role") not in ("user", "assistant"):
        raise TranscriptError(path, where, "expected a Converse message with role user or "
                              f"assistant; found {record_shape(data)}")
    content = data.get("content")
    if not isinstance(content, list):  # never an empty turn: the text is elsewhere
        raise TranscriptError(path, where, f'a Converse message needs a "content" list; '
                              f"found {record_shape(data)}")
    said = UserMessage if data["role"] == "user" else AssistantMessage
    events: list[Event] = []
    for i, block in enumerate(content):
        at = where.at("content", i)
        if not isinstance(block, dict):
            raise TranscriptError(path, at, f"expected a content block, got {dumps(block)[:80]}")
        if "toolUse" in block:
            events.append(_call(block["toolUse"], book, at))
        elif "toolResult" in block:
            result = _result(block["toolResult"], book, at)
            result.part = i
            events.append(result)
        elif isinstance(block.get("text"), str) and block["text"]:
            events.append(said(content=block["text"], where=at))
        elif isinstance(block.get("reasoningContent"), dict):
            text = (block["reasoningContent"].get("reasoningText") or {}).get("text")
            if isinstance(text, str) and text:
                events.append(AssistantMessage(content=text, where=at, thinking=True))
    return events


def _call(value: Any, book: CallBook, where: Place) -> ToolCall:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str) or not value[
            "name"]:
        raise TranscriptError(book.path, where, 'a toolUse block needs a "name" string')
    call_id = optional_id(value.get("toolUseId"), book.path, where, "toolUseId")
    arguments = value.get("input", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise TranscriptError(book.path, where, 'a toolUse block\'s "input" must be an object, '
                              f"got {dumps(arguments)[:80]}")
    index = book.call(call_id, where)
    return ToolCall(index=index, id=call_id, name=value["name"], arguments=dumps(arguments),
                    raw=value, where=where)


def _result(value: Any, book: CallBook, where: Place) -> ToolResult:
    if not isinstance(value, dict):
        raise TranscriptError(book.path, where, '"toolResult" must be an object')
    call_id = optional_id(value.get("toolUseId"), book.path, where, "toolUseId")
    index = book.result(call_id, where)
    status = value.get("status")
    is_error = None if status is None else status == "error"
    return ToolResult(call_index=index, id=call_id, content=_result_text(value.get("content")),
                      is_error=is_error, where=where)


def _result_text(content: Any) -> str:
    """The text a ``toolResult``'s content blocks hold (``text`` joined, ``json`` as JSON)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else dumps(content)
    parts = []
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and "json" in block:
            parts.append(dumps(block["json"]))
        else:
            parts.append(dumps(block))
    return "\n".join(parts)


def _result_block(call: ToolCall, text: str, is_error: bool) -> dict[str, Any]:
    answer: dict[str, Any] = {}
    if call.id is not None:
        answer["toolUseId"] = call.id
    answer["content"] = [{"text": text}]
    answer["status"] = "error" if is_error else "success"
    return {"toolResult": answer}


def _updated_block(block: dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    answer = {**block["toolResult"], "content": [{"text": text}]}
    if is_error or "status" in answer:
        answer["status"] = "error" if is_error else "success"
    return {**block, "toolResult": answer}


def _merge_user(record: Record, waiting: list[dict[str, Any]]) -> Record | None:
    """New ``toolResult`` blocks after the user message's own."""
    if not isinstance(record.data, dict) or record.data.get("role") != "user":
        return None
    blocks = list(record.data["content"])
    at = max((i + 1 for i, block in enumerate(blocks)
              if isinstance(block, dict) and "toolResult" in block), default=0)
    blocks[at:at] = waiting
    return Record({**record.data, "content": blocks}, record.where, record.position)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Yield the messages with the updated results applied; new results join the next
    user message as ``toolResult`` blocks."""
    return rewrite_in_turns(
        records, updates, answered, book, read=record_events,
        apply=lambda record, events, updates: update_parts(record, events, updates,
                                                           "content", _updated_block),
        answer=_result_block, merge=_merge_user,
        new_turn=lambda blocks: Record({"role": "user", "content": blocks}))


def http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """A ``converse`` call: the request's ``messages`` and the response's
    ``output.message``; or a ``converse-stream`` call, whose response is an AWS event
    stream: its bytes (:class:`Unreadable` binary data, or ``bytes``) or its decoded
    messages (a list of :class:`~.bedrock_stream.EventMessage`)."""
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return None
    output = response.get("output") if isinstance(response, dict) else None
    message = output.get("message") if isinstance(output, dict) else None
    own = isinstance(message, dict) or any(claims(m) == Claim.OWN for m in request["messages"])
    if not own and not uri.split("?", 1)[0].endswith(API_PATHS):
        return None
    asked = envelope_records(request, ("messages",), where.at("request body"))
    if isinstance(message, dict):
        at = where.at("response body").at("output", "message")
        return Exchange(asked=asked, answer=[Record({"role": "assistant", **message}, at)])
    stream = _event_stream(response)
    if isinstance(stream, list):
        return _streamed(asked, stream, where.at("response body").at("stream"))
    return Exchange(asked=asked, unread=stream or unread(response, "a Converse output message",
                                                           "an AWS Bedrock Converse call"))


def _event_stream(response: Any) -> list[EventMessage] | str | None:
    """The messages of a response that is an AWS event stream; what is wrong with it
    when it does not decode; ``None`` when it is no binary body."""
    if isinstance(response, list) and all(isinstance(m, EventMessage) for m in response):
        return response
    data = response.data if isinstance(response, Unreadable) else response
    if not isinstance(data, bytes) or not data:
        return None
    try:
        return decode_event_stream(data)
    except EventStreamError as exc:
        return f"an AWS Bedrock ConverseStream event stream that does not decode: {exc}"


def _streamed(asked: list[Record], stream: list[EventMessage], at: Place) -> Exchange:
    """The assistant message a ConverseStream's events spell out (``messageStart``,
    ``contentBlockStart``/``Delta``/``Stop``, ``messageStop``); a stream that holds an
    exception (a throttling, a model error) is a turn without an answer."""
    blocks: dict[int, dict[str, Any]] = {}
    inputs: dict[int, list[str]] = {}
    started = False
    for event in stream:
        if event.message_type != "event":
            return Exchange(asked=asked)
        try:
            data = event.json()
        except EventStreamError as exc:
            return Exchange(asked=asked, unread=f"an AWS Bedrock ConverseStream event "
                                                f"stream: {exc}")
        if not isinstance(data, dict):
            continue
        started = started or event.name.startswith(("messageStart", "contentBlock"))
        index = data.get("contentBlockIndex")
        if not isinstance(index, int):
            continue
        start = data.get("start")
        if event.name == "contentBlockStart" and isinstance(start, dict) and isinstance(
                start.get("toolUse"), dict):
            blocks[index] = {"toolUse": {**start["toolUse"]}}
            inputs[index] = []
        delta = data.get("delta")
        if event.name == "contentBlockDelta" and isinstance(delta, dict):
            _add_delta(blocks.setdefault(index, {}), inputs, index, delta)
    if not started:
        return Exchange(asked=asked, unread="an AWS event stream whose events are not a "
                                            "Converse output message")
    for index, pieces in inputs.items():
        if "toolUse" not in blocks.get(index, {}):
            continue  # input pieces of a block never started: nothing to call
        text = "".join(pieces)
        try:
            blocks[index]["toolUse"]["input"] = json.loads(text) if text.strip() else {}
        except ValueError:
            blocks[index]["toolUse"]["input"] = text  # refused by the reading, by place
    content = [blocks[i] for i in sorted(blocks) if blocks[i]]
    return Exchange(asked=asked, answer=[Record({"role": "assistant", "content": content},
                                                at)])


def _add_delta(block: dict[str, Any], inputs: dict[int, list[str]], index: int,
               delta: dict[str, Any]) -> None:
    if isinstance(delta.get("text"), str):
        block["text"] = block.get("text", "") + delta["text"]
    tool_use = delta.get("toolUse")
    if isinstance(tool_use, dict) and isinstance(tool_use.get("input"), str):
        inputs.setdefault(index, []).append(tool_use["input"])
    reasoning = delta.get("reasoningContent")
    if isinstance(reasoning, dict) and isinstance(reasoning.get("text"), str):
        said = block.setdefault("reasoningContent", {"reasoningText": {"text": ""}})
        said["reasoningText"]["text"] += reasoning["text"]


FORMAT: TranscriptFormat[CallBook] = TranscriptFormat(
    name="bedrock",
    title="AWS Bedrock Converse messages",
    claims=claims,
    start=CallBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events, (CallFields(("name",), ("input",)),)),
    api=ApiReading(paths=API_PATHS, exchange=http_exchange),
)
