"""The weather forecast as a smolagents tool (see docs/frameworks.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from smolagents import tool


class Place(BaseModel):
    city: str


@tool
def forecast(days: int, unit: Literal["celsius", "fahrenheit"] = "celsius",
             place: Place | None = None) -> str:
    """Forecast the weather.

    Args:
        days: How many days ahead.
        unit: The temperature unit.
        place: Where; here when not given.
    """
    if isinstance(place, dict):  # smolagents hands an object argument on as a dict
        place = Place(**place)
    return f"{days} days in {unit} for {place.city if place else 'here'}"
