"""Running an ``async def`` tool from synchronous code.

``run_coroutine`` works whether or not an event loop is already running in the calling
thread:

* without one, the coroutine becomes a real ``asyncio.Task`` on a private loop kept per
  thread, and the task's first step is run directly. A tool that finishes without
  suspending (most do) never starts the loop; one that suspends is finished with
  ``run_until_complete``. Inside the tool everything behaves as under ``asyncio.run``:
  ``get_running_loop()``, ``current_task()`` and ``asyncio.timeout()`` all work. Tasks a
  tool leaves behind stay on the private loop and continue the next time it runs.
* a coroutine function with no ``await`` at all (``never_suspends``) is run in one step
  without a task (``run_never_suspending``): ``current_task()`` is ``None`` inside it.
* with a loop running (called from inside async code), the coroutine runs to completion on a worker
  thread with a loop of its own (closed afterwards), so the caller's loop is never
  re-entered.

The other way round, :func:`execute_in_thread` runs any executor from async code without
blocking the event loop (:mod:`~agentforge_cli.core.run.async_paths` picks it, once per
executor).
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from asyncio import Task
from asyncio.events import _get_running_loop, _set_running_loop
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentforge_cli.core.define.spec import (
        ToolExecutionRequest,
        ToolExecutionResult,
        ToolExecutor,
    )

__all__ = ["execute_in_thread", "never_suspends", "run_coroutine",
           "run_never_suspending"]

_SUSPENDING_OPCODES = frozenset({
    "GET_AWAITABLE", "SEND", "YIELD_VALUE", "BEFORE_ASYNC_WITH", "GET_AITER", "GET_ANEXT",
    "END_ASYNC_FOR", "ASYNC_GEN_WRAP", "YIELD_FROM", "GET_YIELD_FROM_ITER",
})

_local = threading.local()
_loops: list[asyncio.AbstractEventLoop] = []  # every private loop, closed at exit


def _private_loop() -> asyncio.AbstractEventLoop:
    loop = getattr(_local, "loop", None)
    if loop is None or loop.is_closed() or not hasattr(loop, "_ready"):
        loop = asyncio.new_event_loop()
        _local.loop = loop
        if not _loops:
            atexit.register(_close_loops)
        _loops.append(loop)
    return loop


def _close_loops() -> None:
    for loop in _loops:
        if not loop.is_running() and not loop.is_closed():
            loop.close()
    _loops.clear()


def run_coroutine(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` to completion and return its result (or raise its exception)."""
    if _get_running_loop() is not None:
        return _run_in_worker(coro)
    try:
        loop = _local.loop
    except AttributeError:
        loop = _private_loop()
    ready = loop._ready  # CPython's BaseEventLoop: the deque call_soon appends to
    before = len(ready)
    task = Task(coro, loop=loop)
    try:
        if len(ready) == before + 1:
            handle = ready.pop()  # the task's first step, scheduled by its constructor
            _set_running_loop(loop)
            try:
                handle._context.run(handle._callback)
            finally:
                _set_running_loop(None)
            if task.done():
                return task.result()
        return loop.run_until_complete(task)
    except BaseException:  # SystemExit, KeyboardInterrupt: a task re-raises them
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: handed to the caller, not logged at exit
        raise


async def execute_in_thread(executor: ToolExecutor, request: ToolExecutionRequest,
                            memory_id: object = None) -> ToolExecutionResult:
    """Run ``executor.execute`` in a thread of its own
    (:mod:`~agentforge_cli.core.run.tool_threads`, at most ``TOOL_THREADS`` at once), with
    the caller's context variables; the event loop keeps running. Cancelled before it
    starts, the call never runs; after, it runs on and its result is dropped."""
    import contextvars

    from agentforge_cli.core.run.tool_threads import tool_threads

    context = contextvars.copy_context()
    future = tool_threads().submit(context.run, executor.execute, request, memory_id)
    result: ToolExecutionResult = await asyncio.wrap_future(future)
    return result


def never_suspends(func: Any) -> bool:
    """True when ``func`` is an ``async def`` whose body has no ``await``, ``async for`` or
    ``async with``: its coroutine finishes on its first step and needs no task or loop."""
    import dis
    import inspect

    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if code is None or not inspect.iscoroutinefunction(func):
        return False
    return not any(i.opname in _SUSPENDING_OPCODES for i in dis.get_instructions(code))


def run_never_suspending(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that cannot suspend (see :func:`never_suspends`) in one step.

    ``get_running_loop()`` inside it answers the private loop (or the caller's running
    loop); ``current_task()`` is ``None``, as no task is made for it.
    """
    if _get_running_loop() is not None:
        try:
            coro.send(None)
        except StopIteration as stop:
            return stop.value
    else:
        try:
            loop = _local.loop
        except AttributeError:
            loop = _private_loop()
        _set_running_loop(loop)
        try:
            coro.send(None)
        except StopIteration as stop:
            return stop.value
        finally:
            _set_running_loop(None)
    coro.close()
    raise RuntimeError("a coroutine without await suspended")


def _run_in_worker(coro: Coroutine[Any, Any, Any]) -> Any:
    result: list[Any] = []
    failure: list[BaseException] = []

    def worker() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:  # handed back to the caller
            failure.append(exc)

    thread = threading.Thread(target=worker, name="agentforge-async-tool", daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]
