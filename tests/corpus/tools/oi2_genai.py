"""The tools of openinference's google-genai instrumentation tests (``oi-genai-*``).

``AfcWeatherTools.get_weather`` is the function the automatic-function-calling test
hands to google-genai: a fixed table of three cities (any other city gets a default),
the temperature in Fahrenheit unless Celsius is asked for. google-genai sends its return
value as ``{"result": ...}``; replay reads the value inside, so it is reproduced.

``StreamWeatherTools.get_weather`` is the streaming test's declaration, which that test
never executes (both calls are never answered): it says what it was asked, so each call
runs, and is counted, once.
"""

from __future__ import annotations

from execution_log import counted_tool

FAHRENHEIT = {
    "san francisco": (65, "foggy", "85%"),
    "new york": (72, "sunny", "60%"),
    "london": (55, "rainy", "90%"),
}
"""city (lower case) -> (temperature in °F, condition, humidity), as the test's mock."""
UNKNOWN_CITY = (70, "unknown", "50%")


class AfcWeatherTools:
    """The automatic-function-calling test's executable function."""

    @counted_tool(name="get_weather")
    def get_weather(self, location: str, unit: str = "fahrenheit") -> dict[str, object]:
        """This function will be automatically executed by Google GenAI.
        It must return a JSON-serializable value."""
        fahrenheit, condition, humidity = FAHRENHEIT.get(location.lower(), UNKNOWN_CITY)
        temperature: float = fahrenheit
        if unit == "celsius":
            temperature = round((fahrenheit - 32) * 5 / 9, 1)
        return {"location": location, "temperature": temperature, "unit": unit,
                "condition": condition, "humidity": humidity}


class StreamWeatherTools:
    """The streaming test's declared tool (never executed by the test)."""

    @counted_tool(name="get_weather")
    def get_weather(self, location: str) -> str:
        """Get current weather information for a given location."""
        return f"(no live weather in a replay) {location}"
