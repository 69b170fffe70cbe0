"""``[tool.agentforge]`` added to a ``pyproject.toml`` by a minimal text edit: the table
is appended, the rest of the file kept byte for byte (``tomllib`` reads; nothing
re-formats). A file that already names its tools is left alone."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["configured_tools", "read_text", "with_tools_table"]


def configured_tools(text: str) -> list[str] | None:
    """The ``tools`` of the file's ``[tool.agentforge]``, or ``None`` when it has none.

    Raises:
        tomllib.TOMLDecodeError: The file is not TOML.
    """
    table: Any = tomllib.loads(text).get("tool", {}).get("agentforge", {})
    tools = table.get("tools") if isinstance(table, dict) else None
    return list(tools) if isinstance(tools, list) else None


def with_tools_table(text: str, targets: Sequence[str]) -> str | None:
    """``text`` with ``tools = [...]`` under ``[tool.agentforge]`` appended, or ``None``
    when appending cannot give it (the file defines the table already, or a dotted
    ``tool.agentforge`` key): the caller says what to add by hand."""
    listed = ", ".join(json.dumps(target) for target in targets)
    block = f"[tool.agentforge]\ntools = [{listed}]\n"
    separator = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
    edited = text + separator + block if text.strip() else block
    try:
        if configured_tools(edited) != list(targets):
            return None
    except tomllib.TOMLDecodeError:
        return None
    return edited


def read_text(path: Path) -> str:
    """The file's text, ``""`` when it does not exist."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
