"""How an executor runs from async code, resolved once when it is registered or wrapped:
its own ``aexecute`` when it declares one, else its ``execute`` in a worker thread.

Kept apart from :mod:`~agentforge_cli.core.run.coroutines` so that registering tools does
not import ``asyncio``: a command that never calls a tool from async code never loads it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from agentforge_cli.core.define.capabilities import AsyncExecute, AsyncToolExecutor

if TYPE_CHECKING:
    from agentforge_cli.core.define.spec import (
        ToolExecutionRequest,
        ToolExecutionResult,
        ToolExecutor,
    )

__all__ = ["async_path"]


def async_path(executor: ToolExecutor) -> AsyncExecute:
    """``executor``'s own ``aexecute``
    (:class:`~agentforge_cli.core.define.capabilities.AsyncToolExecutor`), else its
    ``execute`` in a worker thread."""
    if isinstance(executor, AsyncToolExecutor):
        return executor.aexecute
    return functools.partial(_in_thread, executor)


async def _in_thread(executor: ToolExecutor, request: ToolExecutionRequest,
                     memory_id: object = None) -> ToolExecutionResult:
    from agentforge_cli.core.run.coroutines import execute_in_thread

    return await execute_in_thread(executor, request, memory_id)
