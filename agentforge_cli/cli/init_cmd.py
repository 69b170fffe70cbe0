"""``agentforge init``: set agentforge up in the project of the working directory.

The decisions are in :mod:`agentforge_cli.integrations.project`; this module finds the
targets, loads them once (so that nothing is written for tools that do not load) and
says what was written and what was left alone, one line a file, on standard output.

Exit codes: ``0`` done (also when everything was there already) · ``2`` no tool found
and no target given, or a ``pyproject.toml`` that is not TOML · ``3`` a target cannot be
loaded.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from agentforge_cli.cli.errors import UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import TargetsArgument


def init(targets: TargetsArgument = None) -> None:
    """Set up agentforge in this project: \\[tool.agentforge] in pyproject.toml, a first
    snapshot of the tools, pytest items that fuzz and replay them, and a GitHub Actions
    workflow.

    Without a target, the project's modules that declare @tool functions or classes are
    found. Nothing that exists is overwritten: running it again changes nothing.

    Exit 2 when no tool is found, 3 when a target cannot be loaded.
    """
    with guarded():
        from agentforge_cli.cli.output import write
        from agentforge_cli.integrations.project.scaffold import installed_requirement, set_up
        from agentforge_cli.integrations.targets.loading import load_service
        from agentforge_cli.schema.snapshots import write_snapshot

        root = Path.cwd()
        chosen = _targets(root, list(targets or ()))
        service = load_service(chosen, cwd=root)
        count = len(service.specifications)
        write(f"tools: {', '.join(chosen)} ({count} tool{'' if count == 1 else 's'})")
        steps = set_up(root, chosen, lambda path: _snapshot(write_snapshot, service, path),
                       installed_requirement())
        width = max(len(step.path) for step in steps)
        for step in steps:
            write(f"{'wrote' if step.written else 'left '} {step.path:<{width}}  {step.note}")
        write("next: run pytest, commit these files, and push: the workflow runs the same "
              "checks in CI")


def _targets(root: Path, given: list[str]) -> list[str]:
    """The targets given, else those ``pyproject.toml`` names, else those found."""
    if given:
        return given
    from agentforge_cli.integrations.project.discovery import find_tool_targets
    from agentforge_cli.integrations.project.pyproject_table import configured_tools, read_text

    path = root / "pyproject.toml"
    try:
        configured = configured_tools(read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from exc
    found = configured or find_tool_targets(root)
    if not found:
        raise UsageError("no module here declares a tool (no @tool function or class with "
                         "@tool methods, outside tests/)",
                         hint="name one: agentforge init package.module:Name")
    return found


def _snapshot(write_snapshot: Any, service: Any, path: Path) -> None:
    try:
        write_snapshot(service.specifications, path)
    except OSError as exc:
        raise UsageError(f"cannot write the snapshot {str(path)!r}: "
                         f"{exc.strerror or exc}") from exc
