"""VCR cassettes (vcrpy, pytest-recording) of OpenAI chat, OpenAI Responses, Anthropic
and Gemini HTTP calls: the file is read by :mod:`.cassettes`, one interaction a record.

Each interaction's request body is read as whichever provider's request it is — OpenAI
chat ``messages``, Responses ``input``, Anthropic ``messages`` (content blocks), Gemini
``contents`` — by that format's own reader; its response body the same way (``choices[0]
.message``, ``output``, ``content``, ``candidates[0].content``). A body that is no such
request (not JSON, another endpoint) is skipped.

A conversation's later requests repeat its earlier turns, so each call is replayed once:
a call is known again by its id, or, without ids, by its position among the
conversation's id-less calls (same name and arguments); a result is replayed the first
time it is seen. Calls of the last response that no later request answers have no
recorded result. A request whose history does not continue the last one starts a new
conversation.

``--update`` cannot write into a cassette: the recorded HTTP bodies stay as they were.
"""

from __future__ import annotations

import dataclasses
import json
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts import (
    anthropic,
    cassettes,
    gemini,
    openai,
    openai_responses,
)
from agentforge_cli.replay.transcripts.calls import CallBook, Updates
from agentforge_cli.replay.transcripts.claiming import pick_format
from agentforge_cli.replay.transcripts.events import (
    Event,
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
)
from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.records import Record, envelope_records, record_shape

__all__ = ["NAME", "TITLE", "claims", "file_records", "opens", "record_events", "rewrite"]

NAME = "vcr"
TITLE = "VCR cassettes"


def claims(data: Any) -> Claim:
    """An interaction (``{"request": {...}, "response": {...}}``) is this format's own."""
    if isinstance(data, dict) and isinstance(data.get("request"), dict) and isinstance(
            data.get("response"), dict):
        return Claim.OWN
    return Claim.NO


def opens(path: Path, head: str) -> bool:
    """Whether this format reads the file itself (YAML, or a JSON cassette)."""
    return cassettes.is_cassette(path, head)


def file_records(path: Path) -> Iterator[Record]:
    """The cassette's interactions, one record each, streamed."""
    return cassettes.iter_interactions(path)


def rewrite(records: Iterable[Record], updates: Updates, answered: set[int],
            book: CallBook) -> Iterator[Record]:
    """Refused: a cassette's recorded bodies are not rewritten."""
    raise TranscriptError(book.path, "", "--update cannot write into a VCR cassette (its "
                          "recorded HTTP bodies are kept as they are); record it again")


class _Scratch(CallBook):
    """The book one request is read with: a result for a call made in an earlier response
    (a Responses request that sends only the new outputs) is paired with that call."""

    def __init__(self, path: Path, known: dict[str, int]) -> None:
        super().__init__(path)
        self._known = known
        self.earlier: dict[int, int] = {}  # scratch index -> the file's call index

    def result(self, call_id: str | None, where: str) -> int:
        try:
            return super().result(call_id, where)
        except TranscriptError:
            if call_id not in self._known:
                raise
        index = self.count
        self.count += 1
        self.earlier[index] = self._known[call_id]
        return index


@dataclasses.dataclass(kw_only=True, slots=True)
class _Conversation:
    """What the cassette's current conversation has replayed so far."""

    by_id: dict[str, tuple[int, str]] = dataclasses.field(default_factory=dict)
    """call id -> (the file's call index, name)."""
    anonymous: list[tuple[str, Any, int]] = dataclasses.field(default_factory=list)
    """id-less calls in order: (name, parsed arguments, the file's call index)."""
    answered: set[int] = dataclasses.field(default_factory=set)
    """The file's call indexes whose result was replayed."""


_STATE: weakref.WeakKeyDictionary[CallBook, _Conversation] = weakref.WeakKeyDictionary()


def _provider(data: Any, reply: Any, uri: str, path: Path,
              where: str) -> tuple[TranscriptFormat | None, list[Record]]:
    """The provider format of a request body and its messages; ``None`` format when the
    body is no tool-calling API request. Chat ``messages`` are OpenAI's or Anthropic's as
    their blocks say; plain text ones (read the same by both) as the response says."""
    at = f"{where}, request body"
    if isinstance(data, dict):
        if isinstance(data.get("contents"), list):
            return gemini, envelope_records(data, ("contents",), at)
        if isinstance(data.get("messages"), list):
            records = envelope_records(data, ("messages",), at)
            if any(anthropic.claims(record.data) == Claim.OWN for record in records):
                return anthropic, records
            if any(openai.claims(record.data) == Claim.OWN for record in records):
                return openai, records
            if isinstance(reply, dict) and isinstance(reply.get("content"), list):
                return anthropic, records
            return pick_format(path, records, (openai, anthropic)), records
        items = data.get("input")
        typed = isinstance(items, list) and all(isinstance(item, dict) for item in items)
        said = isinstance(items, str) and uri.rstrip("/").endswith("/responses")
        if (typed and items) or said:
            return openai_responses, envelope_records(data, ("input",), at)
    return None, []  # an embeddings request's "input" is strings or numbers


