"""Shell completion: targets (``tools list myt<TAB>``), tool names for ``agentforge tools
call NAME``, the formats of ``tools list --format`` and the providers of ``tools check
--provider``.

Targets are offered without importing anything: ``mcp:``, the Python files and folders on
the path typed so far, and the targets of the project's modules that declare tools, found
by reading their source (:mod:`agentforge_cli.integrations.project.discovery`, as
``agentforge init`` finds them).

typer calls :func:`complete_tool_names` while the shell asks for completions: it loads the
targets given so far on the line (``-t``), else the configured ones (``AGENTFORGE_TOOLS``,
``[tool.agentforge]``), and offers the names that start with what was typed. Completion
never fails loudly: a target that cannot be loaded offers nothing, and whatever the
user's modules print is swallowed, since the shell reads standard output.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

__all__ = ["complete_clients", "complete_formats", "complete_providers", "complete_targets",
           "complete_tool_names"]

_REMOTE = ("mcp:", "http://", "https://")


def complete_targets(incomplete: str) -> list[str]:
    """Targets starting with ``incomplete``: files and folders when a path is being
    typed, else ``mcp:``, the project's modules with tools and the Python files here."""
    if incomplete.startswith(_REMOTE):
        return []
    if "/" in incomplete or incomplete.startswith("."):
        return _paths(incomplete)
    from agentforge_cli.integrations.project.discovery import find_tool_targets

    offered = ["mcp:", *find_tool_targets(Path.cwd()), *_paths(incomplete)]
    return list(dict.fromkeys(target for target in offered if target.startswith(incomplete)))


def _paths(incomplete: str) -> list[str]:
    """The ``.py`` files and the folders whose path starts with ``incomplete``."""
    folder, _, stem = incomplete.rpartition("/")
    base = Path(folder or ".")
    try:
        entries = sorted(base.iterdir()) if base.is_dir() else []
    except OSError:
        return []
    prefix = f"{folder}/" if folder else ""
    return [f"{prefix}{entry.name}/" if entry.is_dir() else f"{prefix}{entry.name}"
            for entry in entries
            if entry.name.startswith(stem) and not entry.name.startswith((".", "__"))
            and (entry.is_dir() or entry.suffix == ".py")]


def complete_tool_names(ctx: Any, incomplete: str) -> list[str]:
    """The tool names starting with ``incomplete``."""
    from agentforge_cli.integrations.targets.loading import load_service

    given = list(ctx.params.get("tools") or ())
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            names = load_service(given).names
    except Exception:
        return []
    return [name for name in names if name.startswith(incomplete)]


def complete_formats(incomplete: str) -> list[str]:
    """``tools list --format``: ``table``, ``json`` and the provider formats."""
    from agentforge_cli.schema.providers import LIST_FORMATS

    return [name for name in ("table", "json", *LIST_FORMATS) if name.startswith(incomplete)]


def complete_providers(incomplete: str) -> list[str]:
    """``tools check --provider``: every provider of the registry."""
    from agentforge_cli.schema.providers import PROVIDERS

    return [name for name in PROVIDERS if name.startswith(incomplete)]


def complete_clients(incomplete: str) -> list[str]:
    """``tools check --client``: every client of the registry."""
    from agentforge_cli.schema.clients import client_names

    return [name for name in client_names() if name.startswith(incomplete)]
