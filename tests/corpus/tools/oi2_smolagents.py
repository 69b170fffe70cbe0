"""The tool of openinference's smolagents image test (``oi-smolagents-image``).

smolagents' ``final_answer`` hands its argument back as the agent's answer; the agent
stops there, so the call is never answered in the recording.
"""

from __future__ import annotations

from execution_log import counted_tool


class FinalAnswerTools:
    """smolagents' built-in final-answer tool."""

    @counted_tool(name="final_answer")
    def final_answer(self, answer: str) -> str:
        """Provides a final answer to the given problem."""
        return answer
