"""The GitHub Actions job summary: a Markdown section per command, appended to the file
``GITHUB_STEP_SUMMARY`` names (created when missing, never truncated).

One function per command's data: :func:`replay`, :func:`check` (``tools audit`` too),
:func:`fuzz`. Each lists
its counts, then at most :data:`LIMIT` failing items and how many more there were. A file
that cannot be written is one warning on standard error: the command's output and exit
code stay as they are.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentforge_cli.replay.report import CallStatus

__all__ = ["LIMIT", "ReplayRun", "check", "fuzz", "replay", "wanted"]

ENV = "GITHUB_STEP_SUMMARY"
LIMIT = 50
"""Failing items listed per section; the rest are counted."""
_FAILING_LEVELS = ("breaking", "error")
_LEVELS = ("breaking", "error", "warning", "info")
_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~&!])")
_NEWLINES = re.compile(r"\r\n|[\r\n\u2028\u2029]")


@dataclass(kw_only=True, slots=True)
class ReplayRun:
    """One transcript's replay as the summary shows it."""

    transcript: str
    counts: Mapping[CallStatus, int] = field(default_factory=dict)
    failing: list[tuple[str, str, str]] = field(default_factory=list)
    """Up to :data:`LIMIT` ``(place, tool, status)`` of mismatched and drifted calls."""
    error: str | None = None
    """Why the transcript could not be replayed, or ``None``."""


def _path() -> Path | None:
    named = os.environ.get(ENV, "")
    return Path(named) if named.strip() else None


def wanted() -> bool:
    """``GITHUB_STEP_SUMMARY`` names a file: the command should collect what it shows."""
    return _path() is not None


def replay(runs: Sequence[ReplayRun], *, failed: bool) -> None:
    """The ``replay`` section: the counts per transcript, then the failing calls."""
    if not wanted():
        return
    from agentforge_cli.replay.report import CallStatus

    statuses = (CallStatus.MATCHED, CallStatus.MISMATCHED, CallStatus.DRIFTED,
                CallStatus.UNRECORDED)
    lines = [_heading("agentforge replay", failed), "",
             "| Transcript | " + " | ".join(statuses) + " |",
             "| --- |" + " ---: |" * len(statuses)]
    for run in runs:
        counts = (" | ".join(str(run.counts.get(s, 0)) for s in statuses)
                  if run.error is None else _cell(run.error) + " |" * 3)
        lines.append(f"| {_cell(run.transcript)} | {counts} |")
    total = sum(run.counts.get(CallStatus.MISMATCHED, 0)
                + run.counts.get(CallStatus.DRIFTED, 0) for run in runs)
    items = [(run.transcript, *call) for run in runs for call in run.failing]
    lines += _items(("Transcript", "Place", "Tool", "Status"),
                    [tuple(_cell(text) for text in item) for item in items], total)
    _append(lines)


def check(findings: Sequence[Any], *, failed: bool,
          command: str = "agentforge tools check") -> None:
    """The ``tools check`` section (or ``command``'s, ``tools audit``'s: findings too):
    findings by level, then each error or breaking one."""
    if not wanted():
        return
    counts = {level: 0 for level in _LEVELS}
    for finding in findings:
        counts[finding.level] = counts.get(finding.level, 0) + 1
    lines = [_heading(command, failed), "",
             "| " + " | ".join(counts) + " |", "|" + " ---: |" * len(counts),
             "| " + " | ".join(str(count) for count in counts.values()) + " |"]
    failing = [f for f in findings if f.level in _FAILING_LEVELS]
    rows = [(_cell(f.level), _cell(f.tool or ""), _cell(f.parameter or ""), _cell(f.rule),
             _cell(f.message)) for f in failing]
    lines += _items(("Level", "Tool", "Parameter", "Rule", "Message"), rows, len(failing))
    _append(lines)


def fuzz(reports: Sequence[Any], *, failed: bool) -> None:
    """The ``tools fuzz`` section: tools, calls and findings, then each finding with the
    command reproducing it."""
    if not wanted():
        return
    run = [r for r in reports if not r.skipped]
    rows = [row for report in run for row in _fuzz_rows(report)]
    lines = [_heading("agentforge tools fuzz", failed), "",
             "| tools | skipped | calls | findings |", "| ---: | ---: | ---: | ---: |",
             f"| {len(run)} | {len(reports) - len(run)} | "
             f"{sum(r.examples for r in run)} | {len(rows)} |"]
    lines += _items(("Tool", "Finding", "Reproduce"), rows, len(rows))
    _append(lines + _fuzz_notes(run))


def _fuzz_rows(report: Any) -> list[tuple[str, ...]]:
    """One fuzzed tool's rows: its own error, then each finding with its command."""
    rows: list[tuple[str, ...]] = []
    if report.error:
        rows.append((_cell(report.name), _cell(report.error), ""))
    return rows + [(_cell(report.name), _cell(f"{f.kind}: {f.detail}"), _code(f.command))
                   for f in report.findings]


def _fuzz_notes(run: Sequence[Any]) -> list[str]:
    """The tools whose every call ended alike (low coverage), and those the effect guard
    stopped."""
    notes: list[str] = []
    low = [_cell(r.name) for r in run if getattr(r, "low_coverage", None)]
    if low:
        notes += ["", "Every call ended in the same tool error (low coverage): "
                  + ", ".join(low)]
    stopped = [f"{_cell(r.name)} ({r.counts.get('blocked effect', 0)} calls)" for r in run
               if getattr(r, "blocked", None)]
    if stopped:
        notes += ["", "Calls stopped by the effect guard (not failures): "
                  + ", ".join(stopped)]
    return notes


def _heading(command: str, failed: bool) -> str:
    return f"### {'❌' if failed else '✅'} `{command}`"


def _items(header: Sequence[str], rows: Sequence[Sequence[str]], total: int) -> list[str]:
    """The failing items' table (at most :data:`LIMIT` rows), then "and N more"."""
    if not rows:
        return []
    lines = ["", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows[:LIMIT]]
    shown = min(len(rows), LIMIT)
    if total > shown:
        lines += ["", f"and {total - shown} more"]
    return lines


def _cell(text: str) -> str:
    """``text`` as one table cell's Markdown: on one line, its special characters
    escaped (``|`` cannot end the cell)."""
    return _SPECIAL.sub(r"\\\1", _NEWLINES.sub(" ", str(text)))


def _code(text: str) -> str:
    """``text`` as a code span in a table cell: on one line, ``|`` escaped, fenced with
    more backticks than it holds in a row."""
    flat = _NEWLINES.sub(" ", text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _append(lines: Iterable[str]) -> None:
    """Append the section (and a blank line) to the summary file; a failure is a warning."""
    path = _path()
    if path is None:
        return
    try:
        with path.open("a", encoding="utf-8", errors="backslashreplace") as stream:
            stream.write("\n".join(lines) + "\n\n")
    except (OSError, ValueError) as exc:
        from agentforge_cli.cli import render

        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        render.warning(f"cannot write the GitHub step summary {str(path)!r}: {reason}")
