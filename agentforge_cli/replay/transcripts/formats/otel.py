"""OpenTelemetry traces of tool calls (the GenAI conventions' ``execute_tool`` spans), as
OTLP JSON: a collector's or the file exporter's ``{"resourceSpans": [...]}`` objects, one
document or one a line.

* a span whose ``gen_ai.operation.name`` is ``execute_tool`` is one call:
  ``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments`` (the JSON
  argument string) and its result, ``gen_ai.tool.call.result``; an error status is an
  error result (its text the result, else the status message, else ``error.type``);
* pydantic-ai's spans of instrumentation versions 1 and 2 (``running tool``, with or
  without that operation name) carry the same call in ``tool_arguments`` and
  ``tool_response``: read alike;
* every other span (the agent's run, model calls) is skipped;
* each trace is a conversation of its own, its calls in the order they started; traces in
  the order the file first shows them.

Recording arguments and results is opt-in for instrumentations (pydantic-ai records them;
agentforge's ``TracingToolExecutor`` with ``record_content=True``): a tool span without its
arguments is refused by place, never skipped. The file is read whole, up to
:data:`~agentforge_cli.replay.transcripts.files.limits.MAX_DOCUMENT_BYTES`. ``--update`` is
refused: a trace records what happened.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.files.limits import open_bytes, read_whole_text
from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.format import Claim, FileReading, TranscriptFormat
from agentforge_cli.replay.transcripts.model import (
    ConversationStart,
    Event,
    ToolCall,
    ToolResult,
    TranscriptError,
)
from agentforge_cli.replay.transcripts.place import Place
from agentforge_cli.replay.transcripts.reading.calls import CallBook

__all__ = ["FORMAT", "TraceBook", "claims", "file_records", "opens", "record_events"]

_OTLP = re.compile(r'\A\s*\{\s*"resourceSpans"\s*:')
_ERROR = 2
"""OTLP's ``STATUS_CODE_ERROR``."""


class TraceBook(CallBook):
    """The state of reading one trace file: the trace being read and how many."""

    def __init__(self, path: Path, *, track_answered: bool = False) -> None:
        super().__init__(path, track_answered=track_answered)
        self.trace: str | None = None
        self.traces = 0


def opens(path: Path, head: str) -> bool:
    """An OTLP JSON export: its first object's first key is ``resourceSpans``."""
    if _OTLP.match(head):
        return True
    if head.strip() != "{":
        return False
    try:
        with open_bytes(path) as stream:
            start = stream.read(4096)
    except (OSError, EOFError):
        return False
    return _OTLP.match(start.decode("utf-8", "replace").removeprefix("\ufeff")) is not None


def file_records(path: Path) -> Iterator[Record]:
    """The tool spans, one record each: trace by trace, each in start order.

    Raises:
        TranscriptError: The file cannot be read, is too large or is not OTLP JSON.
    """
    text = read_whole_text(path, "trace")
    traces: dict[str, list[tuple[int, int, Record]]] = {}
    for where, export in _exports(path, text):
        for span_where, span in _spans(path, where, export):
            if not _is_tool_span(span, _attributes(span)):
                continue
            trace = str(span.get("traceId", ""))
            spans = traces.setdefault(trace, [])
            spans.append((_number(span.get("startTimeUnixNano")), len(spans),
                          Record(span, span_where, len(spans))))
    for spans in traces.values():
        for _, _, record in sorted(spans, key=lambda item: item[:2]):
            yield record


def _exports(path: Path, text: str) -> Iterator[tuple[Place, Any]]:
    """The JSON values of the file: one document, or one a line."""
    decoder = json.JSONDecoder()
    position, line = 0, 1
    while True:
        while position < len(text) and text[position] in " \t\r\n":
            line += text[position] == "\n"
            position += 1
        if position >= len(text):
            return
        try:
            value, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError) as exc:
            raise TranscriptError(path, Place(line), f"invalid JSON: {exc}") from None
        if not isinstance(value, dict) or not isinstance(value.get("resourceSpans"), list):
            raise TranscriptError(path, Place(line), 'expected an OTLP export with '
                                  '"resourceSpans"')
        yield Place(line), value
        line += text.count("\n", position, end)
        position = end


