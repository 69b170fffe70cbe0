"""What a replay found, as data: one :class:`CallReport` per call, a :class:`ReplayReport`
for a whole transcript. Nothing here prints; the command line renders these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.replay.transcripts.events import AssistantMessage, UserMessage

__all__ = ["MATCHED", "MISMATCHED", "STATUSES", "UNRECORDED", "CallReport", "Entry",
           "ReplayReport"]

MATCHED = "matched"
MISMATCHED = "mismatched"
UNRECORDED = "unrecorded"
STATUSES = (MATCHED, MISMATCHED, UNRECORDED)
"""Every status a call can end with, in summary order."""


# Not frozen: the recorded result and the status are filled in when the call settles,
# after it ran. Slots: one is built per call on the replay hot path.
@dataclass(kw_only=True, slots=True)
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
    shown_arguments: str | None = None
    """The recorded arguments as every output shows them: as recorded when they cannot
    hold a secret, else compact JSON with the tool's secrets masked
    (:func:`~agentforge_cli.core.masking.mask_arguments`); the replayer always fills it."""
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

    @property
    def needs_update(self) -> bool:
        """The recording is missing or differs: ``--update`` writes today's result."""
        return self.status != MATCHED

    def masked_arguments(self) -> str:
        """:attr:`shown_arguments`, or the recorded arguments masked with the secret-name
        rule alone when the call was reported without them."""
        if self.shown_arguments is not None:
            return self.shown_arguments
        from agentforge_cli.core.masking import mask_arguments

        return mask_arguments(self.arguments, as_recorded=True)

    def to_dict(self) -> dict[str, Any]:
        """The ``replay --json`` entry of this call (arguments masked)."""
        return {"id": self.id, "name": self.name, "status": self.status,
                "expected": self.expected, "actual": self.actual,
                "expected_is_error": self.expected_is_error, "is_error": self.is_error,
                "arguments": self.masked_arguments(), "where": self.where,
                "duration_ms": round(self.duration_ms, 3)}


Entry = UserMessage | AssistantMessage | CallReport
"""A line of the replayed conversation, in transcript order."""


@dataclass(kw_only=True, slots=True)
class ReplayReport:
    """The whole outcome of a replay, collected (see :func:`replay`)."""

    entries: list[Entry] = field(default_factory=list)
    """Messages and calls in transcript order (for the trace)."""
    calls: list[CallReport] = field(default_factory=list)
    """Every call, in order."""
    match: str = "exact"
    """How results were compared (``exact``, ``json`` or ``status``)."""

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
                if call.needs_update}

    def to_dict(self) -> dict[str, Any]:
        """The ``replay --json`` object: ``summary``, ``calls`` and ``match``."""
        return {"summary": self.summary, "calls": [call.to_dict() for call in self.calls],
                "match": self.match}
