"""The tool of openinference's LangChain raw-dict-message test (``oi-langchain-rawdict``):
a weather stub that is sunny everywhere, so its recorded answer is computed again.
"""

from __future__ import annotations

from execution_log import counted_tool


class SunnyWeatherTools:
    """The test's ``get_weather``."""

    @counted_tool(name="get_weather")
    def get_weather(self, location: str) -> str:
        """Get the weather for a location."""
        return f"The weather in {location} is sunny."
