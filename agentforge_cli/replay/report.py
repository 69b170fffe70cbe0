"""What a replay found, as data: one :class:`CallReport` per call, a :class:`ReplayReport`
for a whole transcript. Nothing here prints; the command line renders these.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from agentforge_cli.replay.compare import MatchMode
from agentforge_cli.replay.recorded_requests import RequestOutcome
from agentforge_cli.replay.transcripts.model import (
    AssistantMessage,
    ConversationStart,
    UserMessage,
)
from agentforge_cli.replay.transcripts.place import Place

__all__ = ["DRIFTED", "MATCHED", "MISMATCHED", "STATUSES", "UNRECORDED", "CallReport",
           "CallStatus", "Entry", "ReplayReport", "call_json", "json_entry"]


class CallStatus(StrEnum):
    """How a replayed call ended; the value is what every output writes."""

    MATCHED = "matched"
    """Today's result is the recorded one."""
    MISMATCHED = "mismatched"
    """Today's result differs from the recorded one."""
    UNRECORDED = "unrecorded"
    """The transcript holds no result for the call."""
    DRIFTED = "drifted"
    """The recorded arguments no longer fit today's tool
    (:mod:`~agentforge_cli.replay.argument_drift`): the call was not run."""


MATCHED = CallStatus.MATCHED
MISMATCHED = CallStatus.MISMATCHED
UNRECORDED = CallStatus.UNRECORDED
DRIFTED = CallStatus.DRIFTED
STATUSES = (MATCHED, MISMATCHED, UNRECORDED)
"""The statuses every summary counts, in summary order; ``drifted`` follows them in a
summary only when a call drifted."""


# Not frozen: the recorded result and the status are filled in when the call settles,
# after it ran. Slots, and positional fields in the order the replayer knows them: one is
# built per call on the replay hot path (positional arguments bind in half the time).
@dataclass(slots=True)
class CallReport:
    """One replayed call: what was recorded, what the tools answer today."""

    index: int
    """Position among the transcript's calls, from 0."""
    id: str | None
    """The recorded call id."""
    name: str
    """The tool called."""
    arguments: str
    """The recorded argument string, secrets included: never print it, print
    :attr:`shown_arguments`."""
    where: Place
    """Where the call is in the file."""
    actual: str | None
    """Today's result text; ``None`` for a call that was not run (``drifted``)."""
    is_error: bool | None
    """Today's result is an error; ``None`` for a call that was not run."""
    duration_ms: float
    """How long today's call took."""
    invocation: str | None = None
    """The Python call the arguments bound to, e.g. ``CrmTools.queryCustomer("长路", 5)``
    (secrets masked); ``None`` when they do not bind."""
    shown_arguments: str | None = None
    """The recorded arguments as every output shows them: as recorded when they cannot
    hold a secret, else compact JSON with the tool's secrets masked
    (:func:`~agentforge_cli.core.observe.masking.mask_arguments`); the replayer always fills it."""
    drift: str | None = None
    """For a drifted call: which parameter no longer fits today's tool, and how."""
    expected: str | None = None
    """The recorded result text, ``None`` when there is none."""
    expected_is_error: bool | None = None
    """The recorded error flag, ``None`` when the format does not record one."""
    result_where: Place | None = None
    """Where the recorded result is in the file."""
    status: CallStatus = UNRECORDED
    """``matched``, ``mismatched``, ``unrecorded`` or ``drifted``."""
    diff: Sequence[str] = ()
    """For a mismatch: readable lines saying what differs (with :attr:`scrubbed`, between
    the scrubbed results)."""
    scrubbed: tuple[str, ...] = ()
    """What was scrubbed before the results were compared (``$.created_at``,
    ``$.logs[0].line (timestamps)``); empty when they were compared as they are."""
    requests: tuple[RequestOutcome, ...] = ()
    """The MCP server's requests to its client during the call, recorded or asked today,
    and how each went (:mod:`~agentforge_cli.replay.recorded_requests`)."""
    requests_differ: bool = False
    """A request was asked otherwise than recorded, not recorded, or not asked today: the
    call differs from its recording whatever its result."""

    @property
    def needs_update(self) -> bool:
        """The recording is missing or differs: ``--update`` writes today's result (a
        drifted call has none: it was not run; a call whose result is the recorded one
        but whose server's requests differ has nothing to write)."""
        if self.status == MISMATCHED and self.requests_differ and not self.diff_in_result:
            return False
        return self.status == MISMATCHED or self.status == UNRECORDED

    @property
    def diff_in_result(self) -> bool:
        """Today's result differs from the recorded one (text or error flag)."""
        return self.expected != self.actual or (self.expected_is_error is not None
                                                and self.expected_is_error != self.is_error)

    def masked_arguments(self) -> str:
        """:attr:`shown_arguments`, or the recorded arguments masked with the secret-name
        rule alone when the call was reported without them."""
        if self.shown_arguments is not None:
            return self.shown_arguments
        from agentforge_cli.core.observe.masking import mask_arguments

        return mask_arguments(self.arguments, as_recorded=True)

    def to_dict(self) -> dict[str, Any]:
        """The ``replay --json`` entry of this call (arguments masked; ``drift`` only for
        a drifted call, ``scrubbed`` only for a call whose results were scrubbed)."""
        entry: dict[str, Any] = {
            "id": self.id, "name": self.name, "status": self.status,
            "expected": self.expected, "actual": self.actual,
            "expected_is_error": self.expected_is_error, "is_error": self.is_error,
            "arguments": self.masked_arguments(), "where": str(self.where),
            "duration_ms": round(self.duration_ms, 3)}
        if self.drift is not None:
            entry["drift"] = self.drift
        if self.scrubbed:
            entry["scrubbed"] = list(self.scrubbed)
        if self.requests:
            entry["server_requests"] = [outcome.to_dict() for outcome in self.requests]
        return entry


