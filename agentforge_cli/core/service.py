"""``ToolService``: the name -> executor table a model's calls are dispatched through.

``execute`` always answers with a :class:`~agentforge_cli.core.spec.ToolExecutionResult`:
argument errors and unknown tools become error results the model can learn from, and
execution errors do too under the default policy. It raises only what an executor
configured to propagate raises (``ToolExecutionError``).
"""

from __future__ import annotations

from collections.abc import Mapping

from agentforge_cli.core.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolExecutor,
    ToolSpecification,
)
from agentforge_cli.errors import ArgumentError, ToolArgumentsError

__all__ = ["ToolService", "unknown_tool_message"]


def unknown_tool_message(name: object, known: list[str]) -> str:
    """``Unknown tool "quryCustomer". Did you mean: queryCustomer?`` (closest names)."""
    import difflib

    text = f'Unknown tool "{name}".'
    close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.5)
    if close:
        return f"{text} Did you mean: {', '.join(close)}?"
    if known:
        shown = ", ".join(sorted(known)[:20])
        return f"{text} Available tools: {shown}" + ("…" if len(known) > 20 else "")
    return f"{text} No tools are registered."


class ToolService:
    """Dispatches tool calls by name (the seed's ``ToolService``)."""

    def __init__(self) -> None:
        self._executors: dict[str, ToolExecutor] = {}
        self._specifications: dict[str, ToolSpecification] = {}

    def tools(self, tools: Mapping[ToolSpecification, ToolExecutor]) -> ToolService:
        """Register a table from :func:`~agentforge_cli.build_local_tools` (adds to any
        registered before; a name registered again replaces the earlier tool).

        Returns:
            The service itself, for chaining.
        """
        for spec, executor in tools.items():
            self._executors[spec.name] = executor
            self._specifications[spec.name] = spec
        return self

    @property
    def specifications(self) -> list[ToolSpecification]:
        """The registered tools' specifications, in registration order."""
        return list(self._specifications.values())

    @property
    def names(self) -> list[str]:
        """The registered tool names, in registration order."""
        return list(self._executors)

    def executor(self, name: str) -> ToolExecutor | None:
        """The executor registered under ``name``, or ``None``."""
        return self._executors.get(name)

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        """Execute one request.

        Args:
            request: The model's call.
            memory_id: The conversation's memory id (defaults to ``None``).

        Returns:
            What the model should see; ``is_error`` is true for argument errors, unknown
            tools and (under the default policy) execution errors.

        Raises:
            ToolExecutionError: Only from an executor set to propagate execution errors.
        """
        executor = self._executors.get(request.name)
        if executor is None:
            return ToolExecutionResult(unknown_tool_message(request.name, self.names), True)
        try:
            return executor.execute(request, memory_id)
        except (ArgumentError, ToolArgumentsError) as error:
            return ToolExecutionResult(str(error), True)

    async def aexecute(self, request: ToolExecutionRequest, memory_id: object = None
                       ) -> ToolExecutionResult:
        """:meth:`execute` for async callers: ``async def`` tools are awaited on the
        running loop, sync tools run in a worker thread."""
        executor = self._executors.get(request.name)
        if executor is None:
            return ToolExecutionResult(unknown_tool_message(request.name, self.names), True)
        try:
            if hasattr(executor, "aexecute"):
                return await executor.aexecute(request, memory_id)
            import asyncio

            return await asyncio.to_thread(executor.execute, request, memory_id)
        except (ArgumentError, ToolArgumentsError) as error:
            return ToolExecutionResult(str(error), True)
