"""Replay a recorded conversation against today's tools -> a report (data, never printed).

Every recorded call is sent through a :class:`~agentforge_cli.core.service.ToolService`, in
order, exactly as a model's call would be, and its result is compared with the recorded
one (SPEC 5):

* when both texts parse as JSON they are compared as JSON values: object key order is
  ignored, numbers are compared by value (``5`` equals ``5.0``; exactly, never through
  ``float``), and ``true`` never equals ``1``;
* otherwise they are compared as text;
* where the transcript records ``is_error`` it must match too, so an error result that
  matches a recorded error is ``matched``.

Each call ends ``matched``, ``mismatched`` or ``unrecorded`` (the transcript holds no
result for it). :class:`Replayer` works as the events stream in and yields each entry
once it is settled, so a long JSONL transcript replays in constant memory;
:func:`replay` collects everything into a :class:`ReplayReport`.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from agentforge_cli.core.service import ToolService
from agentforge_cli.core.spec import ToolExecutionRequest
from agentforge_cli.replay.transcripts.events import (
    AssistantMessage,
    Event,
    ToolCall,
    ToolResult,
    UserMessage,
)

__all__ = [
    "MATCHED",
    "MISMATCHED",
    "STATUSES",
    "UNRECORDED",
    "CallReport",
    "ReplayReport",
    "Replayer",
    "describe_invocation",
    "replay",
    "result_diff",
    "same_result",
]

MATCHED = "matched"
MISMATCHED = "mismatched"
UNRECORDED = "unrecorded"
STATUSES = (MATCHED, MISMATCHED, UNRECORDED)
"""Every status a call can end with, in summary order."""

_SHOWN_VALUE_CHARS = 60


@dataclass(kw_only=True)
class CallReport:
    """One replayed call: what was recorded, what the tools answer today."""

    index: int
    """Position among the transcript's calls, from 0."""
    id: str | None
    """The recorded call id."""
    name: str
    """The tool called."""
    arguments: str
    """The recorded argument string."""
    where: str
    """Where the call is in the file."""
    actual: str
    """Today's result text."""
    is_error: bool
    """Today's result is an error."""
    duration_ms: float
    """How long today's call took."""
    invocation: str | None = None
    """The Python call the arguments bound to, e.g. ``CrmTools.queryCustomer("长路", 5)``
    (secrets masked); ``None`` when they do not bind."""
    expected: str | None = None
    """The recorded result text, ``None`` when there is none."""
    expected_is_error: bool | None = None
    """The recorded error flag, ``None`` when the format does not record one."""
    result_where: str | None = None
    """Where the recorded result is in the file."""
    status: str = UNRECORDED
    """``matched``, ``mismatched`` or ``unrecorded``."""
    diff: list[str] = field(default_factory=list)
    """For a mismatch: readable lines saying what differs."""

    def to_dict(self) -> dict[str, Any]:
        """The ``replay --json`` entry of this call."""
        return {"id": self.id, "name": self.name, "status": self.status,
                "expected": self.expected, "actual": self.actual,
                "expected_is_error": self.expected_is_error, "is_error": self.is_error,
                "arguments": self.arguments, "where": self.where,
                "duration_ms": round(self.duration_ms, 3)}


Entry = UserMessage | AssistantMessage | CallReport
"""A line of the replayed conversation, in transcript order."""


@dataclass(kw_only=True)
class ReplayReport:
    """The whole outcome of a replay, collected (see :func:`replay`)."""

    entries: list[Entry] = field(default_factory=list)
    """Messages and calls in transcript order (for the trace)."""
    calls: list[CallReport] = field(default_factory=list)
    """Every call, in order."""

    @property
    def summary(self) -> dict[str, int]:
        """Count of calls per status (every status present, zero included)."""
        counts = dict.fromkeys(STATUSES, 0)
        for call in self.calls:
            counts[call.status] += 1
        return counts

    @property
    def failed(self) -> bool:
        """At least one result differs from the recording."""
        return any(call.status == MISMATCHED for call in self.calls)

    def updates(self) -> dict[int, tuple[str, bool]]:
        """Call index -> today's ``(text, is_error)`` for every call whose recording is
        missing or differs (what ``--update`` writes)."""
        return {call.index: (call.actual, call.is_error) for call in self.calls
                if call.status != MATCHED}

    def to_dict(self) -> dict[str, Any]:
        """The ``replay --json`` object: ``summary`` and ``calls``."""
        return {"summary": self.summary, "calls": [call.to_dict() for call in self.calls]}


