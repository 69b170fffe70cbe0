"""The modules of a project that declare tools, found without importing any of them.

Shell completion offers them as targets, so finding them must be harmless and quick: the
files are read as text, never imported (importing runs a module's code); a module counts
when it imports ``agentforge_cli`` and uses ``@tool``. The walk is bounded: hidden
folders, virtualenvs, ``node_modules`` and caches are skipped, as are files over 1 MB, and
it stops after :data:`MAX_FILES` Python files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

__all__ = ["MAX_FILES", "modules_with_tools"]

MAX_FILES = 2_000
_MAX_BYTES = 1_000_000
_SKIPPED = frozenset({"node_modules", "__pycache__", "build", "dist", "site-packages",
                      "venv", "env"})
_IMPORTS_US = re.compile(r"^\s*(from|import)\s+agentforge_cli\b", re.M)
_USES_TOOL = re.compile(r"^\s*@(\w+\.)?tool\b", re.M)
_DOTTED_PART = re.compile(r"[A-Za-z_]\w*")


def modules_with_tools(root: Path) -> list[str]:
    """The dotted names of the modules under ``root`` (or its ``src/``) that declare
    tools, sorted: ``helpdesk.tools`` for ``src/helpdesk/tools.py``."""
    found: set[str] = set()
    for path in _python_files(root):
        name = _dotted_name(path, root)
        if name is not None and _declares_tools(path):
            found.add(name)
    return sorted(found)


def _python_files(root: Path) -> Iterator[Path]:
    count = 0
    for directory, folders, files in os.walk(root):
        folders[:] = sorted(folder for folder in folders
                            if not folder.startswith(".") and folder not in _SKIPPED)
        for file in sorted(files):
            if file.endswith(".py"):
                count += 1
                if count > MAX_FILES:
                    return
                yield Path(directory, file)


def _dotted_name(path: Path, root: Path) -> str | None:
    """How the file imports from ``root`` (or from ``root/src`` in a src layout)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(_DOTTED_PART.fullmatch(part) for part in parts):
        return None
    return ".".join(parts)


def _declares_tools(path: Path) -> bool:
    try:
        if path.stat().st_size > _MAX_BYTES:
            return False
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return bool(_IMPORTS_US.search(text) and _USES_TOOL.search(text))
