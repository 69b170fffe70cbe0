"""The tools of Arize's openinference instrumentation tests (the ``oi-*`` cassettes): one
class a test, since two tests name different tools ``get_weather``.

Where the test's tool computes its answer (the google-adk weather report, the Agent
Framework lookups, the failing agno search, the Bedrock agent's sum) this one computes the
same. The Ollama and Mistral weather calls are never answered in their recordings and no
weather service is called here: they say so. The Bedrock radio-station chart is the
outside world at recording time, looked up from a small table by call sign.
"""

from __future__ import annotations

from typing import Any

from execution_log import counted_tool

NO_SERVICE = "no weather service in a replay; asked for {city}"


class OllamaTools:
    """``test_chat_with_tool_call`` (Ollama ``/api/chat``)."""

    @counted_tool(name="get_current_weather")
    def get_current_weather(self, city: str) -> str:
        """Get the current weather in a city."""
        return NO_SERVICE.format(city=city)


class MistralTools:
    """The Mistral streaming tool-call test."""

    @counted_tool(name="get_weather")
    def get_weather(self, city: str) -> str:
        """Finds the weather for a given city."""
        return NO_SERVICE.format(city=city)


TOP_SONGS = {"WZPZ": "Rock and Roll Hall"}
"""The most played song by call sign, as the station's chart said when recorded."""


class BedrockConverseTools:
    """``TestConverseStream.test_invoke_tool_response_message`` (Bedrock converse-stream)."""

    @counted_tool(name="top_song")
    def top_song(self, sign: str) -> str:
        """Get the most popular song played on a radio station."""
        try:
            return TOP_SONGS[sign]
        except KeyError:
            raise ValueError(f"unknown station {sign}") from None


class BedrockAgentTools:
    """``test_tool_calls_with_input_params``: a Bedrock agent's action group, under the name
    the agent's model calls it and under the action group's function name."""

    @counted_tool(name="action_group_quick_start_6gq19__add_two_numbers")
    def add_two_numbers_qualified(self, n1: float, n2: float) -> str:
        """Add two numbers (the action group's function, as the model names it)."""
        return _sum_sentence(n1, n2)

    @counted_tool(name="add_two_numbers")
    def add_two_numbers(self, n1: float, n2: float) -> str:
        """Add two numbers."""
        return _sum_sentence(n1, n2)


def _sum_sentence(n1: float, n2: float) -> str:
    def plain(number: float) -> str:
        return str(int(number)) if float(number).is_integer() else str(number)

    return f"The result of adding {plain(n1)} and {plain(n2)} is {plain(n1 + n2)}"


TEMPERATURES = {"San Francisco": "72°F", "New York": "65°F", "London": "58°F"}
HUMIDITIES = {"San Francisco": "65%", "New York": "70%", "London": "80%"}


class AgentFrameworkTools:
    """Microsoft Agent Framework's ``test_multiple_tools``: fixed tables by location."""

    @counted_tool(name="get_temperature")
    def get_temperature(self, location: str) -> str:
        """Get the temperature for a location."""
        return TEMPERATURES.get(location, "Unknown location")

    @counted_tool(name="get_humidity")
    def get_humidity(self, location: str) -> str:
        """Get the humidity for a location."""
        return HUMIDITIES.get(location, "Unknown location")

    @counted_tool(name="calculate_heat_index")
    def calculate_heat_index(self, temperature: str, humidity: str) -> str:
        """Calculate heat index from temperature and humidity."""
        return f"Heat index: Comfortable (based on {temperature} and {humidity})"


class AgnoTools:
    """agno's ``agent_with_failing_tool``: the search always fails."""

    @counted_tool(name="unreliable_search")
    def unreliable_search(self, query: str) -> str:
        """A search tool that fails."""
        raise RuntimeError(f"Search service unavailable for: {query}")


class AdkTools:
    """google-adk's multi-tool test: the same sunny report for every city."""

    @counted_tool(name="get_weather")
    def get_weather(self, city: str) -> dict[str, Any]:
        """Retrieves the current weather report for a specified city."""
        return {"status": "success",
                "report": f"The weather in {city} is sunny with a temperature of 25 degrees "
                          "Celsius (77 degrees Fahrenheit)."}
