"""Run the fuzz: per tool, ``examples`` generated calls, then each distinct failure shrunk.

Two passes per tool, both with hypothesis under the same seed (no example database, so
nothing is written to disk and a seed always means the same inputs):

1. **search** — ``examples`` inputs (schema-valid objects from
   :func:`~agentforge_cli.fuzz.strategies.arguments`, each written in one of the
   :data:`~agentforge_cli.fuzz.forms.FORMS`); every call is classified and counted, and the
   first input of each distinct failure is kept;
2. **shrink** — for each failure (hangs and dead servers excepted: each try would cost
   the timeout, or find no server), the same search runs again, failing only on that
   failure, and hypothesis shrinks the input to the smallest it can find. If it cannot
   reproduce it (a tool whose state changed), the first input is reported as found.

After a hang, the tool gets no more calls (each would cost the timeout and leave a thread
running); after its MCP server died, neither it nor the server's other tools do (they are
reported as skipped).

Which tools are called is :func:`skip_reason`'s answer; the calls of a Python tool run
under the effect guard (:mod:`~agentforge_cli.fuzz.effects`) unless
:func:`unguarded_reason` says why not, and a call that tried an effect is a ``blocked
effect`` however it ended.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentforge_cli.fuzz.classify import (
    FAILING,
    GONE,
    Outcome,
    OutcomeKind,
    classify_call,
)
from agentforge_cli.fuzz.effects import guarding
from agentforge_cli.fuzz.forms import CLEAN, FORMS, render
from agentforge_cli.fuzz.fuzz_report import BlockedCall, Finding, ToolReport, reproduce_command
from agentforge_cli.fuzz.options import FuzzOptions
from agentforge_cli.fuzz.selection import (
    declares_effects,
    is_destructive,
    skip_reason,
    unguarded_reason,
)
from agentforge_cli.fuzz.strategies import arguments

if TYPE_CHECKING:
    from hypothesis import settings
    from hypothesis import strategies as st

__all__ = ["FuzzOptions", "declares_effects", "fuzz_service", "fuzz_tool", "is_destructive",
           "private_storage", "quiet_settings", "skip_reason", "unguarded_reason"]

MAX_FINDINGS = 10
"""Distinct failures kept per tool."""
MAX_BLOCKED = 5
"""Distinct blocked effects kept per tool."""


@dataclass(frozen=True, kw_only=True, slots=True)
class _Case:
    arguments: str
    form: str
    outcome: Outcome


class _Found(Exception):
    """Raised in the shrink pass when the call shows the failure being shrunk."""

    def __init__(self, case: _Case) -> None:
        super().__init__(case.outcome.signature)
        self.case = case


def quiet_settings(examples: int, phases: Sequence[Any]) -> settings:
    """hypothesis settings for ``examples`` inputs: no database, no deadline, nothing
    printed."""
    from hypothesis import HealthCheck, Verbosity, settings

    return settings(max_examples=examples, database=None, deadline=None, phases=phases,
                    derandomize=False, suppress_health_check=list(HealthCheck),
                    verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False)


def fuzz_tool(service: Any, spec: Any, options: FuzzOptions,
              targets: Sequence[str]) -> ToolReport:
    """Fuzz one tool of ``service`` (built with ``propagate_execution_errors=True`` and a
    ``timeout``, as :func:`~agentforge_cli.fuzz.classify.classify_call` expects).

    Nothing is written to the working directory: hypothesis keeps no example database, and
    what it caches (constants read from source files, Unicode tables) goes to a temporary
    directory removed afterwards, unless ``HYPOTHESIS_STORAGE_DIRECTORY`` names one."""
    skipped = skip_reason(spec, options)
    if skipped is not None:
        return ToolReport(name=spec.name, skipped=skipped)
    with private_storage():
        return _fuzz(service, spec, options, targets)


def _fuzz(service: Any, spec: Any, options: FuzzOptions, targets: Sequence[str]
          ) -> ToolReport:
    from hypothesis import Phase, given, seed
    from hypothesis import strategies as st

    required = frozenset(spec.parameters.get("required", ()))
    cases = st.tuples(arguments(spec.parameters), st.sampled_from(list(FORMS)))
    guarded = unguarded_reason(spec, options) is None

    def call(case: tuple[dict[str, Any], str]) -> _Case:
        args, form = case
        text = render(form, args, required)
        if not guarded:
            outcome = classify_call(service, spec.name, text, options.rule,
                                    clean=form == CLEAN)
            return _Case(arguments=text, form=form, outcome=outcome)
        with guarding(spec.name) as attempts:
            outcome = classify_call(service, spec.name, text, options.rule,
                                    clean=form == CLEAN)
        if attempts:  # whatever the call did after the refusal says nothing of the tool
            outcome = Outcome(kind=OutcomeKind.BLOCKED, detail=attempts[0],
                              final=outcome.final)
        return _Case(arguments=text, form=form, outcome=outcome)

    counts: Counter[OutcomeKind] = Counter()
    blocked: dict[str, _Case] = {}  # effect -> the first call that tried it
    first: dict[tuple[str, str, str], _Case] = {}
    refusals: dict[tuple[str, str, str], str] = {}  # tool errors: signature -> detail
    stopped: list[Outcome] = []  # the call after which the tool gets no more

    @quiet_settings(options.examples, (Phase.generate,))
    @seed(options.seed)
    @given(cases)
    def search(case: tuple[dict[str, Any], str]) -> None:
        if stopped:
            return
        found = call(case)
        if found.outcome.final:
            stopped.append(found.outcome)
        if found.outcome.kind == GONE:
            return
        counts[found.outcome.kind] += 1
        signature = found.outcome.signature
        if found.outcome.kind == OutcomeKind.TOOL_ERROR and len(refusals) < 2:
            refusals.setdefault(signature, found.outcome.detail)
        if found.outcome.kind == OutcomeKind.BLOCKED and len(blocked) < MAX_BLOCKED:
            blocked.setdefault(found.outcome.detail, found)
        if found.outcome.kind in FAILING and signature not in first and len(
                first) < MAX_FINDINGS:
            first[signature] = found

    try:
        search()
    except Exception as exc:  # hypothesis cannot generate from the schema
        return ToolReport(name=spec.name, examples=sum(counts.values()), counts=dict(counts),
                          guarded=guarded, blocked=_blocked_calls(blocked),
                          error=f"cannot generate arguments: {type(exc).__name__}: {exc}")
    if stopped and stopped[0].kind == GONE and not counts:
        return ToolReport(name=spec.name, skipped=f"not called: {stopped[0].detail}")
    findings = []
    for signature, found in first.items():
        smallest = None if found.outcome.final else _shrink(
            call, cases, signature, options)
        case = smallest or found
        findings.append(Finding(
            kind=case.outcome.kind, detail=case.outcome.detail,
            location=case.outcome.location, arguments=case.arguments, form=case.form,
            shrunk=smallest is not None,
            command=reproduce_command(spec.name, case.arguments, targets)))
    return ToolReport(name=spec.name, examples=sum(counts.values()), counts=dict(counts),
                      findings=tuple(findings), blocked=_blocked_calls(blocked),
                      guarded=guarded, uniform_error=_uniform_error(counts, refusals))


def _blocked_calls(blocked: dict[str, _Case]) -> tuple[BlockedCall, ...]:
    return tuple(BlockedCall(effect=effect, arguments=case.arguments, form=case.form)
                 for effect, case in blocked.items())


def _uniform_error(counts: Counter[OutcomeKind], refusals: dict[tuple[str, str, str], str]
                   ) -> str | None:
    """What the one tool error every call ended in says, or ``None`` (some call went
    elsewhere, or the errors differ)."""
    if len(refusals) != 1 or set(counts) != {OutcomeKind.TOOL_ERROR}:
        return None
    return next(iter(refusals.values()))


def _shrink(call: Callable[[Any], _Case], cases: st.SearchStrategy[Any],
            signature: tuple[str, str, str], options: FuzzOptions) -> _Case | None:
    """The smallest case showing ``signature``, or ``None`` when it is not seen again."""
    from hypothesis import Phase, given, seed

    @quiet_settings(options.examples, (Phase.generate, Phase.shrink))
    @seed(options.seed)
    @given(cases)
    def again(case: tuple[dict[str, Any], str]) -> None:
        found = call(case)
        if found.outcome.signature == signature:
            raise _Found(found)

    try:
        again()
    except _Found as found:
        return found.case
    except Exception:  # flaky (the tool's state changed) or hypothesis gave up
        return None
    return None


def fuzz_service(service: Any, options: FuzzOptions, targets: Sequence[str], *,
                 names: Sequence[str] | None = None,
                 on_report: Callable[[ToolReport], None] | None = None) -> list[ToolReport]:
    """Fuzz the tools of ``service`` (those in ``names``, else all) in registration order."""
    reports = []
    for spec in service.specifications:
        if names is not None and spec.name not in names:
            continue
        report = fuzz_tool(service, spec, options, targets)
        reports.append(report)
        if on_report is not None:
            on_report(report)
    return reports


@contextlib.contextmanager
def private_storage() -> Iterator[None]:
    """hypothesis's storage directory (``.hypothesis`` in the working directory by
    default) in a temporary directory for the duration."""
    import os
    import tempfile

    from hypothesis import configuration

    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    before = getattr(configuration, "__hypothesis_home_directory", None)  # set or not yet
    with tempfile.TemporaryDirectory(prefix="agentforge-fuzz-") as directory:
        configuration.set_hypothesis_home_dir(directory)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(before)
