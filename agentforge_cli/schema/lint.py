"""Lint rules over tool specifications -> :class:`Finding` data (never printed here).

Provider-neutral rules always run:

==================  =======  ==========================================================
``schema-invalid``  error    ``parameters`` is not valid JSON Schema 2020-12 (checked
                             with ``jsonschema`` when it is installed; a warning
                             ``jsonschema-missing`` says when it is not)
``root-not-object`` error    ``parameters`` is not a plain ``{"type": "object"}`` schema
``unresolved-ref``  error    a ``$ref`` names no definition under ``$defs``
``ref-cycle``       error    a ``$defs`` entry is only a ``$ref`` back to itself
``duplicate-name``  error    two tools share a name
``no-description``  warning  a tool, or one of its parameters, has no description
``single-enum``     warning  an ``enum`` with one value (the parameter is a constant)
``any-type``        warning  a parameter (or part of one) accepts any JSON value
==================  =======  ==========================================================

Each selected provider (``openai``, ``openai-strict``, ``anthropic``, ``gemini``,
``mcp``) adds ``<provider>:name`` (error: the provider refuses the tool's name), every
part its export has no form for (error) and every part it exports in the closest form
only (warning), as ``<provider>:<rule>``. Gemini also warns about parameter names outside
``^[A-Za-z_][A-Za-z0-9_]{0,63}$`` (``gemini:parameter-name``).

Levels order ``info < warning < error``; a drift ``breaking`` finding
(:mod:`agentforge_cli.schema.drift`) counts as an error.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from agentforge_cli.core.spec import ToolSpecification
from agentforge_cli.schema.providers import PROVIDERS, convert_tool, name_problem, provider_name
from agentforge_cli.schema.providers.base import ROOT, child_path, display_path, ref_cycle

__all__ = [
    "BREAKING",
    "ERROR",
    "INFO",
    "LEVELS",
    "PROVIDERS",
    "WARNING",
    "Finding",
    "check_specs",
    "exit_code",
    "fails",
    "findings_to_json",
    "format_findings",
    "run_checks",
    "severity",
    "subject",
    "summarize",
]

ERROR = "error"
BREAKING = "breaking"
WARNING = "warning"
INFO = "info"

LEVELS = (INFO, WARNING, ERROR, BREAKING)
"""Every level a finding can have."""

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

    @property
    def parameter(self) -> str:
        """The path as a person reads it (``items[*].qty``); ``""`` for the tool."""
        return display_path(self.path)

    def to_dict(self) -> dict[str, str]:
        """``{"tool", "rule", "level", "message", "path"}`` (the ``--json`` row)."""
        return {"tool": self.tool, "rule": self.rule, "level": self.level,
                "message": self.message, "path": self.path}

    def __str__(self) -> str:
        return f"{self.level}: {self.message} [{self.rule}]"


def subject(tool: str, path: str = "") -> str:
    """``tool "x"`` or ``tool "x", parameter "items[*].qty"``."""
    where = display_path(path)
    return f'tool "{tool}"' + (f', parameter "{where}"' if where else "")


def _finding(tool: str, rule: str, level: str, text: str, path: str = "") -> Finding:
    return Finding(tool=tool, rule=rule, level=level, path=path,
                   message=f"{subject(tool, path)}: {text}")


# --- running -----------------------------------------------------------------------------

def check_specs(specs: Iterable[ToolSpecification], providers: Iterable[str] = (), *,
                validate_schema: bool = True) -> list[Finding]:
    """Run the neutral rules, then each provider's rules, over every tool.

    Args:
        specs: The specifications (a ``build_local_tools`` table works too).
        providers: Provider names (see :data:`PROVIDERS`); none runs only the neutral
            rules.
        validate_schema: Check each schema against the JSON Schema 2020-12 metaschema.

    Raises:
        ValueError: An unknown provider name.
    """
    specs = list(specs)
    selected = list(dict.fromkeys(provider_name(p) for p in providers))
    findings: list[Finding] = []
    validator = _metaschema_validator() if validate_schema else None
    if validate_schema and validator is None:
        findings.append(Finding(tool="", rule="jsonschema-missing", level=WARNING,
                                message="jsonschema not installed, schema validity not "
                                        "checked (pip install jsonschema)"))
    counts = Counter(spec.name for spec in specs)
    for name, count in counts.items():
        if count > 1:
            findings.append(_finding(name, "duplicate-name", ERROR,
                                     f"{count} tools share this name; a model cannot tell "
                                     "them apart"))
    for spec in specs:
        findings.extend(_neutral(spec, validator))
        for provider in selected:
            findings.extend(_provider(spec, provider))
    return findings


def run_checks(specs: Iterable[ToolSpecification], *, providers: Iterable[str] = (),
               snapshot: Any = None, update_snapshot: bool = False) -> list[Finding]:
    """Everything ``tools check`` runs: lint, then the snapshot comparison if asked.

    Args:
        specs: The specifications.
        providers: Provider names for the provider rules.
        snapshot: A snapshot file path, or ``None``.
        update_snapshot: Write ``snapshot`` from ``specs`` instead of comparing.

    Raises:
        SnapshotMissingError: ``snapshot`` does not exist and ``update_snapshot`` is off
            (the CLI exits 3).
        SnapshotError: ``snapshot`` cannot be read.
    """
    specs = list(specs)
    findings = check_specs(specs, providers)
    if snapshot is not None:
        from agentforge_cli.schema.snapshots import check_snapshot

        findings.extend(check_snapshot(specs, snapshot, update=update_snapshot))
    return findings


# --- results -----------------------------------------------------------------------------

def fails(findings: Iterable[Finding], fail_on: str = ERROR) -> bool:
    """True when a finding is at least as severe as ``fail_on`` (``error`` or ``warning``;
    ``breaking`` counts as ``error``)."""
    threshold = severity(fail_on)
    return any(severity(f.level) >= threshold for f in findings)


def exit_code(findings: Iterable[Finding], fail_on: str = ERROR) -> int:
    """``1`` when :func:`fails`, else ``0``."""
    return 1 if fails(findings, fail_on) else 0


def summarize(findings: Iterable[Finding]) -> dict[str, int]:
    """Counts keyed by level, every level present (``{"breaking": 0, ...}``)."""
    counts = dict.fromkeys((BREAKING, ERROR, WARNING, INFO), 0)
    for finding in findings:
        counts[finding.level] = counts.get(finding.level, 0) + 1
    return counts


def findings_to_json(findings: Iterable[Finding], fail_on: str = ERROR) -> dict[str, Any]:
    """The ``--json`` document: ``{"ok", "summary", "findings": [...]}``."""
    findings = list(findings)
    return {"ok": not fails(findings, fail_on), "summary": summarize(findings),
            "findings": [f.to_dict() for f in findings]}


def format_findings(findings: Iterable[Finding]) -> str:
    """Plain text, one finding a line, most severe first (stable within a level)."""
    ordered = sorted(findings, key=lambda f: -severity(f.level))
    return "\n".join(str(f) for f in ordered)


# --- neutral rules -----------------------------------------------------------------------

def _metaschema_validator() -> Any:
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        return None
    return Draft202012Validator(Draft202012Validator.META_SCHEMA)


_META_KEYS = frozenset({"description", "title", "default", "examples", "deprecated",
                        "readOnly", "writeOnly", "$comment"})


def _neutral(spec: ToolSpecification, validator: Any) -> Iterator[Finding]:
    name = spec.name
    parameters = spec.parameters
    if validator is not None:
        for error in sorted(validator.iter_errors(parameters), key=lambda e: list(e.path)):
            where = _schema_location(list(error.absolute_path))
            pointer = "/" + "/".join(str(p) for p in error.absolute_path)
            yield _finding(name, "schema-invalid", ERROR,
                           f"not valid JSON Schema 2020-12 at {pointer}: {error.message}",
                           where)
    if not isinstance(parameters, dict):
        return
    if parameters.get("type") != "object" or any(
            key in parameters for key in ("anyOf", "oneOf", "allOf", "$ref", "enum", "not")):
        yield _finding(name, "root-not-object", ERROR,
                       'the parameters schema must be a plain {"type": "object"} schema; '
                       "every provider requires it", ROOT)
    if not (spec.description or "").strip():
        yield _finding(name, "no-description", WARNING,
                       "the tool has no description; the model chooses tools by it "
                       "(add a docstring or @tool(description=...))")
    properties = parameters.get("properties")
    if isinstance(properties, dict):
        for key, schema in properties.items():
            if isinstance(schema, dict) and not _described(schema, parameters):
                yield _finding(name, "no-description", WARNING,
                               "the parameter has no description (add P(\"...\") or an "
                               "Args: entry in the docstring)", child_path(ROOT, key))
    defs = parameters.get("$defs") if isinstance(parameters.get("$defs"), dict) else {}
    for def_name in defs:
        cycle = ref_cycle(def_name, defs)
        if cycle:
            yield _finding(name, "ref-cycle", ERROR,
                           f"the definition {def_name!r} is only a $ref to itself "
                           f"({' -> '.join(cycle)}); it describes no value", f"$defs.{def_name}")
    yield from _walk_rules(name, parameters, ROOT, defs, set())


def _described(schema: dict[str, Any], root: dict[str, Any]) -> bool:
    if str(schema.get("description") or "").strip():
        return True
    ref = schema.get("$ref")
    defs = root.get("$defs") or {}
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = defs.get(ref[len("#/$defs/"):])
        return isinstance(target, dict) and bool(str(target.get("description") or "").strip())
    return False


def _walk_rules(tool: str, schema: Any, path: str, defs: dict[str, Any],
                seen: set[str]) -> Iterator[Finding]:
    if schema is True or (isinstance(schema, dict) and schema.keys() <= _META_KEYS):
        if path != ROOT:
            yield _finding(tool, "any-type", WARNING,
                           "accepts any JSON value (typed Any or not annotated); a concrete "
                           "type tells the model what to send", path)
        return
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref[len("#/$defs/"):] if ref.startswith("#/$defs/") else None
        if name is None or name not in defs:
            yield _finding(tool, "unresolved-ref", ERROR,
                           f"$ref {ref!r} names no definition under $defs", path)
        elif name not in seen:
            yield from _walk_rules(tool, defs[name], path, defs, seen | {name})
    enum = schema.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        yield _finding(tool, "single-enum", WARNING,
                       f"the enum has a single value ({enum[0]!r}); the parameter is a "
                       "constant the model has to repeat", path)
    for key in ("anyOf", "oneOf", "allOf"):
        for member in schema.get(key) or ():
            yield from _walk_rules(tool, member, path, defs, seen)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for key, sub in properties.items():
            yield from _walk_rules(tool, sub, child_path(path, key), defs, seen)
    items = schema.get("items")
    if isinstance(items, dict) or items is True:
        yield from _walk_rules(tool, items, child_path(path, 0, "items"), defs, seen)
    for index, member in enumerate(schema.get("prefixItems") or ()):
        yield from _walk_rules(tool, member, child_path(path, index, "prefix"), defs, seen)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) or extra is True:
        yield from _walk_rules(tool, extra, child_path(path, 0, "any"), defs, seen)


def _schema_location(segments: list[Any]) -> str:
    """A schema location (``properties/items/items/properties/qty``) as an argument path."""
    path = ROOT
    index = 0
    while index < len(segments):
        segment = segments[index]
        following = segments[index + 1] if index + 1 < len(segments) else None
        if segment == "properties" and following is not None:
            path = child_path(path, following)
            index += 2
        elif segment == "prefixItems" and isinstance(following, int):
            path = child_path(path, following, "prefix")
            index += 2
        elif segment == "items":
            path = child_path(path, 0, "items")
            index += 1
        elif segment == "additionalProperties":
            path = child_path(path, 0, "any")
            index += 1
        elif segment in ("anyOf", "oneOf", "allOf") and isinstance(following, int):
            index += 2
        elif segment == "$defs" and following is not None:
            path = f"$defs.{following}"
            index += 2
        else:
            break
    return path


# --- provider rules ----------------------------------------------------------------------

_GEMINI_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_NEUTRAL_RULES = frozenset({"root-not-object", "unresolved-ref", "ref-cycle"})


def _provider(spec: ToolSpecification, provider: str) -> Iterator[Finding]:
    problem = name_problem(provider, spec.name)
    if problem:
        yield _finding(spec.name, f"{provider}:name", ERROR, f"{provider} refuses {problem}")
    if provider == "mcp" and "/" in spec.name and not problem:
        yield _finding(spec.name, "mcp:name", WARNING,
                       "'/' in a tool name is outside the characters the MCP 2025-11-25 "
                       "tool-name guidance lists (letters, digits, '_', '-', '.')")
    if provider == "gemini" and isinstance(spec.parameters, dict):
        for key in spec.parameters.get("properties") or {}:
            if not _GEMINI_PARAMETER.fullmatch(key):
                yield _finding(spec.name, "gemini:parameter-name", WARNING,
                               "Gemini documents parameter names as a letter or "
                               "'_' followed by letters, digits or '_', at most 64 "
                               "characters", child_path(ROOT, key))
    conversion = convert_tool(spec, provider)
    for level, issues in ((ERROR, conversion.errors), (WARNING, conversion.warnings)):
        for issue in issues:
            if issue.rule in _NEUTRAL_RULES:
                continue  # reported once, by the neutral rule of the same name
            yield _finding(spec.name, f"{provider}:{issue.rule}", level, issue.message,
                           issue.path)
