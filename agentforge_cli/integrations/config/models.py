"""``[tool.agentforge.models]``: what ``eval`` knows of the models it asks.

    [tool.agentforge.models.prices]
    "gpt-4o-mini" = {input = 0.15, output = 0.60}      # US dollars per million tokens
    "openrouter:anthropic/claude-3.5-haiku" = {input = 0.8, output = 4}

``prices`` is a table of model names (``MODEL``, or ``CONNECTION:MODEL`` for one
connection's), each with its ``input`` and ``output`` price per million tokens
(:mod:`~agentforge_cli.models.prices`). Checked when the table is read: an unknown key or a
price that is not one is a configuration error naming the file and the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.config.keys import refuse_unknown_keys

__all__ = ["MODELS_KEYS", "model_prices"]

MODELS_KEYS = ("prices",)
"""The keys ``[tool.agentforge.models]`` may hold."""

_TABLE = "[tool.agentforge.models]"


def model_prices(path: Path | None, table: dict[str, Any]) -> Any:
    """The price table of the ``[tool.agentforge]`` ``table`` read from ``path``: model
    name -> :class:`~agentforge_cli.models.prices.Price`, or ``None`` when there is none.

    Raises:
        TargetConfigError: ``models`` is not a table, holds an unknown key, or a price
            that is not one.
    """
    models = table.get("models")
    if models is None or path is None:
        return None
    if not isinstance(models, dict):
        raise TargetConfigError(f"{path}: [tool.agentforge] models must be a table "
                                f"({_TABLE}), got {models!r}")
    refuse_unknown_keys(path, models, MODELS_KEYS, _TABLE)
    if "prices" not in models:
        return None
    from agentforge_cli.models.prices import parse_prices

    try:
        return parse_prices(models["prices"], f"{path}: {_TABLE} prices")
    except ValueError as exc:
        raise TargetConfigError(str(exc)) from None
