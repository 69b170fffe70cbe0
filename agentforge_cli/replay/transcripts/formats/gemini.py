"""Gemini contents: a JSON array of ``Content`` objects, ``{"contents": [...]}`` (a
``generateContent`` request), or JSONL of contents.

* a content is ``{"role": "user"|"model", "parts": [...]}``; ``text`` parts are what was
  said (a ``thought: true`` part is the model's reasoning); the system prompt is the
  document's ``systemInstruction`` (beside its ``contents``: read by the container);
* a model ``functionCall`` part (``name``, ``args`` object, optional ``id``) is a call —
  ``args`` becomes the argument string as compact JSON text;
* a ``functionResponse`` part (``name``, ``response`` object, optional ``id``) answers the
  call with the same ``id``; without ids, the calls of each name are answered in order;
* the recorded ``response`` object maps to our result text as the SDKs write it:
  ``{"result": value}`` or ``{"output": value}`` is that value (a string as is, anything
  else as compact JSON), ``{"error": value}`` is an error result; any other object is
  the result as a whole, compact JSON (compare it with ``--match json``).

``--update`` replaces the ``response`` of ``functionResponse`` parts (keeping its
``result``/``output`` key; an error is written as ``{"error": text}``, a JSON object
result of a whole-object response as that object) and adds a ``functionResponse`` part
for each call that had none to the next user content (a new one when there is none).
"""

from __future__ import annotations

import json
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
    with_system,
)
from agentforge_cli.replay.transcripts.reading.fields import optional_id
from agentforge_cli.replay.transcripts.writing.recorded_calls import CallFields, call_migration

__all__ = [
    "API_PATHS",
    "FORMAT",
    "GeminiBook",
    "claims",
    "content_events",
    "http_exchange",
    "record_events",
    "rewrite",
]

_ROLES = ("user", "model", "function", "tool")
_VALUE_KEYS = ("result", "output", "return_value", "content")
_CALL_KEYS = ("functionCall", "function_call")
_RESPONSE_KEYS = ("functionResponse", "function_response")
"""A part's call or response, camelCase as the REST API writes it, or snake_case as
google-genai's ``model_dump()`` does."""


def claims(data: Any) -> Claim:
    """A content with a ``parts`` array and a Gemini role (or parts that call or answer a
    function) is Gemini's own: no other format keeps its text in ``parts``."""
    if not isinstance(data, dict) or not isinstance(data.get("parts"), list):
        return Claim.NO
    if data.get("role") in _ROLES:
        return Claim.OWN
    if "role" not in data and any(
            isinstance(part, dict) and part.keys() & {"text", *_CALL_KEYS, *_RESPONSE_KEYS}
            for part in data["parts"]):
        return Claim.OWN
    return Claim.NO


class GeminiBook(CallBook):
    """The state of reading one file: calls without ids are paired with their responses
    in order per name (name -> [calls, responses] seen)."""

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.unnamed: dict[str, list[int]] = {}


def _pairing_key(book: GeminiBook, name: str, call_id: str | None, answer: bool) -> str:
    """The key the book pairs a call and its response by: the id, else the name and the
    call's rank among that name's calls."""
    if call_id is not None:
        return call_id
    counts = book.unnamed.setdefault(name, [0, 0])
    rank = counts[1 if answer else 0]
    counts[1 if answer else 0] += 1
    return f"\0{name}#{rank}"


def result_value(response: Any) -> tuple[str, bool | None]:
    """The result text and error flag of a recorded ``response`` object."""
    if isinstance(response, dict) and len(response) == 1:
        (key, value), = response.items()
        if key in (*_VALUE_KEYS, "error"):
            text = value if isinstance(value, str) else dumps(value)
            return text, key == "error"
    return dumps(response), None


def _response_object(old: Any, text: str, is_error: bool) -> dict[str, Any]:
    """The ``response`` object written back for today's result."""
    if is_error:
        return {"error": text}
    if isinstance(old, dict) and len(old) == 1 and next(iter(old)) in _VALUE_KEYS:
        return {next(iter(old)): text}
    if isinstance(old, dict) and not (len(old) == 1 and "error" in old):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    return {"result": text}


