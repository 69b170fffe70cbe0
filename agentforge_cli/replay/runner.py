"""Replay a recorded conversation against today's tools -> a report (data, never printed).

Every recorded call is sent through a :class:`~agentforge_cli.core.run.service.ToolService`, in
order, exactly as a model's call would be, and its result is compared with the recorded
one (:func:`~agentforge_cli.replay.compare.same_result`, in the chosen ``match`` mode);
where the transcript records ``is_error`` it must match too, so an error result that
matches a recorded error is ``matched`` (in ``status`` mode only that is compared).

With ``scrub`` (a :class:`~agentforge_cli.replay.scrubbing.Scrubbing`), a result whose text
differs from the recorded one is compared again with its tool's volatile parts scrubbed
from both (:meth:`~agentforge_cli.replay.scrubbing.Scrubber.compare`), and the call's
report says what was scrubbed; a result equal to the recording is never scrubbed, so
scrubbing costs nothing where results are the same, and nothing at all without ``scrub``.

Each call ends ``matched``, ``mismatched``, ``unrecorded`` (the transcript holds no
result for it) or ``drifted``: its recorded arguments no longer fit today's tool
(:mod:`~agentforge_cli.replay.argument_drift`), so it is not run. :class:`Replayer` works as the
events stream in, whatever format they were read from, and yields each entry once it is
settled, so a long transcript replays in constant memory; :func:`replay` collects
everything into a :class:`~agentforge_cli.replay.report.ReplayReport`.

With ``fresh``, each conversation of a file runs on tools of its own
(:class:`~agentforge_cli.replay.transcripts.model.ConversationStart`).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from time import perf_counter
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.bind.diagnostics import try_bind
from agentforge_cli.core.define.capabilities import DefinedToolExecutor, declares
from agentforge_cli.core.define.spec import ToolExecutionRequest
from agentforge_cli.core.observe.declared_secrets import tool_sensitive_keys
from agentforge_cli.core.observe.masking import MASK, mask_arguments, mask_value, may_hold_secret
from agentforge_cli.core.run.service import ToolService
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.replay.argument_drift import ArgumentFit, argument_fit
from agentforge_cli.replay.compare import (
    MATCH_MODES,
    MatchMode,
    result_diff,
    same_result,
    same_status,
)
from agentforge_cli.replay.recorded_requests import RECORDED_REQUESTS, RequestScript
from agentforge_cli.replay.report import (
    DRIFTED,
    MATCHED,
    MISMATCHED,
    STATUSES,
    UNRECORDED,
    CallReport,
    CallStatus,
    Entry,
    ReplayReport,
)
from agentforge_cli.replay.transcripts.model import (
    ConversationStart,
    Event,
    SystemPrompt,
    ToolCall,
    ToolResult,
    TranscriptError,
)

if TYPE_CHECKING:
    from agentforge_cli.replay.scrubbing import Scrubbing

__all__ = ["Replayer", "describe_invocation", "replay"]

_SHOWN_VALUE_CHARS = 60

_encode_string = json.encoder.encode_basestring  # how json.dumps writes a str, UTF-8 kept
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


_Facts = tuple[frozenset[str], "ArgumentFit | None"]
"""What replay reads of a tool once: its sensitive keys and its ArgumentFit."""


class _Tools:
    """One service, and what replay read of its tools: per name, the sensitive keys and
    the :class:`~agentforge_cli.replay.argument_drift.ArgumentFit` (read once per tool; a tool
    made afresh with the same parameters reuses what ``read`` holds of its first)."""

    __slots__ = ("known", "read", "service")

    def __init__(self, service: ToolService, read: dict[tuple[str, int], tuple[Any, _Facts]]
                 ) -> None:
        self.service = service
        self.read = read
        self.known: dict[str, _Facts] = {}

    def learn(self, name: str) -> _Facts:
        executor = self.service.executor(name)
        if executor is None:  # bounded: nothing kept for an unknown name
            return tool_sensitive_keys(self.service, name), None
        base = innermost(executor)
        params = base.definition.params if declares(base, DefinedToolExecutor) else None
        key = (name, id(params))
        held = self.read.get(key) if params is not None else None
        if held is not None and held[0] is params:
            facts = held[1]
        else:
            facts = (tool_sensitive_keys(self.service, name), argument_fit(executor))
            if params is not None:
                self.read[key] = (params, facts)  # the params kept: their id stays theirs
        self.known[name] = facts
        return facts


ALONGSIDE_SERVICES = 64
"""Conversations that go on alongside each other (a cassette's) keep their tools, the
most recently used this many: one that goes on after more have started than that starts
on tools afresh (a bound on memory for a cassette of thousands of conversations)."""

class Replayer:
    """Replays a stream of events, yielding each entry once it is settled.

    One engine for every transcript format: it sees only events. Entries come out in
    transcript order. A call is settled when its recorded result is read
    (``matched``/``mismatched``, or ``drifted``) or when the transcript ends without one
    (``unrecorded``); entries after an unsettled call wait for it. Only those waiting
    entries are held, so a long transcript whose results follow their calls replays in
    constant memory::

        replayer = Replayer(service)
        for entry in replayer.run(transcript.events()):
            ...
        replayer.summary, replayer.failed

    Args:
        service: The tools as they are today.
        fresh: Make a new service: each conversation's calls (``ToolCall.conversation``)
            then run on their own, made at the conversation's first call. A
            :class:`ConversationStart` that is not ``alongside`` ends every earlier
            conversation and drops their services. Without it every call runs on
            ``service``.
        memory_id: Passed to each execution.
        describe: Fill :attr:`CallReport.invocation` (binds the arguments a second time).
            :attr:`CallReport.shown_arguments` (masked) is always filled.
        match: How results are compared: a
            :class:`~agentforge_cli.replay.compare.MatchMode` or its value.
        allow_drift: A ``drifted`` call does not fail the replay (it is still reported,
            and still not run).
        scrub: The volatile parts of each tool's results, scrubbed before a differing
            result is compared again (not in ``status`` mode, which compares no text).
    """

    def __init__(self, service: ToolService, *,
                 fresh: Callable[[], ToolService] | None = None, memory_id: object = None,
                 describe: bool = True, match: MatchMode | str = MatchMode.EXACT,
                 allow_drift: bool = False, scrub: Scrubbing | None = None) -> None:
        if match not in MATCH_MODES:
            raise ValueError(f"unknown match mode {match!r}; expected "
                             + ", ".join(MATCH_MODES))
        self.match = MatchMode(match)
        self.service = service
        self.memory_id = memory_id
        self.describe = describe
        self.allow_drift = allow_drift
        self.scrub = scrub if self.match != MatchMode.STATUS else None
        self.summary: dict[CallStatus, int] = dict.fromkeys(STATUSES, 0)
        """Count of settled calls per status (``drifted`` once a call drifted); complete
        once :meth:`run` has ended (a match settled at once is counted then)."""
        self._fresh = fresh
        self._read: dict[tuple[str, int], tuple[Any, _Facts]] = {}
        self._shared = _Tools(service, self._read) if fresh is None else None
        self._conversations: dict[int, _Tools] = {}  # least recently used first
        self._last: tuple[int, _Tools] | None = None  # the conversation of the last call
        self._waiting: deque[Entry] = deque()
        self._open: dict[int, CallReport] = {}
        self.remedies: dict[tuple[str, str], None] = {}
        """The migrations that would make the drifted calls fit (``("--rename-arg",
        "tool.old=new")``, :meth:`ArgumentFit.remedies`), in the order found."""

    @property
    def failed(self) -> bool:
        """A settled call's result differs from the recording, or a call drifted (unless
        ``allow_drift``)."""
        return self.summary[MISMATCHED] > 0 or self.drift_failed

    @property
    def drift_failed(self) -> bool:
        """A call drifted and drift is not allowed (``--update`` cannot mend that)."""
        return not self.allow_drift and self.summary.get(DRIFTED, 0) > 0

    @property
    def services(self) -> int:
        """How many conversations' services are held now (with ``fresh``)."""
        return len(self._conversations)

    def run(self, events: Iterable[Event],
            on_event: Callable[[Event], None] | None = None) -> Iterator[Entry]:
        """Replay ``events`` and yield every entry, settled, in transcript order.

        A call answered by the very next event while nothing waits before it is settled
        there, without passing through the queue of unsettled calls; a plain match (the
        same text, no drift) is settled without :func:`_judge`'s comparison.

        When ``events`` stops at a record it cannot read, the calls already run are
        settled (those still waiting for a result as ``unrecorded``: none was read) and
        yielded before the error is raised, so every report shows what ran.

        Raises:
            TranscriptError: From ``events`` at a malformed line, after the entries of
                the calls before it.
        """
        feed, run_call, settle = self.feed, self._run, self._settle
        waiting, still_open, summary = self._waiting, self._open, self.summary
        exact_text = self.match != MatchMode.STATUS
        held: CallReport | None = None  # the call read last, run, not queued
        matched = 0  # matches settled at once, counted into summary at the end
        unreadable: TranscriptError | None = None
        try:
            for event in events:
                if on_event is not None:
                    on_event(event)
                if held is not None:
                    call, held = held, None
                    if type(event) is ToolResult and event.call_index == call.index:
                        content, flag, actual = event.content, event.is_error, call.actual
                        call.expected_is_error, call.result_where = flag, event.where
                        if exact_text and content == actual and call.drift is None and (
                                flag is None or flag is call.is_error) and (
                                not call.requests_differ):
                            call.expected, call.status = actual, MATCHED  # what _judge says
                            matched += 1
                        else:
                            call.expected = content
                            settle(call)
                        yield call
                        continue
                    still_open[call.index] = call
                    waiting.append(call)
                if type(event) is ToolCall and not waiting:
                    held = run_call(event)
                    continue
                feed(event)
                while waiting:  # _drain, inlined: this loop runs once per event
                    head = waiting[0]
                    if type(head) is CallReport and head.index in still_open:
                        break
                    yield waiting.popleft()
        except TranscriptError as exc:  # the calls run so far are still reported
            unreadable = exc
        finally:  # the last call read waits for a result (also when a later read failed)
            summary[MATCHED] += matched
            if held is not None:
                still_open[held.index] = held
                waiting.append(held)
        yield from self.close()
        if unreadable is not None:
            raise unreadable

    def feed(self, event: Event) -> None:
        """Handle one event (a call is executed at once, unless it drifted)."""
        if isinstance(event, ToolCall):  # hot path: as fast as comparing type(event)
            call = self._run(event)
            self._open[event.index] = call
            self._waiting.append(call)
        elif isinstance(event, ToolResult):
            report = self._open.pop(event.call_index, None)
            if report is not None:
                report.expected = event.content
                report.expected_is_error = event.is_error
                report.result_where = event.where
                self._settle(report)
        elif isinstance(event, SystemPrompt):
            return  # what the model was told: nothing to run or compare
        else:
            if isinstance(event, ConversationStart) and not event.alongside:
                self._conversations.clear()  # every earlier conversation is over
                self._last = None
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

    def _tools(self, conversation: int) -> _Tools:
        """The tools of a conversation, made afresh at its first call (and kept as the
        most recently used)."""
        held = self._conversations
        tools = held.pop(conversation, None)
        if tools is None:
            assert self._fresh is not None  # only a fresh replay keeps tools per conversation
            tools = _Tools(self._fresh(), self._read)
            if len(held) >= ALONGSIDE_SERVICES:
                del held[next(iter(held))]  # the least recently used gives its tools up
        held[conversation] = tools
        self._last = (conversation, tools)
        return tools

    def _run(self, call: ToolCall) -> CallReport:
        """Check one recorded call for drift and, unless it drifted, execute it: its
        report, not yet settled."""
        tools = self._shared
        if tools is None:  # fresh tools: most calls are of the conversation before
            last = self._last
            tools = (last[1] if last is not None and last[0] == call.conversation
                     else self._tools(call.conversation))
        name, arguments = call.name, call.arguments
        facts = tools.known.get(name) or tools.learn(name)
        keys, fit = facts
        shown = arguments
        if may_hold_secret(arguments, keys):  # one scan finds nothing in most
            shown = mask_arguments(arguments, keys, as_recorded=True)
        drift = None if fit is None else fit.drift(arguments)
        if drift is not None and fit is not None and fit.refused(arguments) is None:
            # not run: its arguments no longer mean what they meant (a refused value
            # would have stopped it before the tool: that one runs, and is judged below)
            self.remedies.update(dict.fromkeys(fit.remedies(arguments)))
            return CallReport(call.index, call.id, name, arguments, call.where, None, None,
                              0.0, None, shown, drift)
        service = tools.service
        invocation = describe_invocation(service, name, arguments) if self.describe else None
        request = ToolExecutionRequest(id=call.id, name=name, arguments=arguments)
        script = None if call.asked is None else RequestScript(call.asked)
        token = None if script is None else RECORDED_REQUESTS.set(script)
        started = perf_counter()
        try:
            result = service.execute(request, self.memory_id)
        finally:
            if token is not None:
                RECORDED_REQUESTS.reset(token)
        elapsed = (perf_counter() - started) * 1000
        text, is_error = result
        if is_error and drift is None and fit is not None:  # a value today's binding refuses?
            drift = fit.refused(arguments)
        report = CallReport(call.index, call.id, name, arguments, call.where, text, is_error,
                            elapsed, invocation, shown, drift)
        if script is not None:
            report.requests = script.finish()
            report.requests_differ = any(outcome.differs for outcome in report.requests)
        return report

    def _settle(self, call: CallReport) -> None:
        _judge(call, self.match, self.scrub)
        status = call.status
        self.summary[status] = self.summary.get(status, 0) + 1


