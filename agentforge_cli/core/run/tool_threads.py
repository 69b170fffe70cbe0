"""``ToolThreads``: the threads that run sync tools for async callers (``agentforge serve``).

``asyncio.to_thread`` shares the event loop's default pool, ``min(32, cpu_count + 4)``
threads: six slow calls on a 2-core machine held every other call up. Here each call
gets a thread of its own, up to :data:`TOOL_THREADS` calls at once; a thread that
finishes a call takes the next one, and one idle for :data:`IDLE_SECONDS` ends. Past the
limit, calls wait in order for a thread. The threads are daemons: a tool that never
returns does not keep the process from exiting.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from agentforge_cli.core.run.per_process import PerProcess

__all__ = ["IDLE_SECONDS", "TOOL_THREADS", "ToolThreads", "tool_threads"]

TOOL_THREADS = 64
"""Sync tool calls running at once, at most; more wait for one to finish."""
IDLE_SECONDS = 30.0
"""How long an idle thread waits for another call before it ends."""

_Job = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]


class ToolThreads:
    """Runs calls on daemon threads, at most ``limit`` at once (see the module docstring)."""

    def __init__(self, limit: int = TOOL_THREADS, idle_seconds: float = IDLE_SECONDS) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self.limit = limit
        self.idle_seconds = idle_seconds
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._waiting = 0  # calls submitted and not taken by a thread yet
        self._busy = 0  # threads running a call
        self.threads = 0
        """Threads alive now."""

    def submit(self, func: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run ``func(*args)`` on a thread of its own (or as soon as one is free)."""
        future: Future[Any] = Future()
        with self._lock:
            self._jobs.put((future, func, args))
            self._waiting += 1
            if self.threads - self._busy < self._waiting and self.threads < self.limit:
                self.threads += 1  # no idle thread for it: a new one
                threading.Thread(target=self._work, name="agentforge-tool",
                                 daemon=True).start()
        return future

    def _work(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=self.idle_seconds)
            except queue.Empty:
                with self._lock:
                    if not self._waiting:  # idle long enough, and nothing came: end
                        self.threads -= 1
                        return
                continue
            with self._lock:
                self._waiting -= 1
                self._busy += 1
            future, func, args = job
            del job
            try:
                if future.set_running_or_notify_cancel():  # not cancelled while waiting
                    try:
                        result = func(*args)
                    except BaseException as exc:  # handed to the caller, as a pool does
                        future.set_exception(exc)
                    else:
                        future.set_result(result)
            finally:
                del future, func, args
                with self._lock:
                    self._busy -= 1


_pool = PerProcess(ToolThreads)


def tool_threads() -> ToolThreads:
    """The process's pool (made at first use; a forked child makes its own)."""
    return _pool.get()
