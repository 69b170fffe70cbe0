"""A tool slow enough that a replay can be killed while it rewrites its transcript."""

import time

from agentforge_cli import tool


@tool
def slow_echo(text: str) -> str:
    """Echo text after a short pause."""
    time.sleep(0.002)
    return f"echo:{text}"
