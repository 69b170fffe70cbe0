"""What a run's responses cost, in US dollars.

A response's cost is the one its provider reports with it when there is one (OpenRouter
puts ``usage.cost`` in its OpenAI-compatible responses), else its tokens priced from a
table the user gives (``--prices FILE`` or ``[tool.agentforge.models.prices]``: per model,
the ``input`` and ``output`` price per million tokens), else unknown. There is no built-in
price list: prices change, and a stale one would be wrong without saying so. Standard
library only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["PRICE_EXAMPLE", "PRICE_KEYS", "Price", "Spend", "load_prices", "parse_prices",
           "price_for", "reported_cost"]

PRICE_KEYS = ("input", "output")
"""What a model's price holds: US dollars per million input and output tokens."""
PRICE_EXAMPLE = 'e.g. "gpt-4o-mini" = {input = 0.15, output = 0.60}'


@dataclass(frozen=True, slots=True)
class Price:
    """A model's price per million tokens."""

    input: float
    output: float

    def of(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


def _price(value: Any, where: str) -> Price:
    if not isinstance(value, dict) or set(value) != set(PRICE_KEYS):
        raise ValueError(f"{where} must be a table with input and output (US dollars per "
                         f"million tokens), got {value!r}; {PRICE_EXAMPLE}")
    for key in PRICE_KEYS:
        number = value[key]
        if isinstance(number, bool) or not isinstance(number, int | float) or not (
                0 <= number < math.inf):
            raise ValueError(f"{where} {key} must be a number of US dollars per million "
                             f"tokens, at least 0, got {number!r}")
    return Price(float(value["input"]), float(value["output"]))


def parse_prices(value: Any, origin: str) -> dict[str, Price]:
    """A price table (model name -> ``{input, output}``) checked and read.

    Raises:
        ValueError: It is not one; the message starts with ``origin`` and names the model.
    """
    if not isinstance(value, dict):
        raise ValueError(f"{origin} must be a table of model names, each with its input "
                         f"and output price per million tokens; {PRICE_EXAMPLE}")
    return {str(name): _price(price, f"{origin}: the price of {name!r}")
            for name, price in value.items()}


def load_prices(path: Path) -> dict[str, Price]:
    """The price table of a file: JSON when it ends in ``.json``, else TOML; either holds
    the table itself (model names at the top).

    Raises:
        ValueError: The file cannot be read, is not JSON or TOML, or holds no price table.
    """
    import json
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
        value = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except OSError as exc:
        raise ValueError(f"--prices: cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        kind = "JSON" if path.suffix == ".json" else "TOML"
        raise ValueError(f"--prices: {path} is not {kind}: {exc}") from None
    return parse_prices(value, f"--prices {path}")


def price_for(prices: dict[str, Price] | None, connection: str, model: str) -> Price | None:
    """The price of ``connection:model`` in the table, else of ``model``."""
    if not prices:
        return None
    return prices.get(f"{connection}:{model}") or prices.get(model)


def reported_cost(usage: Any) -> float | None:
    """The cost a response's usage reports (``usage.cost``, or its ``"cost"`` when read
    as JSON), or ``None``."""
    cost = usage.get("cost") if isinstance(usage, dict) else getattr(usage, "cost", None)
    if isinstance(cost, bool) or not isinstance(cost, int | float) or not (
            0 <= cost < math.inf):
        return None
    return float(cost)


@dataclass(slots=True)
class Spend:
    """The money a run's responses cost."""

    total: float = 0.0
    """Every response's cost, those played from the cassette too."""
    sent: float = 0.0
    """The cost of the responses to requests sent in this run."""
    unknown: int = 0
    """Responses with no cost reported and no price to count one."""

    def add(self, cost: float | None, *, cached: bool) -> None:
        if cost is None:
            self.unknown += 1
            return
        self.total += cost
        if not cached:
            self.sent += cost
