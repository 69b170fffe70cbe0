"""Where a tool is declared, as lint and the exports need it: the advice that fits there.

A finding's advice ("add P(...)") and an export's note on a value it no longer constrains
("binding still checks the value") are true for agentforge's own tools only. The caller
that knows where each tool comes from (the command line, from the loaded executors) passes
a :class:`ToolOrigin` per tool name; a tool without one is agentforge's own
(:data:`AGENTFORGE`). This module holds data only: the origins of MCP servers and of other
libraries are made where those are read (``integrations``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["AGENTFORGE", "ToolOrigin", "origin_of"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolOrigin:
    """Where a tool comes from, and how a user changes what it tells the model."""

    name: str
    """Who declares it: ``agentforge``, ``MCP server``, ``LangChain``..."""
    describe_tool: str
    """How to give the tool a description."""
    describe_parameter: str
    """How to give one of its parameters a description."""
    describe_field: str
    """How to give a field of a nested object a description."""
    rename: str
    """How to rename the tool."""
    unbound: str = ""
    """Said instead of "binding still checks ..." when agentforge does not bind the tool's
    calls (who can still check the value); ``""``: agentforge binds them."""


AGENTFORGE = ToolOrigin(
    name="agentforge",
    describe_tool="add a docstring or @tool(description=...)",
    describe_parameter='add P("...") or an Args: entry in the docstring',
    describe_field='add one to its annotation, P("..."), or to the model\'s field, '
                   "Field(description=...)",
    rename="rename it with @tool(name=...)")
"""A Python tool declared with agentforge's ``@tool``."""


def origin_of(origins: Mapping[str, ToolOrigin] | None, tool: str) -> ToolOrigin:
    """The origin given for ``tool``, else :data:`AGENTFORGE`."""
    return (origins or {}).get(tool, AGENTFORGE)
