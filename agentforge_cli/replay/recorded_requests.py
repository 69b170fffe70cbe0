"""The requests an MCP server makes of its client during a replayed call, answered from
the recording: each recorded call that carries them (``ToolCall.asked``) is run with a
:class:`RequestScript` in :data:`RECORDED_REQUESTS`, which the MCP client consults when
today's server asks, and which says afterwards how each request went
(:class:`RequestOutcome`).

Today's request is the recorded one when its method and its question are the same: an
elicitation's mode, message, URL and the names of the fields it asks for; a sampling
request's messages and system prompt; any ``roots/list``. It is answered with the client's
recorded answer (a result or an error), never with a value of agentforge's own. A request
that is asked otherwise, or that the recording does not hold (or holds unanswered), is
declined; a recorded request that today's server does not make is reported too. Any of
these three makes the call differ from its recording.

The roots are the client's, not a call's: a server asks for them when it chooses (often
once, as the session opens) and keeps them. So a ``roots/list`` the call's recording lacks
is answered with the roots the recorded client gave last before the call
(``ServerRequest.standing``), and so is one asked between calls (:meth:`RequestScript.
between`); a recorded ``roots/list`` that today's server does not make again is reported,
and does not make the call differ.

Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from agentforge_cli.core.observe.masking import MASK
from agentforge_cli.replay.transcripts.model import ServerRequest
from agentforge_cli.replay.transcripts.place import Place

__all__ = ["ANSWERED", "DIFFERS", "RECORDED_REQUESTS", "UNASKED", "UNRECORDED",
           "RequestOutcome", "RequestScript", "asked_text"]

ANSWERED = "answered"
"""Asked as recorded, and answered with the recorded answer."""
DIFFERS = "asked differently"
"""Asked with the method of a recorded request but another question: declined."""
UNRECORDED = "not recorded"
"""The recording holds no such request, or no answer to it: declined."""
UNASKED = "not asked"
"""Recorded, and not asked today."""

RECORDED_REQUESTS: ContextVar[RequestScript | None] = ContextVar(
    "agentforge_recorded_requests", default=None)
"""The script of the call being replayed (``None``: the call is not a replayed one, or its
recording keeps no requests); read by the MCP client where the call is sent, in the
caller's thread."""

_SHOWN = 80


@dataclass(frozen=True, slots=True)
class RequestOutcome:
    """How one of a replayed call's server requests went."""

    method: str
    """``roots/list``, ``elicitation/create``, ``sampling/createMessage``."""
    asked: str
    """What it asks, on one line (an elicitation's message)."""
    status: str
    """:data:`ANSWERED`, :data:`DIFFERS`, :data:`UNRECORDED` or :data:`UNASKED`."""
    where: Place | None = None
    """Where the recorded request is (``None``: none is)."""
    note: str = ""
    """More: what was recorded instead, the fields answered ``***``."""

    @property
    def differs(self) -> bool:
        """Whether it makes the call differ from its recording: anything but answered as
        recorded, except a ``roots/list`` not asked again (the server kept the roots)."""
        return self.status != ANSWERED and not (
            self.status == UNASKED and self.method == "roots/list")

    def to_dict(self) -> dict[str, Any]:
        """The entry of ``replay --json``'s ``server_requests``."""
        entry: dict[str, Any] = {"method": self.method, "asked": self.asked,
                                 "status": self.status,
                                 "where": None if self.where is None else str(self.where)}
        if self.note:
            entry["note"] = self.note
        return entry

    def line(self) -> str:
        """The outcome in words: ``elicitation/create "Who?": answered as recorded (line
        7)``."""
        said = {ANSWERED: "answered as recorded", DIFFERS: "asked differently, declined",
                UNRECORDED: "not in the recording, declined",
                UNASKED: "recorded, not asked today"}[self.status]
        where = f" ({self.where})" if self.where is not None else ""
        note = f"; {self.note}" if self.note else ""
        asked = f" {json.dumps(self.asked, ensure_ascii=False)}" if self.asked else ""
        return f"{self.method}{asked}: {said}{where}{note}"


