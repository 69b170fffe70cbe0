"""The tools of openinference's BeeAI agent test (``oi-beeai-agent``): BeeAI's
``OpenMeteoTool`` (a live forecast service) and ``DuckDuckGo`` search. Neither can be
asked in a replay, and the recording never answers its one call; these say what they
were asked, so each call runs, and is counted, once.
"""

from __future__ import annotations

from typing import Literal

from execution_log import counted_tool


class BeeAiTools:
    """BeeAI's weather and search tools, as the agent declared them."""

    @counted_tool(name="OpenMeteoTool")
    def open_meteo(self, location_name: str, country: str | None, start_date: str | None,
                   end_date: str | None,
                   temperature_unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
        """Retrieve current, past, or future weather forecasts for a location."""
        place = f"{location_name}, {country}" if country else location_name
        span = f" {start_date or 'today'}..{end_date or 'today'}"
        return f"(no live forecast in a replay) {place}{span} in {temperature_unit}"

    @counted_tool(name="DuckDuckGo")
    def duckduckgo(self, query: str) -> str:
        """Search for online trends, news, current events, real-time information, or
        research topics."""
        return f"(no live search in a replay) {query}"
