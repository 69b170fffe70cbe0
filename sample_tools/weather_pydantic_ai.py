"""The weather forecast as a pydantic-ai tool, and an agent holding it (see
docs/frameworks.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from pydantic_ai import Agent, Tool


class Place(BaseModel):
    city: str


def forecast(days: int, unit: Literal["celsius", "fahrenheit"] = "celsius",
             place: Place | None = None) -> str:
    """Forecast the weather.

    Args:
        days: How many days ahead.
        unit: The temperature unit.
        place: Where; here when not given.
    """
    return f"{days} days in {unit} for {place.city if place else 'here'}"


forecast_tool = Tool(forecast)
agent = Agent(tools=[forecast_tool])
