"""innermost: the executor behind call logging and tracing, found the one way."""

from __future__ import annotations

from agentforge_cli import tool
from agentforge_cli.core.observe.calllog import LoggingToolExecutor
from agentforge_cli.core.observe.tracing import TracingToolExecutor
from agentforge_cli.core.run.discovery import build_local_tools
from agentforge_cli.core.run.wrapping import innermost


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_innermost_looks_through_every_wrapper() -> None:
    (executor,) = build_local_tools(add).values()
    wrapped = LoggingToolExecutor(TracingToolExecutor(executor))
    assert innermost(wrapped) is executor
    assert innermost(executor) is executor
