"""The tool of traceloop/openllmetry's Writer chat tests (``ol-writer-*`` cassettes).

The test declares ``get_weather`` for the model but never runs it: the recording stops at
the model's (parallel) calls, so no result was ever recorded. The tool here answers with
a fixed sentence naming the place, so each call is executed (and counted) once.
"""

from __future__ import annotations

from execution_log import counted_tool


class WriterTools:
    """The weather tool the Writer tests declare."""

    @counted_tool(name="get_weather")
    def get_weather(self, location: str) -> str:
        """Return weather in the specific location."""
        return f"No weather service in a replay; asked about {location}"