def content_events(data: Any, where: Place, book: GeminiBook) -> list[Event]:
    """The events of one ``Content`` object (any decoded JSON value), in part order."""
    path = book.path
    if not isinstance(data, dict):
        raise TranscriptError(path, where, f"expected a content object, got {dumps(data)[:80]}")
    parts = data.get("parts")
    if not isinstance(parts, list):  # never an empty turn: the text is elsewhere
        raise TranscriptError(path, where, f'a content needs a "parts" array; found '
                              f"{record_shape(data)}")
    role = data.get("role", "user")
    if role not in _ROLES:
        raise TranscriptError(path, where, f"unknown role {dumps(role)[:40]} (expected user "
                              "or model)")
    events: list[Event] = []
    for i, part in enumerate(parts):
        at = where.at("parts", i)
        if not isinstance(part, dict):
            raise TranscriptError(path, at, f"expected a part object, got {dumps(part)[:80]}")
        call = next((part[key] for key in _CALL_KEYS if key in part), None)
        answer = next((part[key] for key in _RESPONSE_KEYS if key in part), None)
        if call is not None:
            events.append(_call(call, book, at))
        elif answer is not None:
            result = _result(answer, book, at)
            result.part = i
            events.append(result)
        elif isinstance(part.get("text"), str) and part["text"]:
            if role == "model":
                events.append(AssistantMessage(content=part["text"], where=at,
                                               thinking=part.get("thought") is True))
            else:
                events.append(UserMessage(content=part["text"], where=at))
    return events


def _named(value: Any, kind: str, book: GeminiBook, where: Place) -> tuple[dict[str, Any], str]:
    if not isinstance(value, dict):
        raise TranscriptError(book.path, where, f'"{kind}" must be an object')
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise TranscriptError(book.path, where, f'a {kind} needs a "name" string')
    return value, name


def _call(value: Any, book: GeminiBook, where: Place) -> ToolCall:
    call, name = _named(value, "functionCall", book, where)
    call_id = optional_id(call.get("id"), book.path, where, "id")
    args = call.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise TranscriptError(book.path, where, 'a functionCall\'s "args" must be an object, '
                              f"got {dumps(args)[:80]}")
    index = book.call(_pairing_key(book, name, call_id, answer=False), where)
    return ToolCall(index=index, id=call_id, name=name, arguments=dumps(args), raw=call,
                    where=where)


def _result(value: Any, book: GeminiBook, where: Place) -> ToolResult:
    answer, name = _named(value, "functionResponse", book, where)
    call_id = optional_id(answer.get("id"), book.path, where, "id")
    if "response" not in answer:
        raise TranscriptError(book.path, where, 'a functionResponse needs a "response" object')
    key = _pairing_key(book, name, call_id, answer=True)
    try:
        index = book.result(key, where)
    except TranscriptError:
        waited = f"with id {call_id!r}" if call_id is not None else f'of "{name}"'
        raise TranscriptError(book.path, where, f'a functionResponse for "{name}", but no '
                              f"earlier functionCall {waited} is waiting for one") from None
    text, is_error = result_value(answer["response"])
    return ToolResult(call_index=index, id=call_id, content=text, is_error=is_error,
                      where=where)


def record_events(record: Record, book: GeminiBook) -> list[Event]:
    """The events of one content."""
    if record.blank:
        return []
    return content_events(record.data, record.where, book)


def _response_part(call: ToolCall, text: str, is_error: bool) -> dict[str, Any]:
    answer: dict[str, Any] = {"name": call.name}
    if call.id is not None:
        answer["id"] = call.id
    answer["response"] = {"error": text} if is_error else {"result": text}
    return {"functionResponse": answer}


