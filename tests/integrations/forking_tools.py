"""Tools that fork: the child ends with ``sys.exit``, or by returning. The parent waits
for it (10 s at most, then kills it) and says how it ended."""

import os
import sys
import time

from agentforge_cli import tool

WAIT = 10.0


def _outcome(pid: int) -> str:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return f"child exited {os.waitstatus_to_exitcode(status)}"
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return "child still running after 10 s"


@tool
def fork_and_exit(code: int) -> str:
    """Fork; the child calls sys.exit(code)."""
    pid = os.fork()
    if pid == 0:
        sys.exit(code)
    return _outcome(pid)


@tool
def fork_and_return() -> str:
    """Fork; the child returns from the tool."""
    pid = os.fork()
    if pid == 0:
        return "the child's result"
    return _outcome(pid)


@tool
async def afork_and_exit(code: int) -> str:
    """An async tool that forks; the child calls sys.exit(code)."""
    pid = os.fork()
    if pid == 0:
        sys.exit(code)
    return _outcome(pid)
