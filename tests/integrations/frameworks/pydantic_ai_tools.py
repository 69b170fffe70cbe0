"""A tool set written with pydantic-ai, for the adapter's tests.

``forecast`` (the sloppy-argument matrix), ``add`` (returns a dict: pydantic-ai sends it
as JSON), ``whoami`` (takes a ``RunContext``) and ``region_of`` (fragile: a ``KeyError``
for any code it does not know, for fuzz to find). Targets: the module (its ``Tool``
objects), ``:toolset`` (a ``FunctionToolset``), ``:agent`` (an ``Agent``).
"""

from __future__ import annotations

from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.toolsets import FunctionToolset

from sample_tools.weather_pydantic_ai import forecast


def add(a: int, b: int) -> dict[str, int]:
    """Add two integers.

    Args:
        a: The first.
        b: The second.
    """
    return {"sum": a + b}


def whoami(ctx: RunContext[None]) -> str:
    """Say which tool is running."""
    return f"I am {ctx.tool_name}"


REGIONS = {"FR": "Europe", "JP": "Asia"}


def region_of(code: str) -> str:
    """The region of a country code.

    Args:
        code: An ISO country code.
    """
    return REGIONS[code]  # the bug: any other code is a KeyError


forecast_tool = Tool(forecast)
add_tool = Tool(add)
whoami_tool = Tool(whoami)
region_tool = Tool(region_of)

toolset = FunctionToolset([forecast_tool, add_tool, whoami_tool, region_tool])
agent = Agent(toolsets=[toolset])