def _apply(record: Record, events: list[Event], updates: Updates) -> Record:
    """Rewrite the recorded ``functionResponse`` parts of one content."""
    return update_parts(record, events, updates, "parts", _updated_response)


def _updated_response(part: dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    key = next(key for key in _RESPONSE_KEYS if key in part)
    answer = dict(part[key])
    answer["response"] = _response_object(answer["response"], text, bool(is_error))
    return {**part, key: answer}


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: GeminiBook) -> Iterator[Record]:
    """Yield the contents with the updated responses applied; new responses join the
    next user content as ``functionResponse`` parts."""
    return rewrite_in_turns(records, updates, answered, book, read=record_events,
                            apply=_apply, answer=_response_part, merge=_merge_user,
                            new_turn=lambda parts: Record({"role": "user", "parts": parts}))


def _merge_user(record: Record, waiting: list[dict[str, Any]]) -> Record | None:
    """New responses after the user content's own ``functionResponse`` parts."""
    if record.data.get("role", "user") != "user":
        return None
    data = dict(record.data)
    responses = sum(1 for part in data["parts"]
                    if isinstance(part, dict) and part.keys() & set(_RESPONSE_KEYS))
    data["parts"] = [*data["parts"][:responses], *waiting, *data["parts"][responses:]]
    return Record(data, record.where, record.position)


API_PATHS = (":generateContent", ":streamGenerateContent")


def http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """The call read by :func:`_http_exchange`, with the request's ``systemInstruction``."""
    return with_system(_http_exchange(request, response, uri, where),
                       request, "systemInstruction",
                       "system_instruction")


def _http_exchange(request: Any, response: Any, uri: str, where: Place) -> Exchange | None:
    """A ``generateContent`` call: the request's ``contents`` and the response's
    ``candidates[0].content`` (a streamed response's chunks, a JSON array or server-sent
    events, joined into one content)."""
    if not isinstance(request, dict) or not isinstance(request.get("contents"), list):
        return None
    asked = envelope_records(request, ("contents",), where.at("request body"))
    at = where.at("response body")
    chunks = stream_chunks(response)
    parts: list[Any] = []
    read = False
    for chunk in chunks if chunks is not None else [response]:
        content = _candidate_content(chunk)
        if content is not None:
            read = True
            parts.extend(content)
    if not read:
        return Exchange(asked=asked, unread=unread(response, "Gemini candidates"))
    place = at.at("candidates", 0, "content") if chunks is None else at.at("stream")
    return Exchange(asked=asked, answer=[Record({"role": "model", "parts": _joined(parts)},
                                                place)])


def _candidate_content(chunk: Any) -> list[Any] | None:
    candidates = chunk.get("candidates") if isinstance(chunk, dict) else None
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0],
                                                                           dict):
        return None
    content = candidates[0].get("content")
    if not isinstance(content, dict):
        return [] if "finishReason" in candidates[0] else None
    parts = content.get("parts")
    return parts if isinstance(parts, list) else []


def _joined(parts: list[Any]) -> list[Any]:
    """Consecutive text parts of a stream joined (a thought with thoughts only)."""
    joined: list[Any] = []
    for part in parts:
        last = joined[-1] if joined else None
        if (isinstance(part, dict) and isinstance(last, dict) and set(part) <= {"text",
                "thought"} and set(last) <= {"text", "thought"} and isinstance(
                part.get("text"), str) and isinstance(last.get("text"), str)
                and part.get("thought") == last.get("thought")):
            joined[-1] = {**last, "text": last["text"] + part["text"]}
        else:
            joined.append(part)
    return joined


FORMAT: TranscriptFormat[GeminiBook] = TranscriptFormat(
    name="gemini",
    title="Gemini contents",
    claims=claims,
    start=GeminiBook.start,
    record_events=record_events,
    rewrite=rewrite,
    migrate=call_migration(record_events, (CallFields(("name",), ("args",)),),
                           (("functionResponse", "name"), ("function_response", "name"))),
    api=ApiReading(paths=API_PATHS, exchange=http_exchange),
)
