"""Tools the MCP server tests serve next to ``sample_tools.shop``.

An int tool, async tools (one that reports which thread it runs on, one that raises), a
tool that raises, a tool returning an object, a tool that writes to stdout, a pair (one
sync, one async) showing that a blocked sync tool leaves the event loop free, and tools
whose return annotation is an object type (a dataclass, a TypedDict, a NamedTuple written
as an array: an ``outputSchema``).

``tests/integrations`` has no ``__init__.py``: it is on ``sys.path`` while testing, so no
module in it may be named like a library it imports (``mcp``).
"""

import asyncio
import datetime
import enum
import sys
import threading
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple, TypedDict

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


class Unit(enum.Enum):
    CELSIUS = "C"
    FAHRENHEIT = "F"


@dataclass
class Reading:
    """A temperature reading."""

    city: str
    degrees: Decimal
    unit: Unit
    taken: datetime.date
    history: list["Reading"] = field(default_factory=list)


class Stock(TypedDict):
    sku: str
    count: int


class Point(NamedTuple):
    x: int
    y: int


@tool
def reading(city: str, broken: bool = False) -> Reading:
    """Today's reading for a city (``broken``: return something else).

    Args:
        city: The city.
        broken: Return a string instead of a reading.
    """
    if broken:
        return "no reading"  # type: ignore[return-value]
    earlier = Reading(city, Decimal("19.5"), Unit.CELSIUS, datetime.date(2026, 1, 1))
    return Reading(city, Decimal("21.25"), Unit.CELSIUS, datetime.date(2026, 1, 2), [earlier])


@tool
async def stock(sku: str) -> Stock:
    """The stock of a product (an async tool).

    Args:
        sku: The product.
    """
    return {"sku": sku, "count": 7}


@tool
def point() -> Point:
    """A point, written as a JSON array; its structuredContent is an object."""
    return Point(1, 2)