def _response_records(fmt: TranscriptFormat, data: Any, where: str) -> list[Record]:
    """The assistant's message(s) in a response body, as the request's format reads them."""
    at = f"{where}, response body"
    if not isinstance(data, dict):
        return []
    if fmt is openai:
        choices = data.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            message = choices[0].get("message")
            return [Record(message, f"{at}, choices[0].message")] if message else []
    elif fmt is anthropic:
        if isinstance(data.get("content"), list):
            return [Record({"role": "assistant", "content": data["content"]}, at)]
    elif fmt is gemini:
        candidates = data.get("candidates")
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
            content = candidates[0].get("content")
            if isinstance(content, dict) and isinstance(content.get("parts"), list):
                return [Record({"role": "model", **content}, f"{at}, candidates[0].content")]
    elif isinstance(data.get("output"), list):
        return envelope_records(data, ("output",), at)
    return []


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _known(call: ToolCall, state: _Conversation, position: int) -> int | None:
    """The file's index of a call replayed before, else ``None``."""
    if call.id is not None:
        found = state.by_id.get(call.id)
        return found[0] if found is not None and found[1] == call.name else None
    if position < len(state.anonymous):
        name, arguments, index = state.anonymous[position]
        if name == call.name and arguments == _arguments(call.arguments):
            return index
    return None


def record_events(record: Record, book: CallBook) -> list[Event]:
    """The new events of one interaction: calls and results not replayed before."""
    path, where, data = book.path, record.where, record.data
    if record.blank:
        return []
    if not isinstance(data, dict) or not isinstance(data.get("request"), dict):
        raise TranscriptError(path, where, 'a cassette interaction needs a "request" object; '
                              f"found {record_shape(data)}")
    response = data.get("response")
    if response is not None and not isinstance(response, dict):
        raise TranscriptError(path, where, '"response" must be an object')
    request = cassettes.body_json(data["request"], path, f"{where}, request body")
    reply = cassettes.body_json(response or {}, path, f"{where}, response body")
    uri = data["request"].get("uri")
    fmt, records = _provider(request, reply, uri if isinstance(uri, str) else "", path, where)
    if fmt is None:
        return []  # not a tool-calling API request
    replies = _response_records(fmt, reply, where)
    state = _STATE.setdefault(book, _Conversation())
    scratch = _Scratch(path, {key: index for key, (index, _) in state.by_id.items()})
    asked = [event for item in records for event in fmt.record_events(item, scratch)]
    answer = [event for item in replies for event in fmt.record_events(item, scratch)]
    return _new_events(asked, answer, scratch, state, book)


def _new_events(asked: list[Event], answer: list[Event], scratch: _Scratch,
                state: _Conversation, book: CallBook) -> list[Event]:
    """The events of one request (``asked``) and its response (``answer``) not replayed
    before, with the file's call numbering (``mapping``: scratch index -> file index)."""
    mapping = dict(scratch.earlier)
    last_known = -1  # the request's last event repeating the conversation
    anonymous = 0
    diverged = False  # an id-less call did not repeat the conversation's
    for position, event in enumerate(asked):
        if isinstance(event, ToolCall):
            known = None if event.id is None and diverged else _known(event, state, anonymous)
            if event.id is None:
                anonymous += 1
                diverged = diverged or known is None
            if known is not None:
                mapping[event.index] = known
                last_known = position
        elif isinstance(event, ToolResult) and mapping.get(event.call_index) in state.answered:
            last_known = position
    continued = bool(mapping)
    if not continued:  # a new conversation: nothing from before is repeated
        state.by_id.clear()
        state.answered.clear()
    events: list[Event] = []
    calls: list[tuple[str, Any, int]] = []
    for position, event in enumerate([*asked, *answer]):
        if isinstance(event, ToolCall):
            index = mapping.get(event.index)
            if index is None:
                index = mapping[event.index] = book.count
                book.count += 1
                events.append(dataclasses.replace(event, index=index))
            if event.id is not None:
                state.by_id[event.id] = (index, event.name)
            else:
                calls.append((event.name, _arguments(event.arguments), index))
        elif isinstance(event, ToolResult):
            index = mapping[event.call_index]
            if index not in state.answered:
                state.answered.add(index)
                events.append(dataclasses.replace(event, call_index=index))
        elif (not continued or position >= len(asked)
              or (position > last_known and isinstance(event, UserMessage))):
            events.append(event)
    state.anonymous = calls
    return events
