"""What a model run used, as ``eval``'s outputs show it: requests sent and played, tokens,
and the money the responses cost (or why that is unknown)."""

from __future__ import annotations

import math
from typing import Any

from agentforge_cli.models.model import Model, Use

__all__ = ["money", "usage_json", "usage_line"]


def money(dollars: float) -> str:
    """``$1.25``, ``$0.0042``: cents from a dollar up, two significant digits below."""
    if dollars >= 1 or dollars == 0:
        return f"${dollars:.2f}"
    places = max(2, 1 - math.floor(math.log10(dollars)))
    return f"${dollars:.{places}f}"


def _cost(use: Use, name: str) -> str:
    spend = use.spend
    if spend.unknown:
        return f"cost unknown: no price for {name}"
    if spend.sent == spend.total:
        return f"cost: {money(spend.total)}"
    return f"cost: {money(spend.total)}, {money(spend.sent)} of it sent now"


def usage_line(model: Model, use: Use | None = None) -> str:
    """``requests: 3 sent, 0 from the cassette · tokens: 33 in, 21 out · cost: $0.0012``:
    of the whole run, or of ``use`` (a part of it)."""
    use = use or model.use()
    return (f"requests: {use.sent} sent, {use.cached} from the cassette · tokens: "
            f"{use.usage.input_tokens} in, {use.usage.output_tokens} out · "
            f"{_cost(use, model.name)}")


def usage_json(model: Model, use: Use | None = None) -> dict[str, Any]:
    """``requests``, ``tokens`` and ``cost`` (US dollars: ``total``, ``sent``; both
    ``null`` with ``unknown`` saying why when a response's cost cannot be counted), of the
    whole run or of ``use``."""
    use = use or model.use()
    spend = use.spend
    known = not spend.unknown
    return {"requests": {"sent": use.sent, "cached": use.cached},
            "tokens": {"input": use.usage.input_tokens, "output": use.usage.output_tokens},
            "cost": {"total": round(spend.total, 10) if known else None,
                     "sent": round(spend.sent, 10) if known else None,
                     "unknown": None if known else f"no price for {model.name}"}}
