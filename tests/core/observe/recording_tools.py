"""The tools the recorder tests call in process and replay as a file target."""

from __future__ import annotations

import asyncio
from typing import Annotated

from agentforge_cli import P, tool


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


@tool
async def slow_echo(text: str) -> str:
    """Echo, later."""
    await asyncio.sleep(0)
    return text


@tool
def login(user: str, pin: Annotated[str, P("the pin", sensitive=True)],
          password: str = "") -> str:
    """Sign in."""
    return f"hello {user}"
