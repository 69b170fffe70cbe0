"""Tools named the way many MCP servers name theirs, ``area.verb``: the MCP protocol allows
the dot, several clients do not (docs/checks.md, ``tools check --client``).

    agentforge tools check sample_tools.workspace --client codex --client claude-code
"""

from typing import Annotated

from agentforge_cli import P, tool

_EVENTS = {"2026-12-07": ["standup 09:30"]}


@tool(name="calendar.list")
def list_events(day: Annotated[str, P("The day, as YYYY-MM-DD")]) -> list[str]:
    """List the events of one day."""
    return _EVENTS.get(day, [])


@tool(name="calendar.add")
def add_event(day: Annotated[str, P("The day, as YYYY-MM-DD")],
              title: Annotated[str, P("What the event is")]) -> str:
    """Add an event to one day."""
    _EVENTS.setdefault(day, []).append(title)
    return f"added {title!r} on {day}"
