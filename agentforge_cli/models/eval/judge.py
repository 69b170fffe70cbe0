"""A new reply held against the recorded calls of its decision, under today's binding.

Each reply gets one verdict, the first that applies:

* ``no call``: the model answered with text only;
* ``flip``: it called other tools than recorded (or a tool today's tools lack): "now
  calls search_v2 instead of search";
* ``argument error``: the tools are the recorded ones, but today's binding refuses an
  argument (an unknown or missing key, a value the coercion table refuses);
* ``other arguments``: they bind, but their values after coercion differ from the
  recorded ones (bound too, or compared as JSON when the recording no longer binds),
  and still differ once scrubbed;
* ``agree``: the same tools with the same values after coercion and scrubbing.

Scrubbing is replay's (:mod:`~agentforge_cli.replay.scrubbing`), with the same rules per
tool (``--scrub``, the project's, ``@tool(volatile=...)``): when the coerced values
differ and rules apply to the tool, both sides are written as JSON (the coerced values by
parameter key, as a result would be written), scrubbed, and compared again; the places
scrubbed are kept with the verdict. Equal values are never scrubbed.

Parallel calls are compared as a multiset of tool names, then pairwise in order per
tool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.bind.arguments import parse_arguments
from agentforge_cli.core.bind.binder import make_binder
from agentforge_cli.core.define.capabilities import DefinedToolExecutor
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.errors import AgentForgeError, ArgumentError
from agentforge_cli.models.prompt import Call, Reply
from agentforge_cli.replay.argument_drift import ArgumentFit, argument_fit

if TYPE_CHECKING:
    from agentforge_cli.replay.scrubbing import Scrubber, Scrubbing

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
    scrubbed: tuple[str, ...] = ()
    """What was scrubbed from the arguments before they were compared (``$.since
    (timestamps)``); empty when nothing was."""


_UNBOUND = object()


class _Tool:
    """What eval needs of one tool today: its fit and a way to bind values."""

    def __init__(self, name: str, executor: Any, scrubber: Scrubber | None = None) -> None:
        self.name = name
        self.fit: ArgumentFit | None = argument_fit(executor)
        self._scrubber = scrubber
        inner = innermost(executor)
        defined = isinstance(inner, DefinedToolExecutor)
        self._binder: Callable[[dict[str, Any]], Any] | None = (
            make_binder(inner.definition, strict=False) if defined else None)
        self._keys = tuple(param.key for param in inner.definition.params) if defined else ()

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

    def same(self, recorded: str, sent: str) -> tuple[bool, tuple[str, ...]]:
        """Whether two argument strings are equal after coercion and scrubbing, and what
        was scrubbed (nothing when they are equal as they are)."""
        was, now = self.value(recorded), self.value(sent)
        if was == now:
            return True, ()
        if self._scrubber is None or _UNBOUND in (was, now):
            return False, ()
        scrubbed = self._scrubber.compare(self._json(was), self._json(now))
        return scrubbed.same, scrubbed.scrubbed

    def _json(self, value: tuple[str, Any]) -> str:
        """Coerced arguments as JSON text: the bound values by parameter key (dates and
        times as ISO text, as a result is written), or the parsed JSON as it is."""
        from agentforge_cli.core.run.returns import UnserializableResult, result_text

        kind, held = value
        document = dict(zip(self._keys, held, strict=True)) if kind == "bound" else held
        try:
            return result_text(document)
        except UnserializableResult:  # a bound value with no JSON form: compared as is
            return repr(document)


class Judge:
    """Today's tools, as a service holds them, ready to judge replies (scrubbed with
    ``scrubbing``'s rules, replay's)."""

    def __init__(self, service: Any, scrubbing: Scrubbing | None = None) -> None:
        self._tools = {name: _Tool(name, service.executor(name),
                                   scrubbing.for_tool(name) if scrubbing else None)
                       for name in service.names}

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
        scrubbed: dict[str, None] = {}
        for old, new in _pairs(recorded, reply.calls):
            same, places = self._tools[new.name].same(old.arguments, new.arguments)
            scrubbed.update(dict.fromkeys(places))
            if not same:
                return Judgement(ARGUMENTS, reply, f"{new.name} {new.arguments} (recorded "
                                                   f"{old.arguments})", tuple(scrubbed))
        return Judgement(AGREE, reply, scrubbed=tuple(scrubbed))


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
