"""GitHub Actions annotations: under Actions (``GITHUB_ACTIONS=true``), the findings and
failing calls of ``tools check``, ``tools fuzz`` and ``replay`` are also written as
``::error file=...,line=...,title=...::message`` workflow commands, which GitHub shows
on the run's page and beside the lines of a pull request's files.

They go to standard error. The runner reads workflow commands from both of a step's
streams (each gets its own output manager, which tries every line as a command), and
standard output stays the product's output: ``--json`` and ``--format`` documents are
never interleaved with commands.

GitHub shows at most 10 error annotations per step, so at most :data:`LIMIT` are
written, then one notice counting the others (the step summary and the log list them).
Paths are relative to ``GITHUB_WORKSPACE`` (the checkout) when they are under it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["LIMIT", "Annotation", "emit", "escape_data", "escape_property", "for_call",
           "for_findings", "for_fuzz", "line", "shown_path", "sources", "wanted"]

LIMIT = 10
"""Error annotations written per command: GitHub shows no more per step."""
_DIFF_LINES = 20
"""Lines of a mismatch's diff in its annotation."""


@dataclass(frozen=True, slots=True)
class Annotation:
    """One ``::error`` command: where, a title, and the message."""

    message: str
    title: str
    file: str | None = None
    line: int | None = None


def wanted() -> bool:
    """The command runs in a GitHub Actions step."""
    return os.environ.get("GITHUB_ACTIONS", "") == "true"


def escape_data(text: str) -> str:
    """A command's message as the runner reads it back: ``%``, CR and LF escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property's value: the message's escapes, and ``:`` and ``,`` (which end it)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def line(annotation: Annotation, kind: str = "error") -> str:
    """The workflow command for ``annotation``."""
    properties = []
    if annotation.file:
        properties.append(f"file={escape_property(annotation.file)}")
        if annotation.line is not None:
            properties.append(f"line={annotation.line}")
    properties.append(f"title={escape_property(annotation.title)}")
    return f"::{kind} {','.join(properties)}::{escape_data(annotation.message)}"


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` relative to ``GITHUB_WORKSPACE`` (else to the working directory) when it
    is under it, with ``/``; any other path absolute."""
    base = Path(os.environ.get("GITHUB_WORKSPACE", "").strip() or os.getcwd())
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(os.path.abspath(base)).as_posix()
    except ValueError:
        return str(absolute)


def emit(annotations: Sequence[Annotation], *, untold: int = 0) -> None:
    """Write the first :data:`LIMIT` annotations to standard error, then a notice
    counting the rest (and ``untold`` more not collected); nothing outside GitHub
    Actions."""
    if not wanted() or not annotations:
        return
    from agentforge_cli.cli.output import write

    for annotation in annotations[:LIMIT]:
        write(line(annotation), stderr=True)
    more = len(annotations) + untold - LIMIT
    if more > 0:
        write(line(Annotation(f"{more} more not annotated: see the step's log and summary",
                              title="agentforge"), "notice"), stderr=True)


def sources(service: Any) -> dict[str, tuple[str, int]]:
    """Tool name -> the file and line of its Python function, for the tools of
    ``service`` that have one."""
    from agentforge_cli.integrations.targets.provenance import tool_source

    found = {}
    for spec in getattr(service, "specifications", ()):
        place = tool_source(service.executor(spec.name))
        if place is not None:
            found[spec.name] = place
    return found


def for_findings(findings: Sequence[Any], places: Mapping[str, tuple[str, int]],
                 fail_on: str, *, command: str = "tools check") -> list[Annotation]:
    """The findings that fail the check (at ``fail_on`` or worse, not silenced), each at
    its tool's source line (a finding about the tool set, or an MCP tool's: no file)."""
    from agentforge_cli.schema.findings import severity

    threshold = severity(fail_on)
    return [_at(places.get(f.tool), f.message, f"agentforge {command}: {f.rule}")
            for f in findings if not f.silenced and severity(f.level) >= threshold]


def for_fuzz(reports: Sequence[Any], places: Mapping[str, tuple[str, int]]
             ) -> list[Annotation]:
    """Each fuzz finding (and a tool's own error) at the line that raised, when it is in
    the project, else at the tool's source line."""
    from agentforge_cli.fuzz.fuzz_report import describe

    found = []
    for report in reports:
        title = f"agentforge tools fuzz: {report.name}"
        if report.error:
            found.append(_at(places.get(report.name), report.error, title))
        for finding in report.findings:
            where = _project_place(finding.location) or places.get(report.name)
            found.append(_at(where, f"{describe(finding)}\nreproduce: {finding.command}",
                             f"{title} ({finding.kind})"))
    return found


def for_call(path: str, call: Any) -> Annotation:
    """A replayed call that failed, at its line of the transcript ``path``."""
    if call.drift is not None:
        message = f"{call.name}: the recorded arguments no longer fit: {call.drift}"
    else:
        diff = list(call.diff[:_DIFF_LINES])
        more = len(call.diff) - len(diff)
        message = "\n".join([f"{call.name}: result differs from the recording", *diff,
                             *([f"... {more} more lines"] if more > 0 else [])])
    return Annotation(message, f"agentforge replay: {call.status} {call.name}",
                      shown_path(path), call.where.line)


def _at(place: tuple[str, int] | None, message: str, title: str) -> Annotation:
    if place is None:
        return Annotation(message, title)
    return Annotation(message, title, shown_path(place[0]), place[1])


def _project_place(location: str) -> tuple[str, int] | None:
    """``path.py:12`` as a place, when the file is the project's: under the workspace
    (or the working directory) and not an installed library."""
    path, _, number = location.rpartition(":")
    if not path or not number.isdigit():
        return None
    shown = shown_path(path)
    if os.path.isabs(shown) or "site-packages" in Path(shown).parts:
        return None
    return path, int(number)
