"""What ``tools fuzz`` is asked to do, checked before any tool is called — the options,
the tools named, its seed, the tools selected and why some of them are skipped — and what
the reports mean for the run; and the options of ``tools audit``, checked the same way.

Importing this module imports nothing of the ``fuzz`` extra (hypothesis).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.observe.terminal_text import safe_text
from agentforge_cli.core.run.call_choices import check_call_timeout
from agentforge_cli.errors import CommandInputError

if TYPE_CHECKING:
    from agentforge_cli.fuzz.options import FuzzOptions

__all__ = ["HANG_SECONDS", "FuzzPlan", "check_audit_options", "check_names", "check_options",
           "plan_fuzz", "run_failed", "shown_name", "skip_notes"]

HANG_SECONDS = 5.0
"""How long a fuzzed call may run before it is a hang, unless --timeout or the project says."""
_EXCEPTION_NAME = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")


def check_options(examples: int, timeout: float, crash: Sequence[str],
                  allow: Sequence[str]) -> None:
    """Refuse ``--examples`` below 1, a ``--timeout`` that is not positive, a ``--crash``
    or ``--allow`` that is not a dotted class name, and a class given to both.

    Raises:
        CommandInputError: Naming the option and the value.
    """
    if examples < 1:
        raise CommandInputError(f"--examples must be at least 1, got {examples}")
    check_call_timeout(timeout)
    for option, given in (("--crash", crash), ("--allow", allow)):
        for name in given:
            if not _EXCEPTION_NAME.match(name):
                raise CommandInputError(f"{option} takes an exception class name such as "
                                        f"ValueError or package.module.Error, got {name!r}")
    both = sorted(set(crash) & set(allow))
    if both:
        raise CommandInputError(f"{both[0]} is given to both --crash and --allow")


def check_audit_options(examples: int, timeout: float) -> None:
    """Refuse ``tools audit --examples`` below 0 and a ``--timeout`` that is not positive.

    Raises:
        CommandInputError: Naming the option and the value.
    """
    if examples < 0:
        raise CommandInputError(f"--examples must be 0 or more, got {examples}")
    check_call_timeout(timeout)


def check_names(names: Sequence[str], known: list[str]) -> None:
    """Refuse a ``--tool`` that names no tool of the target.

    Raises:
        CommandInputError: Naming the first unknown tool and the known ones.
    """
    unknown = [name for name in names if name not in known]
    if unknown:
        from agentforge_cli.core.run.service import unknown_tool_message

        raise CommandInputError(unknown_tool_message(unknown[0], known))


@dataclass(frozen=True, slots=True)
class FuzzPlan:
    """The options of the run and the tools it covers, in the service's order."""

    options: FuzzOptions
    selected: list[str]


def plan_fuzz(specs: Sequence[Any], *, names: Sequence[str], examples: int,
              seed: int | None, crash: Sequence[str], allow: Sequence[str],
              include_destructive: bool, allow_effects: bool, served: frozenset[str]
              ) -> FuzzPlan:
    """The run: a random seed unless one is given, the crash rule of ``--crash`` and
    ``--allow``, and the tools named (every tool when none is)."""
    from agentforge_cli.fuzz.classify import CrashRule
    from agentforge_cli.fuzz.options import FuzzOptions

    options = FuzzOptions(examples=examples,
                          seed=random.randrange(2**32) if seed is None else seed,
                          rule=CrashRule.build(crash, allow),
                          include_destructive=include_destructive,
                          allow_effects=allow_effects, served=served,
                          chosen=frozenset(names))
    selected = [s.name for s in specs if not names or s.name in names]
    return FuzzPlan(options, selected)


def skip_notes(specs: Sequence[Any], plan: FuzzPlan) -> list[str]:
    """One line per selected tool that will not be called, and why; and per Python tool
    its annotations take out of the effect guard."""
    from agentforge_cli.fuzz.selection import skip_reason, unguarded_reason

    options = plan.options
    notes = []
    for spec in specs:
        if spec.name not in plan.selected:
            continue
        reason = skip_reason(spec, options)
        unguarded = unguarded_reason(spec, options)
        if reason is not None:
            notes.append(f"skipped {shown_name(spec.name)}: {reason}")
        elif unguarded and spec.name not in options.served and not options.allow_effects:
            notes.append(f"effects allowed for {shown_name(spec.name)}: {unguarded}")
    return notes


def run_failed(reports: Sequence[Any]) -> bool:
    """The run fails: some tool has a finding, or every tool was skipped."""
    return any(r.failed for r in reports) or (bool(reports) and all(r.skipped for r in reports))


def shown_name(name: str) -> str:
    """A tool's name as the report shows it: on one line, nothing a terminal acts on (an
    MCP server chooses its names)."""
    return safe_text(name, one_line=True)
