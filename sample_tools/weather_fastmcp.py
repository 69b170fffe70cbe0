"""The weather forecast on a FastMCP server (see docs/frameworks.md)."""

from __future__ import annotations

from typing import Literal

from fastmcp import FastMCP
from pydantic import BaseModel

server = FastMCP("weather")


class Place(BaseModel):
    city: str


@server.tool
def forecast(days: int, unit: Literal["celsius", "fahrenheit"] = "celsius",
             place: Place | None = None) -> str:
    """Forecast the weather.

    Args:
        days: How many days ahead.
        unit: The temperature unit.
        place: Where; here when not given.
    """
    return f"{days} days in {unit} for {place.city if place else 'here'}"
