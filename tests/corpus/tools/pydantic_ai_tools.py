"""The tools of pydantic-ai's model tests (the ``pai-*`` cassettes and the
``derived-pai-*`` and ``derived-gemini-pai-json`` files made from them).

The retry tools refuse their first argument as the tests' tools do, by raising: the
refusal is an error result here, while pydantic-ai records it as a retry prompt in its
own words ("... Fix the errors and try again."), so those results differ from the
recording (or, compared with ``--match status``, agree on being errors).
"""

from __future__ import annotations

from execution_log import counted_tool

FAMILY = (
    "alice is bob's wife",
    "bob is alice's husband",
    "charlie is alice's son",
    "daisy is bob's daughter and charlie's younger sister",
)


class PydanticAiTools:
    """pydantic-ai's test tools."""

    @counted_tool(name="retrieve_entity_info")
    def retrieve_entity_info(self, name: str) -> str:
        """Get the knowledge about the given entity."""
        return "\n".join(fact for fact in FAMILY if fact.startswith(name.lower() + " "))

    @counted_tool(name="get_capital")
    def get_capital(self, country: str) -> str:
        """Get the capital of a country."""
        if country != "La France":
            raise ValueError('The country is not supported. Use "La France" instead.')
        return "Paris"

    @counted_tool(name="get_location")
    def get_location(self, loc_name: str) -> dict[str, int]:
        """The coordinates of a place."""
        if loc_name != "London":
            raise ValueError('Wrong location, I only know about "London".')
        return {"lat": 51, "lng": 0}

    @counted_tool(name="get_weather")
    def get_weather(self, city: str) -> str:
        """The weather in a city, known by its airport code."""
        if city != "NYC":
            raise ValueError('Location not recognized. The tool only supports the airport '
                             'code "NYC". Call again with city="NYC".')
        return "Sunny, 72F"
