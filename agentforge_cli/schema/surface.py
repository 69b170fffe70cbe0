"""An MCP server's resources, resource templates and prompts, as a snapshot keeps them and
``tools diff`` compares them (:class:`McpSurface`, :func:`diff_surfaces`).

Each object is the protocol's JSON as the server listed it, keyed by what a client names
it by: a resource by its ``uri``, a template by its ``uriTemplate``, a prompt by its
``name`` (the key itself is left out of the kept object). A change is read from the side
of a client that already uses them, as tool drift is:

* **breaking** — a resource, a template or a prompt removed; a prompt argument removed,
  made required, or added as required (a ``prompts/get`` that worked now fails);
* **warning** — a description or a MIME type changed;
* **info** — anything added that nothing has to send (an optional argument too).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.errors import SnapshotError
from agentforge_cli.schema.findings import BREAKING, INFO, WARNING, Finding

__all__ = ["SURFACE_KEYS", "McpSurface", "diff_surfaces"]

SURFACE_KEYS = {"resources": "uri", "resourceTemplates": "uriTemplate", "prompts": "name"}
"""Each snapshot section and the field its objects are keyed by."""

_KIND = {"resources": "resource", "resourceTemplates": "template", "prompts": "prompt"}


@dataclass(frozen=True)
class McpSurface:
    """Resources, templates and prompts by key: ``{"resources": {uri: {...}}, ...}``."""

    sections: Mapping[str, Mapping[str, dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def from_lists(cls, listed: Mapping[str, Iterable[Mapping[str, Any]]]) -> McpSurface:
        """From ``{"resources": [...], "resourceTemplates": [...], "prompts": [...]}`` as
        servers list them (several servers' lists joined).

        Raises:
            SnapshotError: Two objects of a section share a key.
        """
        sections: dict[str, dict[str, dict[str, Any]]] = {}
        for section, key in SURFACE_KEYS.items():
            kept: dict[str, dict[str, Any]] = {}
            for item in listed.get(section) or ():
                name = item.get(key)
                if not isinstance(name, str):
                    continue
                if name in kept:
                    raise SnapshotError(f'two {_KIND[section]}s are named "{name}"; a '
                                        f"snapshot keys {section} by {key}")
                kept[name] = {k: v for k, v in item.items() if k != key}
            if kept:
                sections[section] = kept
        return cls(sections)

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any], source: str) -> McpSurface:
        """The sections of a snapshot document (none in a snapshot written before them).

        Raises:
            SnapshotError: A section is not an object of objects.
        """
        sections: dict[str, dict[str, dict[str, Any]]] = {}
        for section in SURFACE_KEYS:
            value = data.get(section)
            if value is None:
                continue
            if not isinstance(value, dict) or not all(isinstance(v, dict)
                                                      for v in value.values()):
                raise SnapshotError(f'{source}: "{section}" must be an object of objects '
                                    f"keyed by {SURFACE_KEYS[section]}")
            if value:
                sections[section] = value
        return cls(sections)

    def section(self, name: str) -> Mapping[str, dict[str, Any]]:
        """One section's objects by key (empty when the server has none)."""
        return self.sections.get(name) or {}

    def to_snapshot(self) -> dict[str, Any]:
        """The sections a snapshot writes: only those that hold something."""
        return {name: dict(items) for name, items in self.sections.items() if items}

    def __bool__(self) -> bool:
        return any(self.sections.values())


def diff_surfaces(old: McpSurface, new: McpSurface) -> list[Finding]:
    """Every difference between two surfaces, classified (see the module docstring): the
    old objects' order first, then the added ones, section by section."""
    findings: list[Finding] = []
    for section in SURFACE_KEYS:
        before, after = old.section(section), new.section(section)
        kind = _KIND[section]
        for key, item in before.items():
            if key not in after:
                findings.append(_finding(kind, key, f"{kind}-removed", BREAKING,
                                         f"the {kind} was removed"))
                continue
            findings.extend(_changed(kind, key, item, after[key]))
            if section == "prompts":
                findings.extend(_arguments(key, item, after[key]))
        findings.extend(_finding(kind, key, f"{kind}-added", INFO, f"the {kind} was added")
                        for key in after if key not in before)
    return findings


def _finding(kind: str, key: str, rule: str, level: str, text: str,
             argument: str = "") -> Finding:
    where = f'{kind} "{key}"' + (f', argument "{argument}"' if argument else "")
    path = "$." + argument if argument else ""
    return Finding(tool=f"{kind} {key}", rule=rule, level=level, path=path,
                   message=f"{where}: {text}")


def _short(text: Any, limit: int = 60) -> str:
    shown = json.dumps(text, ensure_ascii=False)
    return shown if len(shown) <= limit else shown[:limit - 4] + '..."'


def _changed(kind: str, key: str, before: Mapping[str, Any], after: Mapping[str, Any]
             ) -> Iterator[Finding]:
    for name, rule in (("description", "description-changed"), ("mimeType", "mime-changed")):
        if before.get(name) != after.get(name):
            yield _finding(kind, key, f"{kind}-{rule}", WARNING,
                           f"the {'MIME type' if name == 'mimeType' else name} changed "
                           f"from {_short(before.get(name))} to {_short(after.get(name))}")


def _argument_rows(prompt: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    rows = prompt.get("arguments") or []
    return {row["name"]: row for row in rows
            if isinstance(row, dict) and isinstance(row.get("name"), str)}


def _arguments(key: str, before: Mapping[str, Any], after: Mapping[str, Any]
               ) -> Iterator[Finding]:
    old, new = _argument_rows(before), _argument_rows(after)
    for name, row in old.items():
        if name not in new:
            yield _finding("prompt", key, "prompt-argument-removed", BREAKING,
                           "the argument was removed; a prompts/get that sends it may be "
                           "refused", name)
        elif new[name].get("required") is True and row.get("required") is not True:
            yield _finding("prompt", key, "prompt-argument-required", BREAKING,
                           "the optional argument is now required; a prompts/get without "
                           "it is refused", name)
    for name, row in new.items():
        if name in old:
            continue
        if row.get("required") is True:
            yield _finding("prompt", key, "prompt-required-argument-added", BREAKING,
                           "a new required argument; a prompts/get without it is refused",
                           name)
        else:
            yield _finding("prompt", key, "prompt-argument-added", INFO,
                           "an optional argument was added", name)
