"""One recorded HTTP call to a model API, as a provider format reads it.

A cassette's interaction is a request and its response. A provider format that reads
such calls (OpenAI chat, Responses, Anthropic, Gemini) declares an
:class:`~agentforge_cli.replay.transcripts.format.ApiReading` whose
``exchange(request, response, uri, where)`` is ``None`` when the request is not one of
its API's, else an :class:`Exchange` with the request's messages (the conversation so
far) and the response's new message(s). The cassette reader asks the registered formats
that have one, in registry order, and never names one.

Bodies come decoded (:func:`~agentforge_cli.replay.transcripts.files.cassettes.body_value`): a
JSON value, :class:`ServerEvents` for a streamed (server-sent events) body, or
:class:`Unreadable` saying what was found instead.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from agentforge_cli.replay.transcripts.files.envelopes import prompt_text
from agentforge_cli.replay.transcripts.files.records import Record

__all__ = ["Exchange", "ServerEvents", "Unreadable", "parse_events", "parse_json_lines",
           "stream_chunks", "unread", "uri_path", "with_system"]


class ServerEvents(list[tuple[str | None, Any]]):
    """A streamed body: its events in order, each ``(event name or None, data)`` with the
    data parsed as JSON where it is JSON (else the text); a body of JSON lines is events
    without names, one a line."""


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A body that holds no JSON value: what it is, for a message, and, for binary data,
    its bytes (a format may decode them itself: Bedrock's AWS event streams)."""

    found: str
    data: bytes = b""


@dataclass(frozen=True, kw_only=True, slots=True)
class Exchange:
    """A model API call read from a request and its response."""

    asked: list[Record]
    """The request's messages, in order: the conversation as the client sent it."""
    answer: list[Record] = field(default_factory=list)
    """The response's new message(s) (none when it holds none or could not be read)."""
    unread: str | None = None
    """What the response body was when it could not be read (its calls are then known
    only if a later request repeats them)."""
    response_id: str | None = None
    """The response's id, where a later request may name it (Responses)."""
    previous_response_id: str | None = None
    """The response this request continues, where it says so (Responses)."""
    system: str | None = None
    """The system prompt the request gives beside its messages (Anthropic's ``system``,
    Gemini's ``systemInstruction``, Responses' ``instructions``)."""


def with_system(exchange: Exchange | None, request: Any, *keys: str) -> Exchange | None:
    """``exchange`` with the system prompt the request gives under the first of ``keys``
    it has, as text (a string, text blocks or parts, a Gemini content); unchanged when
    it gives none."""
    found = next((request[key] for key in keys if key in request), None) \
        if isinstance(request, dict) else None
    text = prompt_text(found)
    if exchange is None or not text:
        return exchange
    return dataclasses.replace(exchange, system=text)


def unread(response: Any, expected: str, api: str = "") -> str:
    """What a response body the reader could not use was, for a message; ``api`` names
    the call's API when ``expected`` does not (``a Cohere v2 /v2/chat call``), so that a
    refusal names the family the recording is of."""
    if api and (isinstance(response, Unreadable) or response is None):
        return f"{unread(response, expected)}, in {api}"
    if isinstance(response, Unreadable):
        return response.found
    if isinstance(response, ServerEvents):
        return "a streamed body whose events are not " + expected
    if response is None:
        return "no body"
    return "JSON that is not " + expected


def uri_path(uri: Any) -> str:
    """The path of a request URI (``""`` when there is none)."""
    if not isinstance(uri, str):
        return ""
    try:
        return urlsplit(uri).path
    except ValueError:
        return ""


def parse_events(text: str) -> ServerEvents:
    """The events of a server-sent-events body (``event:``/``data:`` lines, events
    separated by blank lines; a ``data`` of ``[DONE]`` ends nothing but is dropped)."""
    events = ServerEvents()
    name: str | None = None
    data: list[str] = []

    def flush() -> None:
        nonlocal name
        if data:
            joined = "\n".join(data)
            if joined.strip() != "[DONE]":
                try:
                    value: Any = json.loads(joined)
                except ValueError:
                    value = joined
                events.append((name, value))
        data.clear()
        name = None

    for line in text.splitlines():
        if not line.strip():
            flush()
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    flush()
    return events


def parse_json_lines(text: str) -> ServerEvents | None:
    """The chunks of a body streamed as one JSON value a line (Ollama's ``/api/chat``),
    each an event without a name; ``None`` when a line is not JSON."""
    events = ServerEvents()
    for line in text.splitlines():
        if line.strip():
            try:
                events.append((None, json.loads(line)))
            except (ValueError, RecursionError):
                return None
    return events


def stream_chunks(response: Any) -> list[Any] | None:
    """The JSON chunks of a streamed response: the data of each server-sent event, or the
    elements of a JSON array of chunks (Gemini's ``streamGenerateContent``); ``None``
    when the response is neither."""
    if isinstance(response, ServerEvents):
        return [data for _, data in response]
    if isinstance(response, list):
        return response
    return None
