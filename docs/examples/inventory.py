"""The inventory tools of docs/checks.md, as first released (the snapshot baseline)."""

from typing import Annotated, Literal

from agentforge_cli import P, tool


@tool
def reserve(
    sku: Annotated[str, P("The product SKU")],
    quantity: Annotated[int, P("How many units", maximum=100)] = 1,
    priority: Annotated[Literal["low", "normal", "high"], P("Queue priority")] = "normal",
) -> str:
    """Reserve stock for an order."""
    return f"{sku}:{quantity}:{priority}"


@tool
def release(sku: Annotated[str, P("The product SKU")]) -> str:
    """Release a reservation."""
    return sku
