"""MCP tools that must be called as a task (``execution.taskSupport: "required"``), which
agentforge cannot do yet: how to tell one, and the words that warn about it. Its calls are
still sent, without a task, so the server's own answer (a refusal) comes back, as it does
to any client that calls it so, and a recorded call replays matched."""

from __future__ import annotations

from agentforge_cli.core.define.spec import ToolSpecification

__all__ = ["TASK_REQUIRED", "TASK_REQUIRED_TEXT", "task_required"]

TASK_REQUIRED = "required"
"""The ``execution.taskSupport`` of a tool that must be called as a task."""


def task_required(specification: ToolSpecification) -> bool:
    """Whether the MCP tool must be called as a task (``execution.taskSupport:
    "required"``), which agentforge cannot do yet."""
    execution = specification.execution or {}
    return execution.get("taskSupport") == TASK_REQUIRED


TASK_REQUIRED_TEXT = ('it must be called as an MCP task (execution.taskSupport: '
                      '"required"), which agentforge cannot do yet')
"""Why a task-only tool cannot be called."""