class RequestScript:
    """A replayed call's recorded server requests, consumed as today's server asks."""

    __slots__ = ("_outcomes", "_recorded", "_roots", "_used")

    def __init__(self, recorded: tuple[ServerRequest, ...]) -> None:
        self._recorded = tuple(request for request in recorded if not request.standing)
        self._roots = next((request for request in recorded if request.standing), None)
        self._used = [False] * len(self._recorded)
        self._outcomes: list[RequestOutcome] = []

    def between(self) -> RequestScript:
        """The script of the time after this call, until the next one: it answers
        ``roots/list`` with the recorded client's roots, and declines the rest."""
        roots = self._roots
        if roots is None:  # this call's own roots/list, if it has one, stands after it
            roots = next((request for request in reversed(self._recorded)
                          if request.method == "roots/list" and request.answered), None)
        return RequestScript(() if roots is None else (replace(roots, standing=True),))

    def answer(self, method: str, params: Mapping[str, Any] | None) -> ServerRequest | None:
        """The recorded request whose answer answers today's (``method``, ``params`` as
        JSON), or ``None``: decline it. The outcome is kept either way."""
        shown = asked_text(method, params)
        candidates = [i for i, request in enumerate(self._recorded)
                      if not self._used[i] and request.method == method]
        for i in candidates:
            request = self._recorded[i]
            if _same_question(method, request.params, params):
                self._used[i] = True
                if not request.answered:
                    self._keep(method, shown, UNRECORDED, request.where,
                               "the recording holds no answer to it")
                    return None
                self._keep(method, shown, ANSWERED, request.where, _masked_note(request))
                return request
        roots = self._roots
        if method == "roots/list" and roots is not None:
            self._keep(method, shown, ANSWERED, roots.where,
                       "the recorded client's roots, asked before this call")
            return roots
        if candidates:
            request = self._recorded[candidates[0]]
            self._used[candidates[0]] = True
            self._keep(method, shown, DIFFERS, request.where,
                       "recorded: " + asked_text(method, request.params))
            return None
        self._keep(method, shown, UNRECORDED, None)
        return None

    def finish(self) -> tuple[RequestOutcome, ...]:
        """Every outcome, the recorded requests not asked today last."""
        unasked = [RequestOutcome(request.method, asked_text(request.method, request.params),
                                  UNASKED, request.where)
                   for request, used in zip(self._recorded, self._used, strict=True)
                   if not used]
        return (*self._outcomes, *unasked)

    def _keep(self, method: str, shown: str, status: str, where: Place | None,
              note: str = "") -> None:
        self._outcomes.append(RequestOutcome(method, shown, status, where, note))


def asked_text(method: str, params: Any) -> str:
    """What a request asks, on one line: an elicitation's message (and URL), a sampling
    request's last message's text; nothing for ``roots/list``."""
    if not isinstance(params, Mapping):
        return ""
    if method == "elicitation/create":
        text = str(params.get("message", ""))
        if params.get("mode") == "url":
            text += f" <{params.get('url', '')}>"
    elif method == "sampling/createMessage":
        messages = params.get("messages")
        last = messages[-1] if isinstance(messages, list) and messages else None
        content = last.get("content") if isinstance(last, Mapping) else None
        text = str(content.get("text", "")) if isinstance(content, Mapping) else ""
    else:
        return ""
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN else flat[: _SHOWN - 1] + "…"


def _same_question(method: str, recorded: Any, today: Any) -> bool:
    if method == "roots/list":
        return True
    recorded = recorded if isinstance(recorded, Mapping) else {}
    today = today if isinstance(today, Mapping) else {}
    if method == "elicitation/create":
        return _question(recorded) == _question(today)
    if method == "sampling/createMessage":
        same: bool = (_plain(recorded.get("messages")) == _plain(today.get("messages"))
                      and recorded.get("systemPrompt") == today.get("systemPrompt"))
        return same
    return bool(_plain(recorded) == _plain(today))


def _question(params: Mapping[str, Any]) -> tuple[Any, ...]:
    """An elicitation's question: its mode, message, URL and the fields it asks for (their
    schemas' titles and defaults are presentation, and vary by protocol revision)."""
    schema = params.get("requestedSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    fields = sorted(properties) if isinstance(properties, Mapping) else []
    return (params.get("mode") or "form", params.get("message"), params.get("url"), fields)


def _plain(value: Any) -> Any:
    """``value`` without its ``_meta`` entries (progress tokens and such vary by run)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items() if key != "_meta"}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _masked_note(request: ServerRequest) -> str:
    """The fields of a recorded elicitation answer that were masked at record time."""
    content = request.result.get("content") if isinstance(request.result, Mapping) else None
    if request.method != "elicitation/create" or not isinstance(content, Mapping):
        return ""
    masked = [str(key) for key, value in content.items() if value == MASK]
    return f"sent as recorded, masked: {', '.join(masked)}" if masked else ""
