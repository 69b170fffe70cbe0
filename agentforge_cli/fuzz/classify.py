"""What one call did: ``ok``, ``refused``, ``tool error``, ``blocked effect``, ``crash``,
``hang``, ``bad result`` or ``mismatch`` (a schema-valid input the pipeline refused).

The calls go through a ``ToolService`` whose tools propagate execution errors and have a
timeout, so an argument error comes back as an error result and anything the tool did
comes back as a ``ToolExecutionError`` chained to its cause.

**The crash rule.** An exception is a crash (a programming error) when its class or a base
class is a crash class: ``TypeError``, ``AttributeError``, ``NameError`` (so
``UnboundLocalError``), ``ZeroDivisionError``, ``IndexError``, ``KeyError``,
``RecursionError``, ``AssertionError``, ``NotImplementedError``, plus the ``--crash``
names; an ``--allow`` name takes a class and its subclasses out, and wins. Names match a
class's ``__name__`` or its ``module.qualname``. **A KeyError is a crash unless the
innermost frame raised it with a ``raise`` statement** (``raise KeyError("no issue #9")`` is
a message for the model; ``table[key]`` or ``dict.pop(key)`` failing is a bug). Any other
exception is a ``tool error``: the tool telling the model no.

**MCP servers.** A server that dies during a call (it exits, is killed by a signal or
closes the connection) is a ``crash`` naming its exit status; one that does not answer
within the timeout is a ``hang``. A schema-valid input the server refuses as invalid
(JSON-RPC ``-32602``, or an error result that says so: :data:`INVALID_INPUT`) is a
``mismatch``; any other error result is a ``tool error``.

**Blocked effects.** A call that tried something the effect guard refuses
(:mod:`~agentforge_cli.fuzz.effects`) is a ``blocked effect`` whatever it did next (the
engine decides this, around :func:`classify_call`): what followed the refusal says nothing
about the tool.
"""

from __future__ import annotations

import dis
import os
import re
from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentforge_cli.core.define.spec import ToolExecutor

__all__ = ["CRASH_CLASSES", "FAILING", "GONE", "INVALID_INPUT", "KINDS", "CrashRule",
           "Outcome", "OutcomeKind", "classify_call"]


class OutcomeKind(StrEnum):
    """The class of one call's outcome (see the module docstring); the value is what every
    output writes."""

    OK = "ok"
    REFUSED = "refused"
    TOOL_ERROR = "tool error"
    BLOCKED = "blocked effect"
    """The effect guard refused something the call tried (not a failure)."""
    CRASH = "crash"
    HANG = "hang"
    BAD_RESULT = "bad result"
    MISMATCH = "mismatch"
    GONE = "gone"
    """Not counted: the call never reached the tool (its MCP server died earlier)."""


GONE = OutcomeKind.GONE
KINDS = tuple(kind for kind in OutcomeKind if kind is not GONE)
"""The kinds every report counts, in report order."""
FAILING = frozenset({OutcomeKind.CRASH, OutcomeKind.HANG, OutcomeKind.BAD_RESULT,
                     OutcomeKind.MISMATCH})
"""The kinds that are findings (exit 1)."""
_INVALID_PARAMS = -32602
INVALID_INPUT = re.compile(r"validation error|invalid (arguments|params|parameters|input)",
                           re.IGNORECASE)
"""What an MCP server's error says when it refuses the input itself: pydantic's "1
validation error for ...", "Invalid arguments", JSON-RPC's "Invalid params"."""
CRASH_CLASSES = ("TypeError", "AttributeError", "NameError", "UnboundLocalError",
                 "ZeroDivisionError", "IndexError", "KeyError", "RecursionError",
                 "AssertionError", "NotImplementedError")


@dataclass(frozen=True, kw_only=True, slots=True)
class CrashRule:
    """Which exception classes are crashes (see the module docstring)."""

    crash: frozenset[str] = frozenset(CRASH_CLASSES)
    allow: frozenset[str] = frozenset()

    @classmethod
    def build(cls, crash: Collection[str] = (), allow: Collection[str] = ()) -> CrashRule:
        """The default rule extended with ``crash`` names and relaxed by ``allow`` names."""
        allowed = frozenset(allow)
        return cls(crash=(frozenset(CRASH_CLASSES) | frozenset(crash)) - allowed,
                   allow=allowed)

    def is_crash(self, exc: BaseException) -> bool:
        names = {name for klass in type(exc).__mro__
                 for name in (klass.__name__, f"{klass.__module__}.{klass.__qualname__}")}
        if names & self.allow or not names & self.crash:
            return False
        return not (isinstance(exc, KeyError) and _raised_on_purpose(exc))


