"""The research tools of crewAI's structured-planning tests (the ``crewai-research-*``
cassettes and the ``derived-*-json`` files made from them).

The test suite's tools answer from fixed templates around their arguments, so replay
reproduces every recorded result. ``create_reasoning_plan`` is crewAI's own planning
tool: it answers with its arguments as JSON.
"""

from __future__ import annotations

import json
from typing import Any

from execution_log import counted_tool


class ResearchTools:
    """Web search, page reading and report writing, as the planning tests stub them."""

    @counted_tool(name="create_reasoning_plan")
    def create_reasoning_plan(self, plan: str, steps: list[dict[str, Any]],
                              ready: bool) -> str:
        """Record the plan of a task: its summary, its steps and whether it is ready."""
        return json.dumps({"plan": plan, "steps": steps, "ready": ready})

    @counted_tool(name="web_search")
    def web_search(self, query: str) -> str:
        """Search the web for a query."""
        return (f"Search results for '{query}': Found 3 relevant articles about the topic "
                "including market analysis, competitor data, and industry trends.")

    @counted_tool(name="read_website")
    def read_website(self, url: str) -> str:
        """Read the content of a web page."""
        return (f"Content from {url}: This article discusses key insights about the topic "
                "including market size ($50B), growth rate (15% YoY), and major players in "
                "the industry.")

    @counted_tool(name="generate_report")
    def generate_report(self, title: str, findings: str) -> str:
        """Write a short report from a title and the findings."""
        return (f"# {title}\n\n## Executive Summary\n{findings}\n\n## Conclusion\n"
                "Based on the analysis, the market shows strong growth potential.")
