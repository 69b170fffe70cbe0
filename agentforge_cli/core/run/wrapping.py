"""``ExecutorWrapper``: the one execution path of executors that stand in front of others.

``ToolService`` (which executor runs a request) and ``LoggingToolExecutor`` (what is logged
around it) differ only in what happens before and after the call, so ``execute`` and
``aexecute`` are written once, here: :meth:`~ExecutorWrapper._start` picks the executor,
which runs — ``execute`` directly, or from async code its ``aexecute`` (a worker thread for
an executor without one) — and the outcome goes to :meth:`~ExecutorWrapper._finish` (a
result; skipped when ``_start`` gave no token) or :meth:`~ExecutorWrapper._fail` (an
exception: answer it, or raise it).
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolExecutionResult, ToolExecutor

__all__ = ["ExecutorWrapper", "innermost"]


class ExecutorWrapper:
    """Base of the executors that run a request through another one."""

    __slots__ = ()

    def _start(self, request: ToolExecutionRequest, memory_id: object
               ) -> tuple[ToolExecutor, Any]:
        """The executor that runs ``request``, and a token for ``_finish``/``_fail``
        (``None``: a result goes back as it is)."""
        raise NotImplementedError

    def _finish(self, request: ToolExecutionRequest, memory_id: object, token: Any,
                result: ToolExecutionResult) -> ToolExecutionResult:
        """What the caller gets for the executor's result (only called with a token)."""
        return result

    def _fail(self, request: ToolExecutionRequest, memory_id: object, token: Any,
              exc: BaseException) -> ToolExecutionResult:
        """Answer the executor's exception, or raise it (the default)."""
        raise exc

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        """Execute one request through the executor :meth:`_start` picks."""
        executor, token = self._start(request, memory_id)
        try:
            result = executor.execute(request, memory_id)
        except BaseException as exc:
            return self._fail(request, memory_id, token, exc)
        if token is None:
            return result
        return self._finish(request, memory_id, token, result)

    async def aexecute(self, request: ToolExecutionRequest, memory_id: object = None
                       ) -> ToolExecutionResult:
        """:meth:`execute` for async callers: ``async def`` tools are awaited on the
        running loop, sync tools run in a worker thread."""
        from agentforge_cli.core.run.coroutines import execute_async

        executor, token = self._start(request, memory_id)
        try:
            result = await execute_async(executor, request, memory_id)
        except BaseException as exc:
            return self._fail(request, memory_id, token, exc)
        if token is None:
            return result
        return self._finish(request, memory_id, token, result)


def innermost(executor: Any) -> Any:
    """The executor that wrappers around ``executor`` (call logging, tracing: each keeps
    what it wraps as ``delegate``) wrap; ``executor`` itself when it wraps nothing."""
    while hasattr(executor, "delegate"):
        executor = executor.delegate
    return executor
