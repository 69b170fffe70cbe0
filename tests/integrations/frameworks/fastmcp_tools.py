"""A tool set written with FastMCP, for the FastMCP adapter's tests (``server``).

``forecast`` is the sloppy-argument matrix's tool, ``convert`` an ordinary one,
``lookup`` the fragile one (a ``KeyError`` for any code but the three it knows), ``refuse``
raises a ``ToolError`` of its own; ``context_server``'s ``greet`` takes a ``Context``
FastMCP fills in; ``empty_server`` has no tool.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from pydantic import BaseModel, Field

server = FastMCP("weather")


class Place(BaseModel):
    city: str


@server.tool
def forecast(days: Annotated[int, Field(description="How many days ahead.")],
             unit: Literal["celsius", "fahrenheit"] = "celsius",
             place: Place | None = None) -> str:
    """Forecast the weather."""
    return f"{days} days in {unit} for {place.city if place else 'here'}"


@server.tool(annotations={"readOnlyHint": True})
def convert(celsius: float) -> dict[str, float]:
    """Convert a temperature to Fahrenheit."""
    return {"fahrenheit": celsius * 9 / 5 + 32}


STATIONS = {"PAR": "Paris-Montsouris", "LON": "London Heathrow", "BER": "Berlin-Tempelhof"}


@server.tool
def lookup(code: str) -> str:
    """Name the weather station of a code."""
    return STATIONS[code.upper()]


@server.tool
def refuse(reason: str) -> str:
    """Refuse, with a reason."""
    raise ToolError(f"refused: {reason}")


context_server = FastMCP("greeter")
"""A server whose tool takes a ``Context`` (so ``--binding agentforge`` cannot reach it)."""


@context_server.tool
async def greet(name: str, ctx: Context) -> str:
    """Greet someone from the server."""
    return f"hello {name} from {ctx.fastmcp.name}"


empty_server = FastMCP("empty")
"""A server without tools."""