def _spans(path: Path, where: Place, export: dict[str, Any]
           ) -> Iterator[tuple[Place, dict[str, Any]]]:
    for r, resource in enumerate(export["resourceSpans"]):
        scopes = resource.get("scopeSpans", resource.get("instrumentationLibrarySpans"))
        for s, scope in enumerate(scopes if isinstance(scopes, list) else ()):
            spans = scope.get("spans") if isinstance(scope, dict) else None
            for i, span in enumerate(spans if isinstance(spans, list) else ()):
                at = where.at("resourceSpans", r, "scopeSpans", s, "spans", i)
                if not isinstance(span, dict):
                    raise TranscriptError(path, at, "expected a span object")
                yield at, span


_LEGACY_SPAN = "running tool"
"""The name of pydantic-ai's tool spans before the GenAI conventions (instrumentation
versions 1 and 2); those of version 1 have no ``gen_ai.operation.name``."""
_ARGUMENTS = ("gen_ai.tool.call.arguments", "tool_arguments")
_RESULTS = ("gen_ai.tool.call.result", "tool_response")
"""Where a call's arguments and result are: the GenAI conventions' attribute, then
pydantic-ai's of instrumentation versions 1 and 2."""


def _is_tool_span(span: dict[str, Any], attributes: dict[str, Any]) -> bool:
    return attributes.get("gen_ai.operation.name") == "execute_tool" or (
        span.get("name") == _LEGACY_SPAN and "gen_ai.tool.name" in attributes)


def _first(attributes: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((attributes[key] for key in keys if attributes.get(key) is not None), None)


def _number(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _attributes(span: dict[str, Any]) -> dict[str, Any]:
    """A span's attributes as ``{key: value}`` (OTLP writes ``[{"key", "value": {...}}]``)."""
    found: dict[str, Any] = {}
    attributes = span.get("attributes")
    for item in attributes if isinstance(attributes, list) else ():
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            found[item["key"]] = _value(item.get("value"))
    return found


def _value(value: Any) -> Any:
    if not isinstance(value, dict) or not value:
        return None
    kind, inner = next(iter(value.items()))
    if kind == "arrayValue" and isinstance(inner, dict):
        return [_value(v) for v in inner.get("values") or []]
    if kind == "kvlistValue" and isinstance(inner, dict):
        return {kv.get("key"): _value(kv.get("value")) for kv in inner.get("values") or []
                if isinstance(kv, dict)}
    if kind == "intValue":
        return _number(inner)
    return inner


def claims(data: Any) -> Claim:
    """No JSONL record is this format's: its files are told by :func:`opens`."""
    return Claim.NO


def record_events(record: Record, book: TraceBook) -> list[Event]:
    """The call and result of one tool span (a new trace starts a conversation)."""
    path, where, span = book.path, record.where, record.data
    attributes = _attributes(span)
    name = attributes.get("gen_ai.tool.name")
    if not isinstance(name, str) or not name:
        raise TranscriptError(path, where, "an execute_tool span needs gen_ai.tool.name")
    arguments = _first(attributes, _ARGUMENTS)
    if arguments is None:
        raise TranscriptError(path, where, f"the execute_tool span of {name!r} has no "
                              "gen_ai.tool.call.arguments (nor pydantic-ai's "
                              "tool_arguments): record tool content in the "
                              "instrumentation (it is opt-in) to replay its calls")
    events: list[Event] = []
    trace = str(span.get("traceId", ""))
    if trace != book.trace:
        if book.trace is not None:
            book.traces += 1
            events.append(ConversationStart(conversation=book.traces, where=where))
        book.trace = trace
    call_id = attributes.get("gen_ai.tool.call.id")
    call_id = call_id if isinstance(call_id, str) and call_id else None
    text = arguments if isinstance(arguments, str) else dumps(arguments)
    index = book.call(call_id, where)
    events.append(ToolCall(index=index, id=call_id, name=name, arguments=text, raw=span,
                           where=where, conversation=book.traces))
    status = span.get("status") if isinstance(span.get("status"), dict) else {}
    failed = status.get("code") in (_ERROR, "STATUS_CODE_ERROR")
    result = _first(attributes, _RESULTS)
    if result is None and failed:
        result = status.get("message") or attributes.get("error.type") or "error"
    if result is not None:
        content = result if isinstance(result, str) else dumps(result)
        events.append(ToolResult(call_index=book.result(call_id, where), id=call_id,
                                 content=content, is_error=failed, where=where))
    return events


FORMAT: TranscriptFormat[TraceBook] = TranscriptFormat(
    name="otel",
    title="OpenTelemetry traces (OTLP JSON)",
    claims=claims,
    start=TraceBook.start,
    record_events=record_events,
    not_updated="does not write into a trace; replay it without --update",
    files=FileReading(opens=opens, records=file_records),
)
