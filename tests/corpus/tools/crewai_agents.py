"""The tools of crewAI's agent tests: the counting, multiplier and parallel-search cassettes,
the hierarchical crew's coworker tools and the streamed weather calls.

Where the test's tool computes its answer (``multiplier``, ``counting_tool``, the
``parallel_local_search_*`` echoes) this one computes the same. The coworker tools hand
work to other agents and the weather tools call no service, so their recorded results
(a model's text, a temperature) cannot be reproduced: they answer a fixed sentence.
crewAI's usage limit is the framework's own text, not the tool's, so ``counting_tool``
has no limit.
"""

from __future__ import annotations

from execution_log import counted_tool


class AgentTools:
    """The crewAI agent tests' tools."""

    @counted_tool(name="counting_tool")
    def counting_tool(self, value: str) -> str:
        """Count a value."""
        return f"Counted: {value}"

    @counted_tool(name="multiplier")
    def multiplier(self, first_number: int, second_number: int) -> int:
        """Multiply two numbers."""
        return first_number * second_number

    @counted_tool(name="parallel_local_search_one")
    def parallel_local_search_one(self, query: str) -> str:
        """Local search tool #1 for concurrency testing."""
        return f"[one] {query}"

    @counted_tool(name="parallel_local_search_two")
    def parallel_local_search_two(self, query: str) -> str:
        """Local search tool #2 for concurrency testing."""
        return f"[two] {query}"

    @counted_tool(name="parallel_local_search_three")
    def parallel_local_search_three(self, query: str) -> str:
        """Local search tool #3 for concurrency testing."""
        return f"[three] {query}"

    @counted_tool(name="ask_question_to_coworker")
    def ask_question_to_coworker(self, question: str, context: str, coworker: str) -> str:
        """Ask a coworker a question (another agent answers it)."""
        return f"{coworker} was asked: {question}"

    @counted_tool(name="delegate_work_to_coworker")
    def delegate_work_to_coworker(self, task: str, context: str, coworker: str) -> str:
        """Give a task to a coworker (another agent does it)."""
        return f"{coworker} was given: {task}"

    @counted_tool(name="get_current_temperature")
    def get_current_temperature(self, city: str) -> str:
        """Get the current temperature in a city."""
        return f"no temperature service here; asked for {city}"

    @counted_tool(name="get_weather")
    def get_weather(self, location: str) -> str:
        """Get the current weather in a given location."""
        return f"no weather service here; asked for {location}"
