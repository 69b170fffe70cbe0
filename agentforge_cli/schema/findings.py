"""Findings: what lint rules and snapshot comparisons report, and how a run is judged.

Levels order ``info < warning < error``; a drift ``breaking`` finding counts as an error.
A silenced finding (see :mod:`~agentforge_cli.schema.silencing`) is kept, marked with who
silenced it, and counts for nothing: not in :func:`fails`, :func:`summarize` or the
``findings`` of :func:`findings_to_json` (which lists it under ``silenced``).
Findings are data, never printed here: the CLI and the pytest plugin show them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agentforge_cli.schema.jsonschema import display_path

__all__ = [
    "BREAKING",
    "ERROR",
    "INFO",
    "WARNING",
    "Finding",
    "exit_code",
    "fails",
    "finding",
    "findings_to_json",
    "format_findings",
    "severity",
    "subject",
    "summarize",
]

ERROR = "error"
BREAKING = "breaking"
WARNING = "warning"
INFO = "info"

_SEVERITY = {INFO: 0, WARNING: 1, ERROR: 2, BREAKING: 2}


def severity(level: str) -> int:
    """``info`` 0, ``warning`` 1, ``error`` and ``breaking`` 2."""
    return _SEVERITY[level]


@dataclass(frozen=True, kw_only=True, slots=True)
class Finding:
    """One result of a lint rule or of a snapshot comparison."""

    tool: str
    """The tool concerned (``""`` for a finding about the whole run)."""
    rule: str
    """A short stable identifier: ``no-description``, ``gemini:free-form-object``,
    ``parameter-removed``..."""
    level: str
    """``error``, ``warning`` or ``info`` for lint; ``breaking``, ``warning`` or ``info``
    for drift."""
    message: str
    """What was found, naming the tool and the parameter."""
    path: str = ""
    """JSONPath of the argument concerned (``$.items[*].qty``); ``""`` for the tool
    itself."""
    silenced: str = ""
    """Where the silencing of this rule for this tool comes from
    (``@tool(lint_ignore=...) on mod.func``, the configuration file); ``""``: the
    finding counts."""

    @property
    def parameter(self) -> str:
        """The path as a person reads it (``items[*].qty``); ``""`` for the tool."""
        return display_path(self.path)

    def to_dict(self) -> dict[str, str]:
        """``{"tool", "rule", "level", "message", "path"}`` (the ``--json`` row), and
        ``silenced_by`` for a silenced finding."""
        row = {"tool": self.tool, "rule": self.rule, "level": self.level,
               "message": self.message, "path": self.path}
        if self.silenced:
            row["silenced_by"] = self.silenced
        return row

    def __str__(self) -> str:
        text = f"{self.level}: {self.message} [{self.rule}]"
        return f"{text} (silenced by {self.silenced})" if self.silenced else text


def subject(tool: str, path: str = "") -> str:
    """``tool "x"`` or ``tool "x", parameter "items[*].qty"``."""
    where = display_path(path)
    return f'tool "{tool}"' + (f', parameter "{where}"' if where else "")


def finding(tool: str, rule: str, level: str, text: str, path: str = "") -> Finding:
    """A finding about one tool (or one of its parameters): its message is the
    :func:`subject`, then ``text``."""
    return Finding(tool=tool, rule=rule, level=level, path=path,
                   message=f"{subject(tool, path)}: {text}")


def fails(findings: Iterable[Finding], fail_on: str = ERROR) -> bool:
    """True when a finding is at least as severe as ``fail_on`` (``error`` or ``warning``;
    ``breaking`` counts as ``error``)."""
    threshold = severity(fail_on)
    return any(severity(f.level) >= threshold for f in findings if not f.silenced)


def exit_code(findings: Iterable[Finding], fail_on: str = ERROR) -> int:
    """``1`` when :func:`fails`, else ``0``."""
    return 1 if fails(findings, fail_on) else 0


def summarize(findings: Iterable[Finding]) -> dict[str, int]:
    """Counts keyed by level, every level present (``{"breaking": 0, ...}``); silenced
    findings are not counted."""
    counts = dict.fromkeys((BREAKING, ERROR, WARNING, INFO), 0)
    for item in findings:
        if not item.silenced:
            counts[item.level] = counts.get(item.level, 0) + 1
    return counts


def findings_to_json(findings: Iterable[Finding], fail_on: str = ERROR) -> dict[str, Any]:
    """The ``--json`` document: ``{"ok", "summary", "findings": [...]}``, and
    ``"silenced": [...]`` (each with ``silenced_by``) when a finding is silenced."""
    findings = list(findings)
    document = {"ok": not fails(findings, fail_on), "summary": summarize(findings),
                "findings": [f.to_dict() for f in findings if not f.silenced]}
    silenced = [f.to_dict() for f in findings if f.silenced]
    if silenced:
        document["silenced"] = silenced
    return document


def format_findings(findings: Iterable[Finding]) -> str:
    """Plain text, one finding a line, most severe first (stable within a level), the
    silenced ones last."""
    ordered = sorted(findings, key=lambda f: (bool(f.silenced), -severity(f.level)))
    return "\n".join(str(f) for f in ordered)
