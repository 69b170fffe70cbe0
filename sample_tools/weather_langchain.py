"""The weather forecast as a LangChain tool (see docs/frameworks.md)."""

from __future__ import annotations

from typing import Literal

from langchain_core.tools import tool
from pydantic import BaseModel


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
    return f"{days} days in {unit} for {place.city if place else 'here'}"
