"""``ToolLoops``: event loops of their own for ``async def`` tools (``agentforge serve``).

An ``async def`` tool that blocks (``time.sleep``, a blocking socket) on the server's
event loop froze every client, and its ``timeout`` could not fire. So the server runs
async tools on a loop in a daemon thread of its own and waits for them by wall clock.

Every call goes to the same loop (objects a tool keeps between calls, an
``asyncio.Event`` or a client session, stay on one loop) until that loop is found
blocked: it has not run its heartbeat for :data:`STALL_SECONDS`. New calls then go to a
loop that is not blocked (a new one, up to
:data:`~agentforge_cli.core.run.tool_threads.TOOL_THREADS` loops), and ``warn`` is told which
tools were running on the blocked one. Calls that were
already on it wait for it, bounded by their timeout.
"""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any

from agentforge_cli.core.run.per_process import PerProcess
from agentforge_cli.core.run.tool_threads import TOOL_THREADS

__all__ = ["BEAT_SECONDS", "STALL_SECONDS", "ToolLoops", "tool_loops"]

STALL_SECONDS = 0.5
"""A loop whose heartbeat is older than this is blocked: new calls go elsewhere."""
BEAT_SECONDS = 0.05
"""How often a loop's heartbeat runs."""


class _ToolLoop:
    __slots__ = ("beat", "loop", "running", "warned")

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.beat = time.monotonic()
        self.running: collections.Counter[str] = collections.Counter()  # tool names
        self.warned = False
        threading.Thread(target=self._run, name="agentforge-async-tools", daemon=True).start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._tick)
        self.loop.run_forever()

    def _tick(self) -> None:
        self.beat = time.monotonic()
        self.loop.call_later(BEAT_SECONDS, self._tick)


class ToolLoops:
    """Runs coroutines on tool loops (see the module docstring).

    Args:
        limit: Loops at most; when every one is blocked, calls wait on the current one.
        stall: Seconds without a heartbeat after which a loop counts as blocked.
        warn: Told, once per blocked loop, what was running on it.
    """

    def __init__(self, limit: int = TOOL_THREADS, stall: float = STALL_SECONDS,
                 warn: Callable[[str], None] | None = None) -> None:
        self.limit = limit
        self.stall = stall
        self.warn = warn
        self.loops: list[_ToolLoop] = []
        self._current: _ToolLoop | None = None
        self._lock = threading.Lock()

    def run(self, coro: Coroutine[Any, Any, Any], name: str) -> Future[Any]:
        """Start ``coro`` (a call of tool ``name``) on a loop that is not blocked."""
        with self._lock:
            chosen = self._pick()
            chosen.running[name] += 1
        future = asyncio.run_coroutine_threadsafe(coro, chosen.loop)
        future.add_done_callback(lambda _: self._done(chosen, name))
        return future

    def _done(self, chosen: _ToolLoop, name: str) -> None:
        with self._lock:
            chosen.running[name] -= 1
            if chosen.running[name] <= 0:
                del chosen.running[name]

    def _pick(self) -> _ToolLoop:
        now = time.monotonic()
        current = self._current
        if current is not None and now - current.beat <= self.stall:
            return current
        if current is not None and not current.warned and self.warn is not None:
            current.warned = True
            names = ", ".join(sorted(current.running)) or "none"
            self.warn(f"an async tool has held its event loop for {now - current.beat:.1f} s "
                      "(a blocking call, such as time.sleep, in an async def?); tools running "
                      f"there: {names}; new async calls go to another loop")
        healthy = [each for each in self.loops if now - each.beat <= self.stall]
        if healthy:
            chosen = healthy[0]
        elif len(self.loops) < self.limit:
            chosen = _ToolLoop()
            self.loops.append(chosen)
        else:
            assert current is not None  # limit >= 1, so a loop exists
            return current  # every loop is blocked: wait on this one
        chosen.warned = False
        self._current = chosen
        return chosen


_loops = PerProcess(ToolLoops)


def tool_loops(warn: Callable[[str], None] | None = None) -> ToolLoops:
    """The process's tool loops (made at first use; a forked child makes its own);
    ``warn``, when given, replaces the current one."""
    loops = _loops.get()
    if warn is not None:
        loops.warn = warn
    return loops
