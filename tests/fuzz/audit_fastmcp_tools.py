"""A FastMCP server whose annotations claim more than its tools keep to, for the tests of
``tools audit`` on framework tools (test_audit.py)."""

from __future__ import annotations

from pathlib import Path

from fastmcp import FastMCP
from mcp.types import ToolAnnotations

server = FastMCP("audit")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
def remember(fact: str) -> str:
    """Appends a fact to facts.txt in the working directory."""
    with Path("facts.txt").open("a", encoding="utf-8") as facts:
        facts.write(fact + "\n")
    return "remembered"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
def echo(text: str) -> str:
    """Answers its argument."""
    return text
