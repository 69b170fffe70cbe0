"""Tools written with the OpenAI Agents SDK, the targets of ``test_openai_agents.py``.

``forecast`` is the sloppy-argument matrix's tool, ``convert`` an ordinary one, ``lookup``
the fragile one (a ``KeyError`` for any code but the known ones), and ``greet`` takes the
run's ``RunContextWrapper`` (the SDK fills it; ``--binding agentforge`` cannot). ``agent``
holds two of them and a hosted tool.
"""

from __future__ import annotations

from typing import Any

from agents import Agent, RunContextWrapper, WebSearchTool, function_tool

from sample_tools.weather_openai_agents import forecast

CODES = {"AMS": "Amsterdam", "PAR": "Paris"}


@function_tool
def convert(amount: float, rate: float = 1.0) -> str:
    """Convert an amount of money at a rate.

    Args:
        amount: The amount to convert.
        rate: The exchange rate.
    """
    return f"{amount * rate:.2f}"


@function_tool
def lookup(code: str) -> str:
    """Look an airport code up.

    Args:
        code: The IATA code, such as AMS.
    """
    return CODES[code]  # the bug: an unknown code is a KeyError


@function_tool
def greet(ctx: RunContextWrapper[Any], name: str) -> str:
    """Greet someone on behalf of the run's user.

    Args:
        name: Who to greet.
    """
    return f"hello {name} from {ctx.context or 'nobody'}"


agent = Agent(name="weather", instructions="Answer about the weather.",
              tools=[forecast, convert, WebSearchTool()])
bare_agent = Agent(name="bare", tools=[WebSearchTool()])
hosted = WebSearchTool()
