"""``ToolService``: the name -> executor table a model's calls are dispatched through.

``execute`` always answers with a :class:`~agentforge_cli.core.define.spec.ToolExecutionResult`:
argument errors and unknown tools become error results the model can learn from, and
execution errors do too under the default policy. It raises only what an executor
configured to propagate raises (``ToolExecutionError``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.define.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolExecutor,
    ToolSpecification,
)
from agentforge_cli.core.run.wrapping import ExecutorWrapper
from agentforge_cli.errors import ArgumentError, ToolArgumentsError

if TYPE_CHECKING:
    from agentforge_cli.core.define.capabilities import AsyncExecute
    from agentforge_cli.core.observe.recording import CallRecorder, ToolRecording
    from agentforge_cli.core.run.served_extras import DeclaredExtras

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


class ToolService(ExecutorWrapper):
    """Dispatches tool calls by name.

    ``execute(request, memory_id=None)`` and its async twin ``aexecute`` answer every
    request with a result: ``is_error`` is true for argument errors, unknown tools and
    (under the default policy) execution errors. They raise only ``ToolExecutionError``,
    from an executor set to propagate execution errors.

    Args:
        record: Write every call and its result to this agentforge JSONL transcript (a
            file, a directory for a file of this process's, or a
            :class:`~agentforge_cli.core.observe.recording.CallRecorder`); by default the
            directory in ``AGENTFORGE_RECORD``, if set. Not recording costs nothing.
    """

    def __init__(self, *, record: str | os.PathLike[str] | CallRecorder | None = None
                 ) -> None:
        # name -> (executor, its recording or None): what _start answers, built once a tool
        self._targets: dict[str, tuple[ToolExecutor, ToolRecording | None]] = {}
        # name -> (the executor's async path, its recording): what _start_async answers
        self._async_targets: dict[str, tuple[AsyncExecute, ToolRecording | None]] = {}
        self._specifications: dict[str, ToolSpecification] = {}
        self.recorder: CallRecorder | None = None
        """Where calls are recorded, or ``None``."""
        self.extras: DeclaredExtras | None = None
        """The resources and prompts the targets declare (``@resource``, ``@prompt``),
        which ``agentforge serve`` serves; ``None``: none were looked for."""
        self.servers: list[Any] = []
        """The open connections of the MCP servers the targets name, each once, those that
        list no tool too (a server of resources and prompts only): ``agentforge serve``
        serves their resources and prompts again."""
        if record is not None or os.environ.get("AGENTFORGE_RECORD"):
            from agentforge_cli.core.observe.recording import recorder_for

            self.recorder = recorder_for(record)

    def tools(self, tools: Mapping[ToolSpecification, ToolExecutor]) -> ToolService:
        """Register a table from :func:`~agentforge_cli.build_local_tools` (adds to any
        registered before; a name registered again replaces the earlier tool).

        Returns:
            The service itself, for chaining.
        """
        from agentforge_cli.core.run.async_paths import async_path

        for spec, executor in tools.items():
            recording = self.recorder.for_tool(executor) if self.recorder else None
            self._targets[spec.name] = (executor, recording)
            self._async_targets[spec.name] = (async_path(executor), recording)
            self._specifications[spec.name] = spec
        return self

    def withdraw(self, names: Iterable[str]) -> None:
        """Take the tools of ``names`` out (a call already under way finishes; one made
        later is an unknown tool's)."""
        for name in names:
            self._targets.pop(name, None)
            self._async_targets.pop(name, None)
            self._specifications.pop(name, None)

    @property
    def specifications(self) -> list[ToolSpecification]:
        """The registered tools' specifications, in registration order."""
        return list(self._specifications.values())

    @property
    def names(self) -> list[str]:
        """The registered tool names, in registration order."""
        return list(self._targets)

    def executor(self, name: str) -> ToolExecutor | None:
        """The executor registered under ``name``, or ``None``."""
        target = self._targets.get(name)
        return target[0] if target is not None else None

    # -- the call (execute / aexecute: ExecutorWrapper) -----------------------------------

    def _start(self, request: ToolExecutionRequest, memory_id: object
               ) -> tuple[ToolExecutor, ToolRecording | None]:
        target = self._targets.get(request.name)
        if target is not None:
            return target
        return _UnknownTool(self.names), self.recorder.for_tool(None) if self.recorder else None

    def _start_async(self, request: ToolExecutionRequest, memory_id: object
                     ) -> tuple[AsyncExecute, ToolRecording | None]:
        target = self._async_targets.get(request.name)
        if target is not None:
            return target
        unknown = _UnknownTool(self.names)
        return unknown.aexecute, self.recorder.for_tool(None) if self.recorder else None

    def _finish(self, request: ToolExecutionRequest, memory_id: object,
                token: ToolRecording, result: ToolExecutionResult) -> ToolExecutionResult:
        token.record(request, result)
        return result

    def _fail(self, request: ToolExecutionRequest, memory_id: object,
              token: ToolRecording | None, exc: BaseException) -> ToolExecutionResult:
        if isinstance(exc, ArgumentError | ToolArgumentsError):
            result = ToolExecutionResult(str(exc), True)
            if token is not None:
                token.record(request, result)
            return result
        raise exc


class _UnknownTool:
    """Answers a request for a name no tool is registered under."""

    __slots__ = ("known",)

    def __init__(self, known: list[str]) -> None:
        self.known = known

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        return ToolExecutionResult(unknown_tool_message(request.name, self.known), True)

    async def aexecute(self, request: ToolExecutionRequest, memory_id: object = None
                       ) -> ToolExecutionResult:
        return self.execute(request, memory_id)
