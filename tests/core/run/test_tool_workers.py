"""The threads and loops ``agentforge serve`` runs tools on: ``ToolThreads`` bounds the sync
calls running at once, ``ToolLoops`` moves async calls off a loop a tool has blocked."""

from __future__ import annotations

import asyncio
import queue
import threading
import time

import pytest

from agentforge_cli.core.run.tool_loops import ToolLoops
from agentforge_cli.core.run.tool_threads import ToolThreads

WAIT = 20.0


def test_each_call_has_a_thread_up_to_the_limit_and_the_rest_wait_in_order() -> None:
    pool = ToolThreads(limit=3)
    release = threading.Event()
    started: queue.Queue[int] = queue.Queue()

    def job(n: int) -> int:
        started.put(n)
        release.wait(WAIT)
        return n

    futures = [pool.submit(job, n) for n in range(6)]
    assert {started.get(timeout=WAIT) for _ in range(3)} == {0, 1, 2}
    with pytest.raises(queue.Empty):
        started.get(timeout=0.5)  # the fourth waits for a thread
    assert pool.threads == 3
    release.set()
    assert [f.result(timeout=WAIT) for f in futures] == list(range(6))
    assert [started.get(timeout=WAIT) for _ in range(3)] == [3, 4, 5]  # in order
    assert pool.threads <= 3


def test_a_call_cancelled_while_waiting_never_runs_and_idle_threads_end() -> None:
    pool = ToolThreads(limit=1, idle_seconds=0.1)
    release = threading.Event()
    ran: list[str] = []
    first = pool.submit(release.wait, WAIT)
    second = pool.submit(ran.append, "second")
    assert second.cancel()
    release.set()
    assert first.result(timeout=WAIT) is True
    deadline = time.monotonic() + WAIT
    while pool.threads and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (pool.threads, ran) == (0, [])
    assert pool.submit(ran.append, "third").result(timeout=WAIT) is None
    assert ran == ["third"]


def test_tool_exits_reach_the_caller() -> None:
    def leave() -> None:
        raise SystemExit(2)

    with pytest.raises(SystemExit):
        ToolThreads(limit=1).submit(leave).result(timeout=WAIT)


def test_async_calls_share_a_loop_until_it_is_blocked_then_move_and_say_so() -> None:
    said: list[str] = []
    loops = ToolLoops(limit=4, stall=0.3, warn=said.append)

    async def where() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    async def blocker() -> str:
        time.sleep(3)  # blocks its loop
        return "done"

    first = loops.run(where(), "where").result(timeout=WAIT)
    assert loops.run(where(), "where").result(timeout=WAIT) is first  # one loop
    blocked = loops.run(blocker(), "blocker")
    time.sleep(1.0)
    moved = loops.run(where(), "where").result(timeout=WAIT)  # answered while blocked
    assert moved is not first and not blocked.done()
    assert len(said) == 1 and "blocker" in said[0] and "time.sleep" in said[0]
    assert blocked.result(timeout=WAIT) == "done"
    assert loops.run(where(), "where").result(timeout=WAIT) is moved  # it stays there


def test_a_call_on_a_tool_loop_is_cancelled_from_outside() -> None:
    loops = ToolLoops()
    cancelled = threading.Event()

    async def linger() -> None:
        try:
            await asyncio.sleep(WAIT)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    future = loops.run(linger(), "linger")
    time.sleep(0.2)
    future.cancel()
    assert cancelled.wait(WAIT)
