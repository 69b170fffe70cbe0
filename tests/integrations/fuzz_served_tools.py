"""Tools with each kind of MCP annotation, for ``agentforge serve`` in the tests of which
MCP tools ``tools fuzz`` calls (test_mcp_fuzz_rule.py).

``remember`` appends to the file named by ``NOTES_FILE`` (set with ``--env``): whether the
file exists says whether it was called.
"""

from __future__ import annotations

import os

from agentforge_cli import tool


@tool(annotations={"readOnlyHint": True})
def look(n: int) -> int:
    """Only reads."""
    return n


@tool(annotations={"destructiveHint": False, "openWorldHint": False})
def remember(note: str) -> str:
    """Adds a note, never deletes one: additive, not read-only."""
    with open(os.environ["NOTES_FILE"], "a", encoding="utf-8") as notes:
        notes.write(note + "\n")
    return "noted"


@tool(annotations={"readOnlyHint": True, "openWorldHint": True})
def browse(url: str) -> str:
    """Reads from outside systems (it only says so here)."""
    return url


@tool
def bare(n: int) -> int:
    """Declares nothing."""
    return n


@tool(annotations={"destructiveHint": True})
def forget(n: int) -> str:
    """Deletes things."""
    return "forgotten"