def replay(
    events: Iterable[Event],
    service: ToolService,
    *,
    memory_id: object = None,
    on_event: Callable[[Event], None] | None = None,
    match: MatchMode | str = MatchMode.EXACT,
    allow_drift: bool = False,
    scrub: Scrubbing | None = None,
) -> ReplayReport:
    """Re-run every recorded call through ``service`` and collect the whole report.

    For long transcripts prefer :class:`Replayer`, which yields entries as they settle.

    Raises:
        TranscriptError: From ``events`` at a malformed line; calls before it have run
            (and were settled, but the report is not returned).
        ToolExecutionError: Only from executors set to propagate execution errors.
    """
    replayer = Replayer(service, memory_id=memory_id, match=match, allow_drift=allow_drift,
                        scrub=scrub)
    report = ReplayReport(match=replayer.match, allow_drift=allow_drift)
    for entry in replayer.run(events, on_event):
        report.entries.append(entry)
        if isinstance(entry, CallReport):
            report.calls.append(entry)
    return report


def _judge(call: CallReport, match: MatchMode, scrub: Scrubbing | None = None) -> None:
    if call.drift is not None:
        if call.actual is None or not _recorded_error(call, match):
            call.status = DRIFTED
            call.actual = call.is_error = None  # not run, or refused before the tool ran
            return
        call.drift = None  # a recorded argument error that still occurs: no drift
    if call.expected is None:
        call.status = UNRECORDED
        return
    _judge_result(call, match, scrub)
    if call.requests_differ:  # the server asked otherwise than recorded: never a match
        call.diff = (_requests_line(call), *call.diff)
        call.status = MISMATCHED