Entry = UserMessage | AssistantMessage | ConversationStart | CallReport
"""A line of the replayed conversation, in transcript order."""


@dataclass(kw_only=True, slots=True)
class ReplayReport:
    """The whole outcome of a replay, collected (see :func:`replay`)."""

    entries: list[Entry] = field(default_factory=list)
    """Messages and calls in transcript order (for the trace)."""
    calls: list[CallReport] = field(default_factory=list)
    """Every call, in order."""
    match: MatchMode = MatchMode.EXACT
    """How results were compared (``exact``, ``json`` or ``status``)."""
    allow_drift: bool = False
    """A drifted call does not fail the replay."""

    @property
    def summary(self) -> dict[CallStatus, int]:
        """Count of calls per status (every status of :data:`STATUSES`, zero included;
        ``drifted`` when a call drifted)."""
        counts = dict.fromkeys(STATUSES, 0)
        for call in self.calls:
            counts[call.status] = counts.get(call.status, 0) + 1
        return counts

    @property
    def failed(self) -> bool:
        """A result differs from the recording, or a call drifted (unless allowed)."""
        return any(call.status == MISMATCHED
                   or (call.status == DRIFTED and not self.allow_drift) for call in self.calls)

    def updates(self) -> dict[int, tuple[str, bool]]:
        """Call index -> today's ``(text, is_error)`` for every call whose recording is
        missing or differs (what ``--update`` writes)."""
        return {call.index: (call.actual, call.is_error) for call in self.calls
                if call.needs_update and call.actual is not None and call.is_error is not None}

    def to_dict(self) -> dict[str, Any]:
        """The ``replay --json`` object: ``summary``, ``calls`` and ``match``."""
        return {"summary": self.summary, "calls": [call.to_dict() for call in self.calls],
                "match": self.match}


# -- the replay --json entry of a call, written directly (the hot path of a long replay) --

_encode = json.JSONEncoder(ensure_ascii=False).encode
_string = json.encoder.encode_basestring  # what that encoder writes a str with


