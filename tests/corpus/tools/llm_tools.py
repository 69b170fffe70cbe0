"""The tools of simonw/llm's test suites and its plugins (``llm-*`` cassettes), and the
``multiply`` of the constructed Ollama-style chat.

Each computes what the test's tool computes, so every recorded result is reproduced.
``pelican_name_generator`` is stateful: it hands out its names in order, so a replay
that ran a call twice, or out of order, would differ.
"""

from __future__ import annotations

from execution_log import counted_tool
from pydantic import BaseModel

PINNED_VERSION = "0.fixed-version"
"""The version the llm tests pin ``llm_version`` to."""
PELICAN_NAMES = ("Charles", "Sammy")


class Address(BaseModel):
    """Address information."""

    street: str
    city: str
    zipcode: str


class LlmTools:
    """llm's test tools; a fresh instance starts the pelican names again."""

    def __init__(self) -> None:
        self._pelicans = list(PELICAN_NAMES)

    @counted_tool(name="multiply")
    def multiply(self, a: int, b: int) -> int:
        """Multiply two numbers."""
        return a * b

    @counted_tool(name="lookup_population")
    def lookup_population(self, country: str) -> int:
        """Returns the current population of the specified fictional country."""
        return 123124

    @counted_tool(name="can_have_dragons")
    def can_have_dragons(self, population: int) -> bool:
        """Returns True if the specified population can have dragons."""
        return population > 10000

    @counted_tool(name="db_lookup")
    def db_lookup(self, key: str) -> str:
        """Look a key up in a tiny database."""
        return "Begin with the value 7." if key == "start" else "unknown key"

    @counted_tool(name="llm_version")
    def llm_version(self) -> str:
        """The version of llm."""
        return PINNED_VERSION

    @counted_tool(name="pelican_name_generator")
    def pelican_name_generator(self) -> str:
        """Generate a pelican name (the next of a fixed list)."""
        if not self._pelicans:
            raise RuntimeError("no pelican names left")
        return self._pelicans.pop(0)

    @counted_tool(name="add_person")
    def add_person(self, name: str, age: int, address: Address) -> str:
        """Add a person with their address to the database."""
        return f"Added {name} (age {age}) living at {address.street}, {address.city}"
