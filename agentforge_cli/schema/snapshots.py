"""Snapshot files: today's tools written down, read back, and compared (see ``drift``).

A snapshot is one JSON file — ``{"version": 1, "tools": {name: {"description",
"parameters"}}}`` — written atomically with sorted keys and two-space indentation, so it
diffs well in review and two runs on the same tools write the same bytes. A list of
``{"name", "description", "parameters"}`` (``tools list --format json``) loads as a
snapshot too.

A snapshot of MCP servers also keeps their resources, resource templates and prompts, in
the optional sections ``"resources"``, ``"resourceTemplates"`` and ``"prompts"``
(:mod:`~agentforge_cli.schema.surface`), written only when there is something in them: a
snapshot without them reads as a server that has none, and the tools' part of the format
is unchanged, so older snapshots still load and compare.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.errors import SnapshotError, SnapshotMissingError
from agentforge_cli.schema.findings import INFO, Finding
from agentforge_cli.schema.schema_drift import diff_specs
from agentforge_cli.schema.surface import McpSurface, diff_surfaces

__all__ = [
    "SNAPSHOT_VERSION",
    "SnapshotError",
    "SnapshotMissingError",
    "check_snapshot",
    "diff_snapshots",
    "dumps_snapshot",
    "load_snapshot",
    "parse_snapshot",
    "read_snapshot",
    "write_snapshot",
]

SNAPSHOT_VERSION = 1
"""The snapshot format this version writes and reads."""


# --- files -------------------------------------------------------------------------------

def _entries(specs: Iterable[ToolSpecification]) -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}
    for spec in specs:
        if spec.name in entries:
            raise SnapshotError(f'two tools are named "{spec.name}"; a snapshot keys tools '
                                "by name")
        entries[spec.name] = {"description": spec.description,
                              "parameters": spec.parameters}
    return entries


def dumps_snapshot(specs: Iterable[ToolSpecification],
                   surface: McpSurface | None = None) -> str:
    """The snapshot text: sorted keys, two-space indent, UTF-8 as is, final newline;
    with a ``surface``, its non-empty sections too."""
    data: dict[str, Any] = {"version": SNAPSHOT_VERSION, "tools": _entries(specs)}
    if surface:
        data.update(surface.to_snapshot())
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False,
                      allow_nan=False) + "\n"


def write_snapshot(specs: Iterable[ToolSpecification], path: str | os.PathLike[str],
                   surface: McpSurface | None = None) -> Path:
    """Write the snapshot atomically (temporary file, fsync, ``os.replace``: a reader sees
    the old file or the new one, never half of one).

    Missing parent directories are created. Returns the path written.

    Raises:
        OSError: The file cannot be written there.
    """
    from agentforge_cli.core.observe.fileio import write_text_atomic

    target = Path(path)
    write_text_atomic(target, dumps_snapshot(specs, surface))
    return target


def load_snapshot(path: str | os.PathLike[str]) -> list[ToolSpecification]:
    """Read a snapshot's tools (see :func:`read_snapshot`)."""
    return read_snapshot(path)[0]