# -- comparison ----------------------------------------------------------------------------


def _parse_json(text: str) -> tuple[bool, Any]:
    def refuse(name: str) -> Any:
        raise ValueError(name)

    try:
        return True, json.loads(text, parse_float=Decimal, parse_constant=refuse)
    except (ValueError, RecursionError):
        return False, None


def _same_json(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | Decimal) and isinstance(b, int | Decimal):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def same_result(expected: str, actual: str) -> bool:
    """Whether two result texts are the same result (JSON-aware, see the module docstring)."""
    if expected == actual:
        return True
    ok_a, a = _parse_json(expected)
    ok_b, b = _parse_json(actual)
    if ok_a and ok_b:
        try:
            return _same_json(a, b)
        except RecursionError:
            return False
    return False


def _pretty(text: str) -> list[str]:
    ok, value = _parse_json(text)
    if ok and isinstance(value, dict | list):
        try:
            return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True,
                              default=str).splitlines()
        except (ValueError, RecursionError):
            pass
    return text.splitlines() or [""]


def result_diff(expected: str, actual: str, expected_is_error: bool | None = None,
                is_error: bool = False) -> list[str]:
    """Readable lines saying how today's result differs from the recorded one.

    Short single-line results give ``- recorded: ...`` / ``+ actual:   ...``; longer ones
    (and JSON objects and arrays, pretty-printed with sorted keys) a unified diff.
    """
    import difflib

    lines: list[str] = []
    if expected_is_error is not None and expected_is_error != is_error:
        lines.append(f"is_error: recorded {str(expected_is_error).lower()}, "
                     f"actual {str(is_error).lower()}")
    if same_result(expected, actual):
        return lines
    old, new = _pretty(expected), _pretty(actual)
    if len(old) == 1 and len(new) == 1:
        lines.append(f"- recorded: {old[0]}")
        lines.append(f"+ actual:   {new[0]}")
        return lines
    for line in difflib.unified_diff(old, new, "recorded", "actual", n=1, lineterm=""):
        lines.append(line)
    return lines


# -- running --------------------------------------------------------------------------------


def _show(value: Any) -> str:
    if isinstance(value, set | frozenset):  # a stable order, whatever the hash seed
        try:
            items = sorted(value)
        except TypeError:
            items = sorted(value, key=repr)
        text = "{" + ", ".join(_show(item) for item in items) + "}" if items else repr(value)
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = repr(value)
    if len(text) > _SHOWN_VALUE_CHARS:
        text = text[: _SHOWN_VALUE_CHARS - 1] + "…"
    return text


def describe_invocation(service: ToolService, name: str, arguments: str) -> str | None:
    """``CrmTools.queryCustomer("长路", 5)``: the Python call a request binds to.

    ``None`` when the tool is unknown, is not a local tool, or the arguments do not bind.
    Sensitive values are shown as ``***``.
    """
    from agentforge_cli.core.executor import try_bind
    from agentforge_cli.core.masking import MASK

    found = try_bind(service.executor(name), arguments)
    if found is None:
        return None
    definition, bound = found
    parts = []
    for param in definition.params:
        shown = MASK if param.sensitive else _show(bound.get(param.name))
        parts.append(f"{param.name}={shown}" if param.keyword_only else shown)
    callee = getattr(definition.original, "__qualname__", None) or definition.name
    return f"{callee}({', '.join(parts)})"


