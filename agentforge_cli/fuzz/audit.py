"""Run each Python tool on examples, twice each, in a sandbox, and record what it did.

The examples are the calls of transcripts (when given) and inputs fuzzing's generator
makes (hypothesis, seeded, no example database: a seed always means the same inputs),
written as plain JSON. Each example runs in a fresh sandbox directory
(:func:`~agentforge_cli.fuzz.sandbox.sandboxed`), under the effect guard in observe mode
(:func:`~agentforge_cli.fuzz.effects.guarding` with a sandbox and an observer): file
changes inside the sandbox happen and are recorded; writes elsewhere, connections to other
hosts than loopback and process starts are refused and recorded as attempts. Then the same
call runs again in the same sandbox: the same answer and the same files afterwards make
the example idempotent.

:class:`Behaviour` is what was seen; :mod:`~agentforge_cli.fuzz.audit_findings` compares it
with the tool's annotations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.fuzz.effects import guarding
from agentforge_cli.fuzz.forms import CLEAN, render
from agentforge_cli.fuzz.observe import CHANGES, DESTRUCTIVE, Effect, EffectKind, Observation
from agentforge_cli.fuzz.sandbox import sandboxed, state

__all__ = ["Behaviour", "audit_tool", "generated_calls"]

_SHOWN = 60
"""Characters of an answer shown as evidence."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Behaviour:
    """What one tool did on its examples."""

    name: str
    examples: int = 0
    """Examples run (each called twice)."""
    reached: int = 0
    """Calls that got past argument binding into the tool's code."""
    effects: tuple[Effect, ...] = ()
    """What the calls did or tried, each effect once, in the order first seen."""
    repeat: str | None = None
    """How a repeated identical call differed from the first (``None``: never)."""
    stopped: str | None = None
    """Why the tool got no more calls (a hang), or why it could not be audited."""

    def of(self, kinds: frozenset[EffectKind]) -> list[Effect]:
        """The effects of these kinds."""
        return [effect for effect in self.effects if effect.kind in kinds]

    @property
    def read_only(self) -> bool:
        """No write, overwrite, deletion or process start seen (attempts count)."""
        return not self.of(CHANGES)

    @property
    def destructive(self) -> bool:
        """A deletion or an overwrite of an existing file seen."""
        return bool(self.of(DESTRUCTIVE))

    @property
    def idempotent(self) -> bool:
        """Every repeated call had the same answer and left the same files."""
        return self.repeat is None

    @property
    def open_world(self) -> bool:
        """A host other than loopback was tried."""
        return bool(self.of(frozenset({EffectKind.NETWORK})))

    def inferred(self) -> dict[str, bool]:
        """The annotations the behaviour suggests (MCP's four hints; a read-only tool's
        ``destructiveHint``/``idempotentHint`` mean nothing and are left out)."""
        if self.read_only:
            return {"readOnlyHint": True, "openWorldHint": self.open_world}
        return {"readOnlyHint": False, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": self.open_world}

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` row of the tool."""
        return {"name": self.name, "examples": self.examples, "reached": self.reached,
                "inferred": self.inferred(), "idempotent_evidence": self.repeat,
                "stopped": self.stopped,
                "effects": [{"kind": e.kind.value, "effect": e.text, "blocked": e.blocked}
                            for e in self.effects]}


def generated_calls(spec: Any, examples: int, seed: int) -> list[str]:
    """``examples`` argument strings for ``spec`` from fuzzing's generator (duplicates
    dropped), as plain JSON."""
    from hypothesis import Phase, given
    from hypothesis import seed as seeded

    from agentforge_cli.fuzz.engine import private_storage, quiet_settings
    from agentforge_cli.fuzz.strategies import arguments

    required = frozenset(spec.parameters.get("required", ()))
    texts: list[str] = []

    @quiet_settings(examples, (Phase.generate,))
    @seeded(seed)
    @given(arguments(spec.parameters))
    def collect(values: dict[str, Any]) -> None:
        texts.append(render(CLEAN, values, required))

    with private_storage():
        collect()
    return list(dict.fromkeys(texts))


@dataclass(kw_only=True, slots=True)
class _Tally:
    examples: int = 0
    reached: int = 0
    effects: list[Effect] = field(default_factory=list)
    repeat: str | None = None
    stopped: str | None = None


def audit_tool(service: Any, name: str, calls: Sequence[str]) -> Behaviour:
    """Run ``calls`` (argument strings) of tool ``name`` of ``service`` (built with
    ``propagate_execution_errors=True`` and a ``timeout``), each twice in its sandbox."""
    tally = _Tally()
    for text in calls:
        with sandboxed() as directory:
            first = _call(service, name, text, directory, tally)
            before = state(directory)
            if tally.stopped is None:
                second = _call(service, name, text, directory, tally)
                tally.repeat = tally.repeat or _difference(first, second, before,
                                                           state(directory))
        tally.examples += 1
        if tally.stopped is not None:
            break
    return Behaviour(name=name, examples=tally.examples, reached=tally.reached,
                     effects=tuple(tally.effects), repeat=tally.repeat,
                     stopped=tally.stopped)


def _call(service: Any, name: str, text: str, directory: str, tally: _Tally) -> str:
    """One call under the guard in observe mode; its answer (result text, or the error
    the tool raised) is returned, its effects added to ``tally``."""
    from agentforge_cli.core.define.spec import ToolExecutionRequest
    from agentforge_cli.errors import ToolExecutionError, ToolTimeoutError

    observation = Observation(sandbox=directory)
    request = ToolExecutionRequest(id="audit", name=name, arguments=text)
    with guarding(name, sandbox=directory, observer=observation):
        try:
            result = service.execute(request)
            answer = f"{'error: ' if result.is_error else ''}{result.text}"
            reached = not result.is_error  # an error result: the binder refused the input
        except ToolTimeoutError as exc:
            tally.stopped = f"no more calls after a hang: {exc}"
            answer, reached = "hang", True
        except ToolExecutionError as exc:
            cause = exc.__cause__ if exc.__cause__ is not None else exc
            answer, reached = f"raised {type(cause).__name__}: {cause}", True
    tally.reached += reached
    for effect in observation.effects:
        if effect not in tally.effects:
            tally.effects.append(effect)
    return answer


def _difference(first: str, second: str, before: dict[str, str], after: dict[str, str]
                ) -> str | None:
    """How the repeated call differed from the first, or ``None``."""
    from agentforge_cli.fuzz.observe import SANDBOX

    changed = sorted(path for path in before.keys() | after.keys()
                     if before.get(path) != after.get(path))
    if changed:
        shown = ", ".join(f"{SANDBOX}/{path}" for path in changed[:3])
        return f"a second identical call changed {shown}"
    if first != second:
        return (f"a second identical call answered differently ({first[:_SHOWN]!r}, then "
                f"{second[:_SHOWN]!r})")
    return None
