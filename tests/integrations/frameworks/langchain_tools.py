"""A LangChain tool set for the adapter tests: ``forecast`` (the sloppy-argument matrix),
``convert`` (an ordinary tool), ``lookup`` (fragile: a KeyError for an unknown code),
``whoami`` (an argument the harness injects) and a toolkit holding the first two."""

from __future__ import annotations

from typing import Annotated

from langchain_core.tools import BaseToolkit, InjectedToolArg, tool

from sample_tools.weather_langchain import forecast


@tool
def convert(amount: float, currency: str = "EUR") -> str:
    """Convert an amount of US dollars.

    Args:
        amount: The amount in USD.
        currency: The currency to convert to.
    """
    return f"{amount * 2:g} {currency}"


_CODES = {"PAR": "Paris", "LON": "London"}


@tool
def lookup(code: str) -> str:
    """Find a city by its code.

    Args:
        code: A three-letter code.
    """
    return _CODES[code.upper()]  # a bug: an unknown code raises KeyError


@tool
def whoami(greeting: str, user: Annotated[str, InjectedToolArg]) -> str:
    """Greet the user the harness names.

    Args:
        greeting: How to greet.
    """
    return f"{greeting}, {user}"


class WeatherToolkit(BaseToolkit):
    def get_tools(self) -> list:  # type: ignore[type-arg]
        return [forecast, convert]


toolkit = WeatherToolkit()
