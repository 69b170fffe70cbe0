"""docs/examples/inventory.py changed in ways that break callers built on the old schema."""

from typing import Annotated, Literal

from agentforge_cli import P, tool


@tool
def reserve(
    sku: Annotated[str, P("The product SKU")],
    quantity: Annotated[int, P("How many units", maximum=10)] = 1,
    priority: Annotated[Literal["normal", "high"], P("Queue priority")] = "normal",
) -> str:
    """Reserve stock for an order."""
    return f"{sku}:{quantity}:{priority}"


@tool
def release(
    sku: Annotated[str, P("The product SKU")],
    reason: Annotated[str, P("Why the reservation is released")],
) -> str:
    """Release a reservation."""
    return f"{sku}:{reason}"


@tool
def audit(sku: Annotated[str, P("The product SKU")]) -> str:
    """Show the reservations of one SKU."""
    return sku
