"""Running an ``async def`` tool from synchronous code.

``run_coroutine`` works whether or not an event loop is already running in the calling
thread: without one, the coroutine runs on a private loop kept per thread (no loop is
created per call); with one (e.g. called from inside async code), it runs to completion on
a worker thread with a loop of its own (closed afterwards), so the caller's loop is never
re-entered.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any

__all__ = ["run_coroutine"]

_local = threading.local()


def _private_loop() -> asyncio.AbstractEventLoop:
    loop = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        _local.loop = loop
    return loop


def run_coroutine(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` to completion and return its result (or raise its exception)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _private_loop().run_until_complete(coro)
    result: list[Any] = []
    failure: list[BaseException] = []

    def worker() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=worker, name="agentforge-async-tool", daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]
