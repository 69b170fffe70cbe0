"""The tool of openinference's JS Bedrock streaming test (``oi-js-bedrock-recording``):
``get_weather`` as declared to ConverseStream. The test never executes it (the recording
ends at the model's ``tool_use`` stop), so it says what it was asked, and each call runs,
and is counted, once.
"""

from __future__ import annotations

from typing import Literal

from execution_log import counted_tool


class BedrockWeatherTools:
    """The test's declared weather tool."""

    @counted_tool(name="get_weather")
    def get_weather(self, location: str,
                    unit: Literal["celsius", "fahrenheit"] | None = None) -> str:
        """Get current weather for a location."""
        return f"(no live weather in a replay) {location}" + (f" in {unit}" if unit else "")
