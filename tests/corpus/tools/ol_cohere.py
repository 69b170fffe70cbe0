"""The tools of traceloop/openllmetry's Cohere v2 chat tests (``ol-cohere-*`` cassettes):
the weather and the time in a place.

Both stand for live services, so their answers come from a small table of what the test
hands back for a place; a place the table does not know is an error.
"""

from __future__ import annotations

from execution_log import counted_tool

WEATHER = {"Tokyo": "Sunny 20 degrees Celsius"}
TIMES = {"Tokyo": "4:20 PM"}


def _look_up(table: dict[str, str], location: str, what: str) -> str:
    try:
        return table[location]
    except KeyError:
        raise ValueError(f"no {what} known for {location!r}") from None


class CohereTools:
    """Weather and time, as the Cohere tests declare them."""

    @counted_tool(name="get_weather")
    def get_weather(self, location: str) -> str:
        """Get the current weather in a given location."""
        return _look_up(WEATHER, location, "weather")

    @counted_tool(name="get_time")
    def get_time(self, location: str) -> str:
        """Get the current time in a given location."""
        return _look_up(TIMES, location, "time")