def call_json(call: CallReport) -> str:
    """``call.to_dict()`` as ``json.JSONEncoder(ensure_ascii=False)`` writes it, byte for
    byte: one entry of ``replay --json``. A match settled at its result (its recorded
    text is today's) is written here, the part that depends only on the tool written once
    per tool; any other call by :func:`json_entry`."""
    actual, shown = call.actual, call.shown_arguments
    if not (call.expected is actual and call.status is MATCHED and actual is not None
            and shown is not None and call.is_error is not None and not call.requests):
        return json_entry(call.id, call.name, call.status, call.expected, actual,
                          call.expected_is_error, call.is_error, call.masked_arguments(),
                          call.where, call.duration_ms, call.drift, call.scrubbed,
                          call.requests)
    name, call_id, flag, duration_ms = call.name, call.id, call.expected_is_error, call.duration_ms
    head = _MATCHED_HEADS.get(name)
    if head is None:
        if len(_MATCHED_HEADS) >= 1024:  # bounded: names come from recordings
            _MATCHED_HEADS.clear()
        head = _MATCHED_HEADS[name] = (f'"name": {_string(name)}, "status": "{MATCHED}", '
                                       '"expected": ')
    text = _string(actual)
    if type(duration_ms) is float and -1e9 < duration_ms < 1e9:  # _json_duration, inlined
        duration = f"{duration_ms:.3f}".rstrip("0")
        if duration[-1] == ".":
            duration += "0"
    else:
        duration = _json_duration(duration_ms)
    return (f'{{"id": {"null" if call_id is None else _string(call_id)}, {head}{text}, '
            f'"actual": {text}, "expected_is_error": '
            f'{"false" if flag is False else _json_flag(flag)}, '
            f'"is_error": {"true" if call.is_error else "false"}, '
            f'"arguments": {_string(shown)}, "where": {_place(call.where)}, '
            f'"duration_ms": {duration}}}')


def _place(where: Place) -> str:
    """``where`` rendered as a JSON string (a JSONL line's, the usual one, directly)."""
    if not where.path and where.line is not None:
        return f'"line {where.line}"'
    return _string(str(where))


_MATCHED_HEADS: dict[str, str] = {}
"""A tool name -> the entry's text from ``"name"`` to ``"expected": ``, of a matched call."""


def json_entry(call_id: str | None, name: str, status: CallStatus, expected: str | None,
               actual: str | None, expected_is_error: bool | None, is_error: bool | None,
               arguments: str, where: Place, duration_ms: float,
               drift: str | None = None, scrubbed: Sequence[str] = (),
               requests: Sequence[RequestOutcome] = ()) -> str:
    """:func:`call_json` of a call given field by field (``arguments`` as shown, masked),
    formatted directly: encoding the dict costs more than the call it reports."""
    actual_text = "null" if actual is None else _string(actual)
    if expected is actual:  # a matched result: one text, encoded once
        expected_text = actual_text
    else:
        expected_text = "null" if expected is None else _string(expected)
    end = "}" if drift is None else f', "drift": {_string(drift)}}}'
    if scrubbed:  # after drift, as to_dict orders them; the list written by the encoder
        end = f'{end[:-1]}, "scrubbed": {_encode(list(scrubbed))}}}'
    if requests:  # last, as to_dict orders them
        listed = _encode([outcome.to_dict() for outcome in requests])
        end = f'{end[:-1]}, "server_requests": {listed}}}'
    return (f'{{"id": {"null" if call_id is None else _string(call_id)}, '
            f'"name": {_string(name)}, "status": {_string(status)}, '
            f'"expected": {expected_text}, "actual": {actual_text}, "expected_is_error": '
            f'{"false" if expected_is_error is False else _json_flag(expected_is_error)}, '
            f'"is_error": {"false" if is_error is False else _json_flag(is_error)}, '
            f'"arguments": {_string(arguments)}, "where": {_place(where)}, '
            f'"duration_ms": {_json_duration(duration_ms)}{end}')


def _json_flag(value: bool | None) -> str:
    return "null" if value is None else "true" if value else "false"


def _json_duration(value: float) -> str:
    """``_encode(round(value, 3))``, cheaper: both round with the same correctly rounded
    conversion to three decimals, and below 1e9 the shortest text of the rounded number
    is those decimals without their trailing zeros."""
    if type(value) is float and -1e9 < value < 1e9:
        text = f"{value:.3f}".rstrip("0")
        return text + "0" if text[-1] == "." else text
    value = round(value, 3)
    if (type(value) is float and math.isfinite(value)) or type(value) is int:
        return repr(value)  # what the encoder writes for a finite float or an int
    return _encode(value)
