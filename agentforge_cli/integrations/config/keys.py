"""The one check every table of ``[tool.agentforge]`` makes of its keys. Standard library
only."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentforge_cli.errors import TargetConfigError

__all__ = ["refuse_unknown_keys"]


def refuse_unknown_keys(path: Path, table: dict[str, Any], keys: Sequence[str],
                        name: str) -> None:
    """Refuse a key of ``table`` (the TOML table ``name``) that is not one of ``keys``."""
    unknown = [key for key in table if key not in keys]
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], keys, n=1)
        raise TargetConfigError(
            f"{path}: unknown key {unknown[0]!r} in {name}; the keys are: {', '.join(keys)}",
            hint=f"did you mean {close[0]!r}?" if close else None)
