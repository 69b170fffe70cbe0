"""Tools the MCP server tests serve next to ``sample_tools.shop``.

An int tool, async tools (one that reports which thread it runs on, one that raises), a
tool that raises, a tool returning an object, a tool that writes to stdout, and a pair
(one sync, one async) showing that a blocked sync tool leaves the event loop free.

Kept in ``tests/mcp`` without an ``__init__.py`` on purpose: the directory is named like the
SDK, and a package here could shadow ``import mcp``.
"""

import asyncio
import sys
import threading

from agentforge_cli import tool

_signal = threading.Event()


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@tool(title="Add two numbers", annotations={"readOnlyHint": True, "idempotentHint": True})
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return a + b


@tool
async def countdown(start: int, delay_ms: int = 0) -> dict:
    """Count down from ``start`` to 1 after an optional pause.

    Args:
        start: Where to start, at least 1.
        delay_ms: Milliseconds to wait first.
    """
    if start < 1:
        raise ValueError(f"start must be at least 1, got {start}")
    await asyncio.sleep(delay_ms / 1000)
    return {"values": list(range(start, 0, -1)), "on_main_thread": _on_main_thread()}


@tool
def where() -> dict:
    """Report whether this sync tool runs on the main thread."""
    return {"on_main_thread": _on_main_thread()}


@tool
def explode(reason: str) -> str:
    """Always fail.

    Args:
        reason: Put in the error message.
    """
    raise RuntimeError(f"boom: {reason}")


@tool
def wait_for_signal(seconds: float = 5.0) -> str:
    """Block this (sync) tool until ``send_signal`` runs, at most ``seconds``.

    Args:
        seconds: How long to wait.
    """
    try:
        return "signalled" if _signal.wait(seconds) else "timed out"
    finally:
        _signal.clear()


@tool
async def send_signal() -> str:
    """Release ``wait_for_signal``."""
    _signal.set()
    return "sent"


@tool
def noisy(message: str) -> str:
    """Print ``message`` to stdout, which must not reach the protocol stream.

    Args:
        message: What to print.
    """
    print(message)
    sys.stdout.flush()
    return "printed"
