"""A tool module with a bug at import time, for the docs' error example."""

import enum

from agentforge_cli import tool


class Level(enum.Enum):
    HIGH = 1


DEFAULT_LEVEL = Level.LOW  # the bug: there is no LOW


@tool
def triage(issue: int) -> str:
    """Set an issue's priority."""
    return f"{issue}: {DEFAULT_LEVEL.name}"
