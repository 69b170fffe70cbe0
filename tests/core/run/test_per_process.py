"""PerProcess: one value per process, made on first use and again in a forked child."""

from __future__ import annotations

import os
import threading

from agentforge_cli.core.run.per_process import PerProcess


def test_the_value_is_made_once_whoever_asks_first() -> None:
    made: list[object] = []

    def make() -> object:
        made.append(object())
        return made[-1]

    shared = PerProcess(make)
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(shared.get())) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(made) == 1 and seen == made * 16


def test_a_forked_child_makes_its_own() -> None:
    shared = PerProcess(lambda: [os.getpid()])
    parent = shared.get()
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # the child: report whether it got a value of its own, then leave
        os.write(writer, b"own" if shared.get() == [os.getpid()] else b"parent's")
        os._exit(0)
    os.close(writer)
    answer = os.read(reader, 16)
    os.close(reader)
    os.waitpid(child, 0)
    assert answer == b"own" and shared.get() is parent
