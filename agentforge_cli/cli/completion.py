"""Shell completion: tool names for ``agentforge tools call NAME``, the formats of
``tools list --format`` and the providers of ``tools check --provider``.

typer calls :func:`complete_tool_names` while the shell asks for completions: it loads the
targets given so far on the line (``-t``), else the configured ones (``AGENTFORGE_TOOLS``,
``[tool.agentforge]``), and offers the names that start with what was typed. Completion
never fails loudly: a target that cannot be loaded offers nothing, and whatever the
user's modules print is swallowed, since the shell reads standard output.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

__all__ = ["complete_clients", "complete_formats", "complete_providers",
           "complete_tool_names"]


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
