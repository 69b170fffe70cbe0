"""What a fuzz run found, per tool, and its JSON and JUnit forms (nothing here prints)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.core.observe.masking import mask_target
from agentforge_cli.fuzz.classify import FAILING, KINDS, OutcomeKind

__all__ = ["BlockedCall", "Finding", "ToolReport", "junit_xml", "reproduce_command",
           "to_json"]

LABELS = {OutcomeKind.MISMATCH: "schema-binding mismatch"}
"""How a kind is written for people (JSON keeps the short kind)."""


def reproduce_command(name: str, arguments: str, targets: Sequence[str]) -> str:
    """``agentforge tools call NAME 'ARGS' -t TARGET``, quoted for a POSIX shell."""
    parts = ["agentforge", "tools", "call", shlex.quote(name), shlex.quote(arguments)]
    for target in targets:
        parts += ["-t", shlex.quote(mask_target(target))]
    return " ".join(parts)


@dataclass(frozen=True, kw_only=True, slots=True)
class Finding:
    """One distinct failure of a tool, with its smallest input found."""

    kind: OutcomeKind
    """``crash``, ``hang``, ``bad result`` or ``mismatch``."""
    detail: str
    """The exception (``ZeroDivisionError: division by zero``) or the refusal."""
    location: str
    """Where it was raised (``path.py:12``), or empty."""
    arguments: str
    """The argument string that reproduces it."""
    form: str
    """How the arguments were written (a name of :data:`~agentforge_cli.fuzz.forms.FORMS`)."""
    shrunk: bool
    """The input is the smallest hypothesis found (hangs are not shrunk)."""
    command: str
    """The command line that reproduces it."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "detail": self.detail, "location": self.location,
                "arguments": self.arguments, "form": self.form, "shrunk": self.shrunk,
                "command": self.command}


@dataclass(frozen=True, kw_only=True, slots=True)
class BlockedCall:
    """A call the effect guard stopped: the first to try one distinct effect."""

    effect: str
    """What it tried: ``open('/etc/x', 'w')``, ``connect to 192.0.2.1:80``, ``start a
    process: ls``."""
    arguments: str
    """The argument string of that call."""
    form: str
    """How the arguments were written."""

    def to_json(self) -> dict[str, Any]:
        return {"effect": self.effect, "arguments": self.arguments, "form": self.form}

    def describe(self) -> str:
        """``blocked effect: open('/etc/x', 'w')``."""
        return f"{OutcomeKind.BLOCKED}: {self.effect}"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolReport:
    """The run of one tool."""

    name: str
    examples: int = 0
    """How many calls were made."""
    counts: dict[OutcomeKind, int] = field(default_factory=dict)
    """Kind -> number of calls (every kind of :data:`KINDS`)."""
    findings: tuple[Finding, ...] = ()
    blocked: tuple[BlockedCall, ...] = ()
    """The first call to try each distinct effect the guard refused (a few at most; the
    number of such calls is ``counts["blocked effect"]``)."""
    guarded: bool = False
    """The calls ran under the effect guard."""
    skipped: str | None = None
    """Why the tool was not called (``destructive``), or ``None``."""
    error: str | None = None
    """Why no input could be generated for it, or ``None``."""
    uniform_error: str | None = None
    """What the tool error every call ended in says, when they all ended in the same one
    (the inputs may never reach the tool's code); else ``None``."""

    @property
    def failed(self) -> bool:
        return bool(self.findings) or self.error is not None

    @property
    def low_coverage(self) -> bool:
        """Every call ended in the same tool error: a pass that tested little."""
        return self.uniform_error is not None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "examples": self.examples,
                "counts": {kind: self.counts.get(kind, 0) for kind in KINDS},
                "failed": self.failed, "skipped": self.skipped, "error": self.error,
                "low_coverage": self.low_coverage, "guarded": self.guarded,
                "failures": [finding.to_json() for finding in self.findings],
                "blocked": [call.to_json() for call in self.blocked]}


def to_json(reports: Sequence[ToolReport], *, seed: int, examples: int,
            timeout: float) -> dict[str, Any]:
    """The ``--json`` document."""
    ran = not reports or any(not r.skipped for r in reports)
    return {"ok": ran and not any(r.failed for r in reports), "seed": seed, "examples": examples,
            "timeout": timeout, "failing_kinds": sorted(FAILING),
            "tools": [report.to_json() for report in reports]}


def describe(finding: Finding) -> str:
    """``crash: ZeroDivisionError: division by zero (at fragile.py:30)``."""
    text = f"{LABELS.get(finding.kind, finding.kind)}: {finding.detail}"
    return text + (f" (at {finding.location})" if finding.location else "")


def blocked_text(report: ToolReport) -> str:
    """The calls of ``report`` the effect guard stopped, for people: how many, then each
    distinct effect with the arguments of the first call that tried it."""
    count = report.counts.get(OutcomeKind.BLOCKED, 0)
    lines = [f"{count} call{'' if count == 1 else 's'} stopped by the effect guard"]
    for call in report.blocked:
        lines += [call.describe(), f"  arguments ({call.form}): {call.arguments}"]
    return "\n".join(lines)


_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold written as ``\\uXXXX``."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def junit_xml(reports: Sequence[ToolReport]) -> str:
    """One ``testcase`` per tool: a ``failure`` per finding, ``skipped`` when not run, and
    the calls the effect guard stopped in its ``system-out`` (they are not failures)."""
    import xml.etree.ElementTree as ET

    failures = sum(1 for r in reports if r.failed)
    skipped = sum(1 for r in reports if r.skipped)
    suite = ET.Element("testsuite", name="agentforge tools fuzz", tests=str(len(reports)),
                       failures=str(failures), errors="0", skipped=str(skipped))
    for report in reports:
        case = ET.SubElement(suite, "testcase", classname="agentforge.fuzz",
                             name=_xml_safe(report.name))
        if report.skipped:
            ET.SubElement(case, "skipped", message=report.skipped)
        elif report.error:
            ET.SubElement(case, "failure", message=_xml_safe(report.error),
                          type="generation").text = _xml_safe(report.error)
        elif report.findings:
            lines = [f"{describe(f)}\n  reproduce: {f.command}" for f in report.findings]
            ET.SubElement(case, "failure", type=report.findings[0].kind,
                          message=_xml_safe(describe(report.findings[0]))
                          ).text = _xml_safe("\n".join(lines))
        if report.blocked:
            ET.SubElement(case, "system-out").text = _xml_safe(blocked_text(report))
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"
