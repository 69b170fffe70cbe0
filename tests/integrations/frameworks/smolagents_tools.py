"""A tool set written with smolagents, the targets of ``test_smolagents.py``.

``forecast`` is the sloppy-argument matrix's tool (``Literal`` becomes an ``enum``, a
default makes the parameter ``nullable``, and the pydantic ``Place`` is an ``object``
without properties: smolagents hands the function the dict it parsed, not a ``Place``);
``add`` is an ordinary tool; ``lookup`` is fragile (``KeyError`` on an unknown key, for
fuzz); ``Shout`` is a ``Tool`` subclass (a target naming it is instantiated).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from smolagents import Model, Tool, ToolCallingAgent, ToolCollection, tool


class Place(BaseModel):
    city: str


@tool
def forecast(days: int, unit: Literal["celsius", "fahrenheit"] = "celsius",
             place: Place | None = None) -> str:
    """Forecast the weather.

    Args:
        days: How many days to forecast.
        unit: The temperature unit.
        place: Where to forecast; here when omitted.
    """
    return f"{days} days in {unit} for {place.city if place else 'here'}"


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first term.
        b: The second term.
    """
    return a + b


CODES = {"red": "#ff0000", "green": "#00ff00"}


@tool
def lookup(color: str) -> str:
    """The hex code of a color.

    Args:
        color: A color name, such as red.
    """
    return CODES[color]  # KeyError on any other color: the fragile tool


class Shout(Tool):
    name = "shout"
    description = "Say a text louder."
    inputs = {"text": {"type": "string", "description": "What to say."},  # noqa: RUF012
              "times": {"type": "integer", "description": "How many exclamation marks.",
                        "nullable": True}}
    output_type = "string"

    def __init__(self) -> None:
        super().__init__()
        self.setups = 0

    def setup(self) -> None:
        self.setups += 1
        self.is_initialized = True

    def forward(self, text: str, times: int | None = None) -> str:
        return text.upper() + "!" * (1 if times is None else times)


TOOLS = [forecast, add, lookup]
collection = ToolCollection([forecast, add])


class NoModel(Model):
    """A model that is never asked anything (an agent needs one to exist)."""

    def generate(self, messages, stop_sequences=None, response_format=None,  # type: ignore[no-untyped-def]
                 tools_to_call_from=None, **kwargs):
        raise AssertionError("this model is never called")


agent = ToolCallingAgent(tools=[forecast, add], model=NoModel(model_id="none"))
lonely_agent = ToolCallingAgent(tools=[], model=NoModel(model_id="none"))
