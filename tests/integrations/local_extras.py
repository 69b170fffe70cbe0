"""Resources and a prompt of a Python target served beside an MCP server served again
(``serve local_extras.py 'mcp:...'``); ``LOCAL_EXTRAS_CLASH=1`` adds a prompt named as one
of ``surface_server.py``'s."""

import os

from agentforge_cli import prompt, resource, tool


@tool
def shout(text: str) -> str:
    """Says the text back, louder."""
    return text.upper()


@resource("local://motto", mime_type="text/plain")
def motto() -> str:
    """A motto."""
    return "measure twice"


@prompt
def plan(goal: str) -> str:
    """Plans a goal."""
    return f"Plan: {goal}"


if os.environ.get("LOCAL_EXTRAS_CLASH"):
    @prompt(name="hello")
    def hello_again() -> str:
        return "hello from Python"
