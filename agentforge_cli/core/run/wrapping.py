"""``ExecutorWrapper``: the one execution path of executors that stand in front of others.

``ToolService`` (which executor runs a request) and the :class:`DelegatingWrapper`s
``LoggingToolExecutor`` and ``TracingToolExecutor`` (what is observed around it) differ
only in what happens before and after the call, so ``execute`` and ``aexecute`` are
written once, here: :meth:`~ExecutorWrapper._start` picks the executor (and
:meth:`~ExecutorWrapper._start_async` its async path, resolved when it was registered: an
``aexecute`` of its own, else a worker thread), which runs, and the outcome goes to
:meth:`~ExecutorWrapper._finish` (a result; skipped when the start gave no token) or
:meth:`~ExecutorWrapper._fail` (an exception: answer it, or raise it).
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.core.define.capabilities import AsyncExecute
from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolExecutionResult, ToolExecutor

__all__ = ["DelegatingWrapper", "ExecutorWrapper", "innermost"]


class ExecutorWrapper:
    """Base of the executors that run a request through another one."""

    __slots__ = ()

    def _start(self, request: ToolExecutionRequest, memory_id: object
               ) -> tuple[ToolExecutor, Any]:
        """The executor that runs ``request``, and a token for ``_finish``/``_fail``
        (``None``: a result goes back as it is)."""
        raise NotImplementedError

    def _start_async(self, request: ToolExecutionRequest, memory_id: object
                     ) -> tuple[AsyncExecute, Any]:
        """:meth:`_start` for :meth:`aexecute`: the async path of the executor that runs
        ``request`` (resolved once, when the executor was registered), and the token."""
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
        run, token = self._start_async(request, memory_id)
        try:
            result = await run(request, memory_id)
        except BaseException as exc:
            return self._fail(request, memory_id, token, exc)
        if token is None:
            return result
        return self._finish(request, memory_id, token, result)


class DelegatingWrapper(ExecutorWrapper):
    """A wrapper around one executor, its ``delegate`` (call logging, tracing): every call
    goes to it, and its attributes (``definition``, ``explain``, ...) are reachable
    through the wrapper. Subclasses say what a call is observed with (:meth:`_token`)."""

    def __init__(self, delegate: ToolExecutor) -> None:
        from agentforge_cli.core.run.async_paths import async_path

        self.delegate = delegate
        """The executor wrapped."""
        self._async_delegate = async_path(delegate)

    def __getattr__(self, name: str) -> Any:
        if name in ("delegate", "_async_delegate"):  # not set yet (or copied half-made)
            raise AttributeError(name)
        return getattr(self.delegate, name)

    def _token(self, request: ToolExecutionRequest, memory_id: object) -> Any:
        """What ``_finish``/``_fail`` get for this call (``None``: nothing to observe)."""
        raise NotImplementedError

    def _start(self, request: ToolExecutionRequest, memory_id: object
               ) -> tuple[ToolExecutor, Any]:
        return self.delegate, self._token(request, memory_id)

    def _start_async(self, request: ToolExecutionRequest, memory_id: object
                     ) -> tuple[AsyncExecute, Any]:
        return self._async_delegate, self._token(request, memory_id)


def innermost(executor: Any) -> Any:
    """The executor that wrappers around ``executor`` (call logging, tracing: each a
    :class:`DelegatingWrapper`) wrap; ``executor`` itself when it wraps nothing. A class
    check, cheap enough for a call's path."""
    while isinstance(executor, DelegatingWrapper):
        executor = executor.delegate
    return executor
