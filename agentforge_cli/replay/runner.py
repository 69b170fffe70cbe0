"""Replay a recorded conversation against today's tools -> a report (data, never printed).

Every recorded call is sent through a :class:`~agentforge_cli.core.service.ToolService`, in
order, exactly as a model's call would be, and its result is compared with the recorded
one (:func:`~agentforge_cli.replay.compare.same_result`, in the chosen ``match`` mode);
where the transcript records ``is_error`` it must match too, so an error result that
matches a recorded error is ``matched`` (in ``status`` mode only that is compared).

Each call ends ``matched``, ``mismatched`` or ``unrecorded`` (the transcript holds no
result for it). :class:`Replayer` works as the events stream in and yields each entry
once it is settled, so a long JSONL transcript replays in constant memory;
:func:`replay` collects everything into a
:class:`~agentforge_cli.replay.report.ReplayReport`.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from time import perf_counter
from typing import Any

from agentforge_cli.core.masking import mask_arguments, tool_sensitive_keys
from agentforge_cli.core.service import ToolService
from agentforge_cli.core.spec import ToolExecutionRequest
from agentforge_cli.replay.compare import MATCH_MODES, result_diff, same_result, same_status
from agentforge_cli.replay.report import (
    MATCHED,
    MISMATCHED,
    STATUSES,
    UNRECORDED,
    CallReport,
    Entry,
    ReplayReport,
)
from agentforge_cli.replay.transcripts.events import Event, ToolCall, ToolResult

__all__ = ["Replayer", "describe_invocation", "replay"]

_SHOWN_VALUE_CHARS = 60


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
    from agentforge_cli.core.diagnostics import try_bind
    from agentforge_cli.core.masking import MASK, mask_value

    found = try_bind(service.executor(name), arguments)
    if found is None:
        return None
    definition, bound = found
    parts = []
    for param in definition.params:
        shown = MASK if param.sensitive else _show(mask_value(bound.get(param.name)))
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
            :attr:`CallReport.shown_arguments` (masked) is always filled.
        match: How results are compared: ``exact``, ``json`` or ``status``
            (:data:`~agentforge_cli.replay.compare.MATCH_MODES`).
    """

    def __init__(self, service: ToolService, *, memory_id: object = None,
                 describe: bool = True, match: str = "exact") -> None:
        if match not in MATCH_MODES:
            raise ValueError(f"unknown match mode {match!r}; expected "
                             + ", ".join(MATCH_MODES))
        self.match = match
        self.service = service
        self.memory_id = memory_id
        self.describe = describe
        self.summary: dict[str, int] = dict.fromkeys(STATUSES, 0)
        """Count of settled calls per status."""
        self._waiting: deque[Entry] = deque()
        self._open: dict[int, CallReport] = {}
        self._secret_keys: dict[str, frozenset[str]] = {}

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
        feed, waiting, still_open = self.feed, self._waiting, self._open
        for event in events:
            feed(event)
            if on_event is not None:
                on_event(event)
            while waiting:  # _drain, inlined: this loop runs once per event
                head = waiting[0]
                if type(head) is CallReport and head.index in still_open:
                    break
                yield waiting.popleft()
        yield from self.close()

    def feed(self, event: Event) -> None:
        """Handle one event (a call is executed at once)."""
        kind = type(event)  # hot path: the exact event classes (subclasses go the long way)
        if kind is ToolCall or (kind is not ToolResult and isinstance(event, ToolCall)):
            call = self._execute(event)
            self._open[event.index] = call
            self._waiting.append(call)
        elif kind is ToolResult or isinstance(event, ToolResult):
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
            if type(head) is CallReport and head.index in still_open:
                return
            yield waiting.popleft()

    def _execute(self, event: ToolCall) -> CallReport:
        service, name, arguments = self.service, event.name, event.arguments
        keys = self._secret_keys.get(name)
        if keys is None:
            keys = tool_sensitive_keys(service, name)
            if service.executor(name) is not None:  # bounded: one entry per tool
                self._secret_keys[name] = keys
        invocation = None
        if self.describe:
            invocation = describe_invocation(service, name, arguments)
        request = ToolExecutionRequest(id=event.id, name=name, arguments=arguments)
        started = perf_counter()
        result = service.execute(request, self.memory_id)
        elapsed = (perf_counter() - started) * 1000
        return CallReport(index=event.index, id=event.id, name=name, arguments=arguments,
                          where=event.where, actual=result.text,
                          is_error=bool(result.is_error), duration_ms=elapsed,
                          invocation=invocation,
                          shown_arguments=mask_arguments(arguments, keys, as_recorded=True))

    def _settle(self, call: CallReport) -> None:
        _judge(call, self.match)
        self.summary[call.status] += 1


def replay(
    events: Iterable[Event],
    service: ToolService,
    *,
    memory_id: object = None,
    on_event: Callable[[Event], None] | None = None,
    match: str = "exact",
) -> ReplayReport:
    """Re-run every recorded call through ``service`` and collect the whole report.

    For long transcripts prefer :class:`Replayer`, which yields entries as they settle.

    Raises:
        TranscriptError: From ``events`` at a malformed line; calls before it have run.
        ToolExecutionError: Only from executors set to propagate execution errors.
    """
    report = ReplayReport(match=match)
    for entry in Replayer(service, memory_id=memory_id, match=match).run(events, on_event):
        report.entries.append(entry)
        if isinstance(entry, CallReport):
            report.calls.append(entry)
    return report


def _judge(call: CallReport, match: str) -> None:
    if call.expected is None:
        call.status = UNRECORDED
        return
    if match == "status":
        same = same_status(call.expected_is_error, call.is_error)
    else:
        same = same_result(call.expected, call.actual, match) and (
            call.expected_is_error is None or call.expected_is_error == call.is_error)
    if same:
        call.status = MATCHED
    else:
        call.status = MISMATCHED
        call.diff = result_diff(call.expected, call.actual, call.expected_is_error,
                                call.is_error, match)
