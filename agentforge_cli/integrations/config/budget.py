"""``[tool.agentforge.budget]``: the token budgets ``tools check --budget`` gates on.

::

    [tool.agentforge.budget]
    tool_tokens = 1500      # one tool definition, for each provider
    set_tokens = 8000       # the whole set of definitions, for each provider
    result_tokens = 10000   # one recorded tool result (tools check --results)

Every key is optional; each value is a positive whole number of tokens. An unknown key or
another value is a configuration error naming the key and the file (exit 2). Standard
library only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.config.keys import refuse_unknown_keys
from agentforge_cli.schema.budget import BudgetLimits

__all__ = ["BUDGET_KEYS", "budget_limits"]

BUDGET_KEYS = ("tool_tokens", "set_tokens", "result_tokens")
"""The keys ``[tool.agentforge.budget]`` may hold."""


def budget_limits(path: Path | None, table: dict[str, Any]) -> BudgetLimits:
    """The budgets of the ``[tool.agentforge]`` ``table`` read from ``path``, checked.

    Raises:
        TargetConfigError: ``budget`` is not a table, holds an unknown key, or a value
            that is not a positive whole number.
    """
    budget = table.get("budget")
    if budget is None or path is None:
        return BudgetLimits()
    example = "e.g.\n  [tool.agentforge.budget]\n  tool_tokens = 1500\n  set_tokens = 8000"
    if not isinstance(budget, dict):
        raise TargetConfigError(f"{path}: [tool.agentforge] budget must be a table "
                                f"([tool.agentforge.budget]), got {budget!r}", hint=example)
    refuse_unknown_keys(path, budget, BUDGET_KEYS, "[tool.agentforge.budget]")
    for key, value in budget.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise TargetConfigError(f"{path}: [tool.agentforge.budget] {key} must be a "
                                    f"positive whole number of tokens, got {value!r}",
                                    hint=example)
    from agentforge_cli.schema.silencing import shown_path

    return BudgetLimits(source=f"{shown_path(str(path))}: [tool.agentforge.budget]", **budget)
