"""The weather forecast as an OpenAI Agents SDK function tool, and an agent holding it
(see docs/frameworks.md)."""

from __future__ import annotations

from typing import Literal

from agents import Agent, function_tool
from pydantic import BaseModel


class Place(BaseModel):
    city: str


@function_tool
def forecast(days: int, unit: Literal["celsius", "fahrenheit"] = "celsius",
             place: Place | None = None) -> str:
    """Forecast the weather.

    Args:
        days: How many days ahead.
        unit: The temperature unit.
        place: Where; here when not given.
    """
    return f"{days} days in {unit} for {place.city if place else 'here'}"


agent = Agent(name="weather", tools=[forecast])