class Replayer:
    """Replays a stream of events, yielding each entry once it is settled.

    Entries come out in transcript order. A call is settled when its recorded result is
    read (``matched``/``mismatched``) or when the transcript ends without one
    (``unrecorded``); entries after an unsettled call wait for it. Only those waiting
    entries are held, so a long transcript whose results follow their calls replays in
    constant memory::

        replayer = Replayer(service)
        for entry in replayer.run(transcript.events()):
            ...
        replayer.summary, replayer.failed

    Args:
        service: The tools as they are today.
        memory_id: Passed to each execution.
        describe: Fill :attr:`CallReport.invocation` (binds the arguments a second time).
    """

    def __init__(self, service: ToolService, *, memory_id: object = None,
                 describe: bool = True) -> None:
        self.service = service
        self.memory_id = memory_id
        self.describe = describe
        self.summary: dict[str, int] = dict.fromkeys(STATUSES, 0)
        """Count of settled calls per status."""
        self._waiting: deque[Entry] = deque()
        self._open: dict[int, CallReport] = {}

    @property
    def failed(self) -> bool:
        """A settled call's result differs from the recording."""
        return self.summary[MISMATCHED] > 0

    def run(self, events: Iterable[Event],
            on_event: Callable[[Event], None] | None = None) -> Iterator[Entry]:
        """Replay ``events`` and yield every entry, settled, in transcript order.

        Raises:
            TranscriptError: From ``events`` at a malformed line; calls before it have run.
        """
        for event in events:
            self.feed(event)
            if on_event is not None:
                on_event(event)
            if self._waiting:
                yield from self._drain()
        yield from self.close()

    def feed(self, event: Event) -> None:
        """Handle one event (a call is executed at once)."""
        if isinstance(event, ToolCall):
            call = self._execute(event)
            self._open[event.index] = call
            self._waiting.append(call)
        elif isinstance(event, ToolResult):
            call = self._open.pop(event.call_index, None)
            if call is not None:
                call.expected = event.content
                call.expected_is_error = event.is_error
                call.result_where = event.where
                self._settle(call)
        else:
            self._waiting.append(event)

    def close(self) -> Iterator[Entry]:
        """Settle the calls that never got a result (``unrecorded``); yield the rest."""
        for call in self._open.values():
            self._settle(call)
        self._open.clear()
        yield from self._drain()

    def _drain(self) -> Iterator[Entry]:
        waiting, still_open = self._waiting, self._open
        while waiting:
            head = waiting[0]
            if isinstance(head, CallReport) and head.index in still_open:
                return
            yield waiting.popleft()

    def _execute(self, event: ToolCall) -> CallReport:
        service = self.service
        request = ToolExecutionRequest(id=event.id, name=event.name, arguments=event.arguments)
        invocation = (describe_invocation(service, event.name, event.arguments)
                      if self.describe else None)
        started = time.perf_counter()
        result = service.execute(request, self.memory_id)
        elapsed = (time.perf_counter() - started) * 1000
        return CallReport(index=event.index, id=event.id, name=event.name,
                          arguments=event.arguments, where=event.where, actual=result.text,
                          is_error=bool(result.is_error), duration_ms=elapsed,
                          invocation=invocation)

    def _settle(self, call: CallReport) -> None:
        _judge(call)
        self.summary[call.status] += 1


def replay(
    events: Iterable[Event],
    service: ToolService,
    *,
    memory_id: object = None,
    on_event: Callable[[Event], None] | None = None,
) -> ReplayReport:
    """Re-run every recorded call through ``service`` and collect the whole report.

    For long transcripts prefer :class:`Replayer`, which yields entries as they settle.

    Raises:
        TranscriptError: From ``events`` at a malformed line; calls before it have run.
        ToolExecutionError: Only from executors set to propagate execution errors.
    """
    report = ReplayReport()
    for entry in Replayer(service, memory_id=memory_id).run(events, on_event):
        report.entries.append(entry)
        if isinstance(entry, CallReport):
            report.calls.append(entry)
    return report


def _judge(call: CallReport) -> None:
    if call.expected is None:
        call.status = UNRECORDED
        return
    same = same_result(call.expected, call.actual)
    flag_ok = call.expected_is_error is None or call.expected_is_error == call.is_error
    if same and flag_ok:
        call.status = MATCHED
    else:
        call.status = MISMATCHED
        call.diff = result_diff(call.expected, call.actual, call.expected_is_error,
                                call.is_error)
