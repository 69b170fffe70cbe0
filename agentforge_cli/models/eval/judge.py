"""A new reply held against the recorded calls of its decision, under today's binding.

Each reply gets one verdict, the first that applies:

* ``no call``: the model answered with text only;
* ``flip``: it called other tools than recorded (or a tool today's tools lack): "now
  calls search_v2 instead of search";
* ``argument error``: the tools are the recorded ones, but today's binding refuses an
  argument (an unknown or missing key, a value the coercion table refuses);
* ``other arguments``: they bind, but their values after coercion differ from the
  recorded ones (bound too, or compared as JSON when the recording no longer binds);
* ``agree``: the same tools with the same values after coercion.

Parallel calls are compared as a multiset of tool names, then pairwise in order per
tool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentforge_cli.core.bind.arguments import parse_arguments
from agentforge_cli.core.bind.binder import make_binder
from agentforge_cli.core.define.capabilities import DefinedToolExecutor
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.errors import AgentForgeError, ArgumentError
from agentforge_cli.models.prompt import Call, Reply
from agentforge_cli.replay.argument_drift import ArgumentFit, argument_fit

__all__ = ["AGREE", "ARGUMENTS", "ARGUMENT_ERROR", "FLIP", "NO_CALL", "VERDICTS", "Judge",
           "Judgement"]

AGREE = "agree"
ARGUMENTS = "other arguments"
ARGUMENT_ERROR = "argument error"
FLIP = "flip"
NO_CALL = "no call"
VERDICTS = (AGREE, ARGUMENTS, ARGUMENT_ERROR, FLIP, NO_CALL)


@dataclass(frozen=True, slots=True)
class Judgement:
    """One reply's verdict, and what explains it."""

    verdict: str
    reply: Reply
    note: str = ""


_UNBOUND = object()


class _Tool:
    """What eval needs of one tool today: its fit and a way to bind values."""

    def __init__(self, name: str, executor: Any) -> None:
        self.name = name
        self.fit: ArgumentFit | None = argument_fit(executor)
        inner = innermost(executor)
        self._binder: Callable[[dict[str, Any]], Any] | None = (
            make_binder(inner.definition, strict=False)
            if isinstance(inner, DefinedToolExecutor) else None)

    def error(self, arguments: str) -> str | None:
        """Why today's binding refuses ``arguments``, or ``None``."""
        try:
            parsed = parse_arguments(arguments)
        except ArgumentError as exc:
            return str(exc)
        if self.fit is not None:
            problem = self.fit.drift(arguments) or self.fit.refused(arguments)
            if problem is not None:
                return problem.replace("was recorded", "was sent").replace(
                    "were recorded", "were sent").replace("not recorded", "not sent")
        if self._binder is not None and isinstance(parsed, dict):
            try:
                self._binder(parsed)
            except AgentForgeError as exc:
                return str(exc)
        return None

    def value(self, arguments: str) -> Any:
        """The arguments after coercion (bound when they bind, else as parsed JSON)."""
        try:
            parsed = parse_arguments(arguments)
        except ArgumentError:
            return _UNBOUND
        if self._binder is not None and isinstance(parsed, dict):
            try:
                return ("bound", self._binder(parsed))
            except (AgentForgeError, TypeError, ValueError):
                pass
        return ("json", parsed)


class Judge:
    """Today's tools, as a service holds them, ready to judge replies."""

    def __init__(self, service: Any) -> None:
        self._tools = {name: _Tool(name, service.executor(name)) for name in service.names}

    def judge(self, recorded: tuple[Call, ...], reply: Reply) -> Judgement:
        if not reply.calls:
            return Judgement(NO_CALL, reply, "answered without a tool call")
        unknown = [call.name for call in reply.calls if call.name not in self._tools]
        if unknown:
            return Judgement(FLIP, reply, f"now calls {_names(unknown)}, which today's "
                                          "tools do not have")
        was, now = Counter(c.name for c in recorded), Counter(c.name for c in reply.calls)
        if was != now:
            return Judgement(FLIP, reply, f"now calls {_names(list((now - was).elements()))}"
                                          f" instead of {_names(list((was - now).elements()))}"
                             if now - was and was - now else
                             _more_or_fewer(was, now))
        for call in reply.calls:
            problem = self._tools[call.name].error(call.arguments)
            if problem is not None:
                return Judgement(ARGUMENT_ERROR, reply, f"{call.name}: {problem}")
        for old, new in _pairs(recorded, reply.calls):
            tool = self._tools[new.name]
            if tool.value(old.arguments) != tool.value(new.arguments):
                return Judgement(ARGUMENTS, reply, f"{new.name} {new.arguments} (recorded "
                                                   f"{old.arguments})")
        return Judgement(AGREE, reply)


def _names(names: list[str]) -> str:
    return " and ".join(", ".join(names).rsplit(", ", 1)) if names else "nothing"


def _more_or_fewer(was: Counter[str], now: Counter[str]) -> str:
    extra, lacking = now - was, was - now
    if extra:
        return f"also calls {_names(list(extra.elements()))}"
    return f"no longer calls {_names(list(lacking.elements()))}"


def _pairs(recorded: tuple[Call, ...], calls: tuple[Call, ...]) -> list[tuple[Call, Call]]:
    """Recorded and new calls paired by tool name, in order."""
    left: dict[str, list[Call]] = {}
    for call in recorded:
        left.setdefault(call.name, []).append(call)
    return [(left[call.name].pop(0), call) for call in calls]
