"""Tools that misbehave in ways a harness must survive — served by ``agentforge serve`` in
``test_mcp_hostile.py`` and called by the command line in ``tests/cli/test_cli_hostile.py``.

``argparse_cli`` is what any tool wrapping an argparse or click command line does on a
bad option: print the usage and ``sys.exit(2)``.
"""

import argparse
import sys

from agentforge_cli import tool


@tool
def argparse_cli(argv: str) -> str:
    """Run a tiny argparse command line (exits 2 on a bad option).

    Args:
        argv: The arguments, space-separated.
    """
    parser = argparse.ArgumentParser(prog="mini")
    parser.add_argument("--name", required=True)
    return parser.parse_args(argv.split()).name


@tool
def exit_zero() -> str:
    """Call ``sys.exit(0)``, which reads as success to a shell."""
    sys.exit(0)


@tool
def interrupt() -> str:
    """Raise ``KeyboardInterrupt`` from the tool's own code."""
    raise KeyboardInterrupt


@tool
async def async_exit(code: int) -> str:
    """An async tool calling ``sys.exit(code)``.

    Args:
        code: The exit code.
    """
    sys.exit(code)


@tool
def surrogate(kind: str = "result") -> str:
    """Return (or raise) text with a lone surrogate, as ``os.listdir`` gives for a
    name that is not UTF-8.

    Args:
        kind: ``result`` or ``error``.
    """
    if kind == "error":
        raise ValueError("cannot open \udcff.txt")
    return "file-\udcff.txt"


@tool
def echo_text(text: str) -> str:
    """Return ``text``.

    Args:
        text: Anything.
    """
    return f"got {text!r}"


@tool
def ping() -> str:
    """Answer ``pong``."""
    return "pong"


@tool
def nap(seconds: float) -> str:
    """Sleep, then answer.

    Args:
        seconds: How long (at most 5).
    """
    import time

    time.sleep(min(seconds, 5.0))
    return "rested"


@tool
async def async_block(seconds: float) -> str:
    """An async tool that blocks its event loop (``time.sleep`` in an ``async def``).

    Args:
        seconds: How long (at most 30).
    """
    import time

    time.sleep(min(seconds, 30.0))
    return "unblocked"


@tool
async def aping() -> str:
    """Answer ``apong`` (an async tool)."""
    return "apong"


@tool
def big(size: int, pad: str = "") -> str:
    """Return ``size`` characters.

    Args:
        size: How many (at most 4 000 000).
        pad: Ignored (makes a request as long as wanted).
    """
    return "x" * min(size, 4_000_000)
