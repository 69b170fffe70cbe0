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

from agentforge_cli.core.diagnostics import try_bind
from agentforge_cli.core.masking import (
    MASK,
    mask_arguments,
    mask_value,
    may_hold_secret,
    tool_sensitive_keys,
)
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
    call_json,
    json_entry,
)
from agentforge_cli.replay.transcripts import agentforge, registry
from agentforge_cli.replay.transcripts.calls import CallBook
from agentforge_cli.replay.transcripts.events import Event, ToolCall, ToolResult
from agentforge_cli.replay.transcripts.records import _scan, jsonl_blocks, jsonl_record
from agentforge_cli.replay.transcripts.transcript import EventStream

__all__ = ["Replayer", "describe_invocation", "replay"]

_SHOWN_VALUE_CHARS = 60

# A result line as json.dumps writes it, spaced or compact, keyed by the character after
# '{"type":': the parts around its id, content and is_error.
_RESULT_LINES = {
    " ": ('{"type": "tool_result", "id": ', ', "content": ', ', "is_error": '),
    '"': ('{"type":"tool_result","id":', ',"content":', ',"is_error":'),
}
_encode_string = json.encoder.encode_basestring  # how json.dumps writes a str, UTF-8 kept
_SHORT_PATH = True
"""Replay agentforge JSONL transcripts on :meth:`Replayer._run_lines` (tests turn it off
to compare it with the general path)."""