def _requests_line(call: CallReport) -> str:
    """The diff's line about the server's requests that differ from the recording."""
    counts: dict[str, int] = {}
    for outcome in call.requests:
        if outcome.differs:
            counts[outcome.status] = counts.get(outcome.status, 0) + 1
    return ("the server's requests differ from the recording: "
            + ", ".join(f"{count} {status}" for status, count in counts.items()))


def _judge_result(call: CallReport, match: MatchMode, scrub: Scrubbing | None) -> None:
    """Compare today's result with the recorded one: the status and diff."""
    actual, is_error = call.actual, call.is_error
    assert call.expected is not None  # an unrecorded call is judged before
    assert actual is not None and is_error is not None  # only a drifted call did not run
    if match == MatchMode.STATUS:
        if same_status(call.expected_is_error, is_error):
            call.status = MATCHED
        else:
            call.status = MISMATCHED
            call.diff = result_diff(call.expected, actual, call.expected_is_error,
                                    is_error, match)
        return
    expected, same = call.expected, same_result(call.expected, actual, match)
    scrubber = scrub.for_tool(call.name) if scrub is not None and not same else None
    if scrubber is not None:
        scrubbed = scrubber.compare(expected, actual, match)
        if scrubbed.scrubbed:  # compared through the scrubber: its texts are the diff's
            call.scrubbed, same = scrubbed.scrubbed, scrubbed.same
            expected, actual = scrubbed.expected, scrubbed.actual
    if same and (call.expected_is_error is None or call.expected_is_error == is_error):
        call.status = MATCHED
        return
    call.status = MISMATCHED
    call.diff = result_diff(expected, actual, call.expected_is_error, is_error, match)
    if not call.diff:  # the scrubbed texts read alike (a number beyond a float's digits)
        call.diff = result_diff(call.expected, call.actual or "", call.expected_is_error,
                                is_error, match)


def _recorded_error(call: CallReport, match: MatchMode) -> bool:
    """The recording shows the call failing: its error flag, or (with none recorded)
    today's error text itself."""
    if call.expected is None or call.actual is None or call.expected_is_error is False:
        return False
    return call.expected_is_error is True or (
        match != MatchMode.STATUS and same_result(call.expected, call.actual, match))