def read_snapshot(path: str | os.PathLike[str]
                  ) -> tuple[list[ToolSpecification], McpSurface | None]:
    """Read a snapshot (or a ``tools list --format json`` array): its tools, and its
    resources, templates and prompts (none in an older snapshot; ``None`` for an array,
    which cannot hold them, so they are not compared).

    Raises:
        SnapshotMissingError: No such file.
        SnapshotError: Not JSON, or not a snapshot (the message says what was expected).
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SnapshotMissingError(
            f"snapshot file not found: {source} (create it with --update-snapshot)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"cannot read snapshot {source}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{source}: not valid JSON at line {exc.lineno}, column "
                            f"{exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise SnapshotError(f"{source}: nested too deeply to read as JSON") from None
    specs = parse_snapshot(data, str(source))
    if not isinstance(data, dict):
        return specs, None
    return specs, McpSurface.from_snapshot(data, str(source))


_EXPECTED = ('expected {"version": 1, "tools": {name: {"description", "parameters"}}} or a '
             'list of {"name", "description", "parameters"}')


def parse_snapshot(data: Any, source: str = "snapshot") -> list[ToolSpecification]:
    """Turn loaded snapshot JSON into specifications (see :func:`load_snapshot`)."""
    if isinstance(data, list):
        rows = []
        for index, row in enumerate(data):
            if not isinstance(row, dict) or not isinstance(row.get("name"), str):
                raise SnapshotError(f"{source}: entry {index} has no tool name; {_EXPECTED}")
            rows.append((row["name"], row, f"entry {index}"))
    elif isinstance(data, dict) and isinstance(data.get("tools"), dict):
        version = data.get("version", SNAPSHOT_VERSION)
        if not isinstance(version, int) or version > SNAPSHOT_VERSION:
            raise SnapshotError(f"{source}: snapshot version {version!r} is newer than this "
                                f"agentforge reads ({SNAPSHOT_VERSION}); upgrade agentforge")
        rows = [(name, row, f'tool "{name}"') for name, row in data["tools"].items()]
    else:
        raise SnapshotError(f"{source}: not an agentforge snapshot; {_EXPECTED}")
    specs: list[ToolSpecification] = []
    names: set[str] = set()
    for name, row, where in rows:
        if not isinstance(row, dict):
            raise SnapshotError(f"{source}: {where} is not an object; {_EXPECTED}")
        description = row.get("description", "")
        parameters = row.get("parameters", {"type": "object", "properties": {}})
        if not isinstance(description, str):
            raise SnapshotError(f"{source}: {where}: description must be a string")
        if not isinstance(parameters, dict):
            raise SnapshotError(f"{source}: {where}: parameters must be a JSON object")
        if name in names:
            raise SnapshotError(f'{source}: the tool "{name}" appears twice')
        names.add(name)
        specs.append(ToolSpecification(name=name, description=description,
                                       parameters=parameters))
    return specs


def diff_snapshots(old: str | os.PathLike[str], new: str | os.PathLike[str]) -> list[Finding]:
    """``tools diff OLD NEW``: :func:`diff_specs` between two snapshot files, then
    :func:`~agentforge_cli.schema.surface.diff_surfaces` between their MCP sections (not
    when either file is a ``tools list --format json`` array)."""
    old_specs, old_surface = read_snapshot(old)
    new_specs, new_surface = read_snapshot(new)
    findings = diff_specs(old_specs, new_specs)
    if old_surface is not None and new_surface is not None:
        findings.extend(diff_surfaces(old_surface, new_surface))
    return findings


def check_snapshot(specs: Iterable[ToolSpecification], path: str | os.PathLike[str], *,
                   update: bool = False, surface: McpSurface | None = None) -> list[Finding]:
    """Compare ``specs`` with a snapshot file, or (``update``) rewrite the file.

    ``surface``: the MCP servers' resources, templates and prompts, compared with the
    file's sections (unless the file is a ``tools list --format json`` array) and
    written with the tools; ``None`` leaves them out of both (only the tools are
    compared, and an update writes the tools alone).

    Returns:
        The classified differences; with ``update``, one ``snapshot-updated`` info
        finding (or none when the file already matched).

    Raises:
        SnapshotMissingError: The file does not exist and ``update`` is off.
        SnapshotError: The file cannot be read.
    """
    specs = list(specs)
    if update:
        target = Path(path)
        try:
            unchanged = target.read_text(encoding="utf-8") == dumps_snapshot(specs, surface)
        except (OSError, UnicodeDecodeError):
            unchanged = False
        if unchanged:
            return []
        write_snapshot(specs, target, surface)
        return [Finding(tool="", rule="snapshot-updated", level=INFO,
                        message=f"snapshot {target} written ({len(specs)} tools)")]
    old_specs, old_surface = read_snapshot(path)
    findings = diff_specs(old_specs, specs)
    if surface is not None and old_surface is not None:
        findings.extend(diff_surfaces(old_surface, surface))
    return findings