@dataclass(frozen=True, kw_only=True, slots=True)
class Outcome:
    """The class of one call and what identifies its failure."""

    kind: OutcomeKind
    """One of :data:`KINDS`, or :data:`GONE`."""
    detail: str = ""
    """``ZeroDivisionError: division by zero``, the refusal or the result's problem."""
    location: str = ""
    """``path/to/file.py:12``: where the exception was raised (innermost frame)."""
    final: bool = False
    """The tool cannot be called again: it hung, or its server died."""

    @property
    def signature(self) -> tuple[str, str, str]:
        """Failures with the same signature are the same finding."""
        if self.kind in (OutcomeKind.CRASH, OutcomeKind.TOOL_ERROR, OutcomeKind.BAD_RESULT):
            return (self.kind, self.detail.split(":", 1)[0], self.location)
        return (self.kind, "", "")


def _innermost(tb: TracebackType | None) -> TracebackType | None:
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def _raised_on_purpose(exc: BaseException) -> bool:
    """The innermost frame raised ``exc`` with a ``raise`` statement."""
    tb = _innermost(exc.__traceback__)
    if tb is None:
        return False
    for instruction in dis.get_instructions(tb.tb_frame.f_code):
        if instruction.offset == tb.tb_lasti:
            return instruction.opname == "RAISE_VARARGS"
    return False


def _location(exc: BaseException) -> str:
    tb = _innermost(exc.__traceback__)
    if tb is None:
        return ""
    path = tb.tb_frame.f_code.co_filename
    try:
        relative = os.path.relpath(path)
        if not relative.startswith(".."):
            path = relative
    except ValueError:
        pass
    return f"{path}:{tb.tb_lineno}"


def _describe(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:
        text = ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def classify_call(service: ToolExecutor, name: str, arguments: str, rule: CrashRule, *,
                  clean: bool) -> Outcome:
    """Call ``name`` with the argument string and classify what happened.

    ``clean`` says the string is plain JSON of a schema-valid object: a refusal of it is a
    ``mismatch``; a sloppy form's refusal is ``refused``.
    """
    from agentforge_cli.core.define.spec import ToolExecutionRequest
    from agentforge_cli.core.run.call_policy import ResultTooLarge
    from agentforge_cli.core.run.returns import UnserializableResult
    from agentforge_cli.errors import (
        ServerCallError,
        ToolErrorAnswer,
        ToolExecutionError,
        ToolTimeoutError,
    )

    request = ToolExecutionRequest(id="fuzz", name=name, arguments=arguments)
    try:
        result = service.execute(request)
    except ToolTimeoutError as exc:
        return Outcome(kind=OutcomeKind.HANG, detail=str(exc), final=True)
    except ServerCallError as exc:
        return _server_failed(exc)
    except ToolErrorAnswer as exc:
        refused = exc.code == _INVALID_PARAMS or (exc.code is None
                                                  and INVALID_INPUT.search(str(exc)))
        if refused:
            return Outcome(kind=OutcomeKind.MISMATCH if clean else OutcomeKind.REFUSED,
                           detail=str(exc))
        return Outcome(kind=OutcomeKind.TOOL_ERROR, detail=str(exc).split("\n", 1)[0])
    except ToolExecutionError as exc:
        cause = exc.__cause__ if exc.__cause__ is not None else exc
        if isinstance(cause, UnserializableResult | ResultTooLarge):
            return Outcome(kind=OutcomeKind.BAD_RESULT, detail=f"{type(cause).__name__}: {exc}")
        kind = OutcomeKind.CRASH if rule.is_crash(cause) else OutcomeKind.TOOL_ERROR
        return Outcome(kind=kind, detail=_describe(cause), location=_location(cause))
    if result.is_error:
        return Outcome(kind=OutcomeKind.MISMATCH if clean else OutcomeKind.REFUSED,
                       detail=result.text)
    return Outcome(kind=OutcomeKind.OK)


def _server_failed(exc: Any) -> Outcome:
    """A ``ServerCallError``: a hang, a crash (with the last line of the server's standard
    error), or :data:`GONE`."""
    if exc.outcome == "hung":
        return Outcome(kind=OutcomeKind.HANG, detail=exc.message, final=True)
    if exc.outcome == "gone":
        return Outcome(kind=GONE, detail=exc.message, final=True)
    lines = (exc.hint or "").splitlines()[1:]
    last = f" (its standard error ended with: {lines[-1].strip()})" if lines else ""
    return Outcome(kind=OutcomeKind.CRASH, detail=exc.message + last, final=True)
