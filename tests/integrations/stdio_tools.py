"""Tools that misbehave on stdio, block, or take secrets — served by ``agentforge serve``
in ``test_mcp_stdio.py``.

It prints at import time on purpose: ``agentforge serve`` claims stdout before it imports
the targets, so this line must reach stderr, never the protocol stream.

Requests of one server share this module, so the tools coordinate through module state:
``linger``/``linger_started``/``linger_outcome`` (an async tool and its probes) and
``block``/``block_started``/``unblock``/``block_finished`` (a sync tool and its probes).
"""

import asyncio
import os
import subprocess
import sys
import threading
from typing import Annotated

from agentforge_cli import P, tool

print("stdio_tools: printed at import", flush=True)

_linger_started = asyncio.Event()
_linger_cancelled = asyncio.Event()
_block_started = threading.Event()
_block_release = threading.Event()
_block_finished = threading.Event()
_PROBE_LIMIT = 20.0  # how long a probe waits for what it reports (never reached when green)


@tool
def shout(text: str) -> str:
    """Write ``text`` to stdout in every way a tool can, then return it.

    Args:
        text: What to write.
    """
    print(f"print: {text}")
    sys.stdout.write(f"sys.stdout.write: {text}\n")
    sys.stdout.flush()
    os.write(1, f"os.write: {text}\n".encode())
    subprocess.run(["echo", f"child process: {text}"], check=True)
    return text


@tool
def echo(n: int) -> int:
    """Return ``n`` (a sync tool).

    Args:
        n: The number.
    """
    return n


@tool
async def aecho(n: int) -> int:
    """Return ``n`` (an async tool).

    Args:
        n: The number.
    """
    await asyncio.sleep(0)
    return n


@tool
def fail(reason: str) -> str:
    """Always fail.

    Args:
        reason: Put in the error message.
    """
    raise RuntimeError(f"failed: {reason}")


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return a + b


@tool
def hang() -> str:
    """A sync tool that never returns."""
    threading.Event().wait()
    return "unreachable"


@tool
async def ahang() -> str:
    """An async tool that never returns."""
    await asyncio.Event().wait()
    return "unreachable"


@tool
async def linger() -> str:
    """An async tool that waits until it is cancelled, and records that it was."""
    _linger_started.set()
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        _linger_cancelled.set()
        raise
    return "unreachable"


@tool
async def linger_started() -> str:
    """Wait until ``linger`` runs."""
    await asyncio.wait_for(_linger_started.wait(), _PROBE_LIMIT)
    return "started"


@tool
async def linger_outcome() -> str:
    """Wait until ``linger`` is cancelled."""
    await asyncio.wait_for(_linger_cancelled.wait(), _PROBE_LIMIT)
    return "cancelled"


@tool
def block() -> str:
    """A sync tool that runs until ``unblock``; its result is the late one."""
    _block_started.set()
    try:
        _block_release.wait(_PROBE_LIMIT)
        return "late result"
    finally:
        _block_finished.set()


@tool
async def block_started() -> str:
    """Wait until ``block`` runs."""
    await asyncio.to_thread(_block_started.wait, _PROBE_LIMIT)
    return "started"


@tool
def unblock() -> str:
    """Let ``block`` return."""
    _block_release.set()
    return "released"


@tool
async def block_finished() -> str:
    """Wait until ``block`` has returned."""
    await asyncio.to_thread(_block_finished.wait, _PROBE_LIMIT)
    return "finished"


@tool
def login(user: str, pin: Annotated[int, P("The PIN.", sensitive=True)], api_key: str,
          options: dict | None = None) -> str:
    """Log in (takes secrets: ``pin`` is marked sensitive, ``api_key`` is named like one).

    Args:
        user: Who logs in.
        api_key: The service key.
        options: Extra settings; a ``password`` inside is a secret too.
    """
    return f"welcome {user}"