def _show(value: Any) -> str:
    if isinstance(value, set | frozenset):  # a stable order, whatever the hash seed
        try:
            items = sorted(value)
        except TypeError:
            items = sorted(value, key=repr)
        text = "{" + ", ".join(_show(item) for item in items) + "}" if items else repr(value)
    elif isinstance(value, str):
        text = _encode_string(value)  # json.dumps(value, ensure_ascii=False), cheaper
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
        if on_event is None and self._reads_lines(events):
            yield from self._run_lines(events.transcript)  # type: ignore[attr-defined]
            return
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

    def json_lines(self, events: Iterable[Event]) -> Iterator[str]:
        """:meth:`run`, keeping only the calls, each as its ``replay --json`` entry
        (:func:`~agentforge_cli.replay.report.call_json`).

        Raises:
            TranscriptError: From ``events`` at a malformed line; calls before it have run.
        """
        if self._reads_lines(events):  # matched calls come as text, never as reports
            entries = self._run_lines(events.transcript, as_json=True)  # type: ignore
        else:
            entries = self.run(events)
        for entry in entries:
            if type(entry) is str:
                yield entry
            elif isinstance(entry, CallReport):
                yield call_json(entry)

    def _reads_lines(self, events: Iterable[Event]) -> bool:
        """``events`` are an agentforge JSONL transcript's, not yet started, and this is a
        plain Replayer: :meth:`_run_lines` may read the file itself."""
        if not _SHORT_PATH or type(events) is not EventStream or events.started:
            return False
        transcript = events.transcript
        if (transcript.container != "jsonl" or transcript.format != agentforge.NAME
                or registry.find_format(agentforge.NAME) is not agentforge):
            return False
        kind = type(self)
        if (kind.feed is not Replayer.feed or kind._execute is not Replayer._execute
                or kind._call is not Replayer._call or kind._settle is not Replayer._settle
                or kind._run_call is not Replayer._run_call):
            return False
        events.started = True
        return True

    def _run_lines(self, transcript: Any, *, as_json: bool = False) -> Iterator[Entry | str]:
        """:meth:`run` on an agentforge JSONL transcript, reading its lines here: the common
        call and result lines (the shapes :func:`agentforge.record_events` reads on its
        short path) are replayed without building events; every other line is read into
        its events and fed as :meth:`run` would. Entries, errors and their order are the
        same.

        A call is held back for one line: when nothing waits before it and the next line
        is its result exactly as ``json.dumps`` writes today's, it is settled there and
        never waits (as its ``replay --json`` entry with ``as_json``, a
        :func:`~agentforge_cli.replay.report.json_entry`)."""
        path = transcript.path
        book = CallBook(path)
        book_call, book_result, answered_at_once = book.call, book.result, book.answered_at_once
        record_events, feed, run_call = agentforge.record_events, self.feed, self._run_call
        waiting, still_open, summary = self._waiting, self._open, self.summary
        exact_text = self.match != "status"
        scan, encode, result_lines = _scan, _encode_string, _RESULT_LINES.get
        # the call read on the line before: (index, id, name, arguments, where, ran), its
        # index None when it is not in the book yet (nothing waited: it cannot clash)
        held = None
        try:
            for number, lines, ended in jsonl_blocks(path, transcript.content):
                unended = -1 if ended else number + len(lines)  # the line without a newline
                for line in lines:
                    number += 1
                    content = None
                    if held is not None:
                        index, call_id, name, arguments, where, ran = held
                        held = None
                        actual, is_error = ran[0], ran[1]
                        if call_id is not None and (layout := result_lines(line[8:9])) and (
                                line == f'{layout[0]}{encode(call_id)}{layout[1]}'
                                        f'{encode(actual)}{layout[2]}'
                                        f'{"true" if is_error else "false"}}}'):
                            # today's result, written as json.dumps writes it: what it holds
                            if index is None:  # settled here: matched in every match mode
                                index = answered_at_once()
                                summary[MATCHED] += 1
                                if as_json:
                                    yield json_entry(call_id, name, MATCHED, actual, actual,
                                                     is_error, is_error, ran[3], where, ran[2])
                                else:
                                    yield _report(index, call_id, name, arguments, where, ran,
                                                  expected=actual, expected_is_error=is_error,
                                                  result_where=f"line {number}", status=MATCHED)
                                continue
                            content = actual
                        if index is None:
                            index = book_call(call_id, where)
                        call = still_open[index] = _report(index, call_id, name, arguments,
                                                           where, ran)
                        waiting.append(call)
                    if content is None:
                        try:
                            data, end = scan(line, 0)
                        except (StopIteration, ValueError, RecursionError):
                            end = -1
                        if end == len(line) and type(data) is dict:
                            kind = data.get("type")
                            call_id = data.get("id")
                            if type(call_id) is str or call_id is None:
                                if kind == "tool_call":
                                    name, arguments = data.get("name"), data.get("arguments")
                                    if type(name) is str and name and type(arguments) is str:
                                        where = f"line {number}"
                                        # in the book now if anything waits: a clash of ids
                                        # is refused before the call runs
                                        held = (book_call(call_id, where) if waiting else None,
                                                call_id, name, arguments, where,
                                                run_call(call_id, name, arguments))
                                        continue
                                elif kind == "tool_result":
                                    content, is_error = data.get("content"), data.get("is_error")
                                    if type(content) is not str or not (
                                            is_error is None or type(is_error) is bool):
                                        content = None
                    if content is not None:  # a result line of the common shape
                        where = f"line {number}"
                        call = still_open.pop(book_result(call_id, where), None)
                        if call is not None:
                            call.expected = content
                            call.expected_is_error = is_error
                            call.result_where = where
                            if exact_text and content == call.actual and (
                                    is_error is None or is_error is call.is_error):
                                call.status = MATCHED  # what _judge decides
                                summary[MATCHED] += 1
                            else:
                                self._settle(call)
                        while waiting:
                            head = waiting[0]
                            if type(head) is CallReport and head.index in still_open:
                                break
                            yield waiting.popleft()
                        continue
                    text = line if number == unended else line + "\n"
                    for event in record_events(jsonl_record(path, text, number), book):
                        feed(event)
                        while waiting:
                            head = waiting[0]
                            if type(head) is CallReport and head.index in still_open:
                                break
                            yield waiting.popleft()
        finally:  # the last call read waits for a result (also when a later read failed)
            if held is not None:
                index, call_id, name, arguments, where, ran = held
                if index is None:
                    index = book_call(call_id, where)
                waiting.append(_report(index, call_id, name, arguments, where, ran))
                still_open[index] = waiting[-1]
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
        return self._call(event.index, event.id, event.name, event.arguments, event.where)

    def _call(self, index: int, call_id: str | None, name: str, arguments: str,
              where: str) -> CallReport:
        """Execute one recorded call: its report, not yet settled."""
        return _report(index, call_id, name, arguments, where,
                       self._run_call(call_id, name, arguments))

    def _run_call(self, call_id: str | None, name: str, arguments: str) -> _Ran:
        """Execute one recorded call: ``(text, is_error, duration_ms, shown arguments,
        invocation)``."""
        service = self.service
        keys = self._secret_keys.get(name)
        if keys is None:
            keys = tool_sensitive_keys(service, name)
            if service.executor(name) is not None:  # bounded: one entry per tool
                self._secret_keys[name] = keys
        invocation = None
        if self.describe:
            invocation = describe_invocation(service, name, arguments)
        request = ToolExecutionRequest(id=call_id, name=name, arguments=arguments)
        started = perf_counter()
        result = service.execute(request, self.memory_id)
        elapsed = (perf_counter() - started) * 1000
        shown = (mask_arguments(arguments, keys, as_recorded=True)
                 if may_hold_secret(arguments, keys) else arguments)
        return result.text, bool(result.is_error), elapsed, shown, invocation

    def _settle(self, call: CallReport) -> None:
        _judge(call, self.match)
        self.summary[call.status] += 1


_Ran = tuple[str, bool, float, str, "str | None"]
"""What running a call gave: today's text, is_error, duration_ms, the arguments as shown
and the invocation (:meth:`Replayer._run_call`)."""


def _report(index: int, call_id: str | None, name: str, arguments: str, where: str,
            ran: _Ran, **settled: Any) -> CallReport:
    """The report of a call that ran (``settled``: its recorded result and status)."""
    actual, is_error, elapsed, shown, invocation = ran
    return CallReport(index=index, id=call_id, name=name, arguments=arguments, where=where,
                      actual=actual, is_error=is_error, duration_ms=elapsed,
                      invocation=invocation, shown_arguments=shown, **settled)


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
