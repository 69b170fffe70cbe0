"""docs/examples/inventory.py changed in ways every existing caller still fits."""

from typing import Annotated, Literal

from agentforge_cli import P, tool


@tool
def reserve(
    sku: Annotated[str, P("The product SKU")],
    quantity: Annotated[int, P("How many units", maximum=500)] = 1,
    priority: Annotated[
        Literal["low", "normal", "high", "urgent"], P("Queue priority")
    ] = "normal",
) -> str:
    """Reserve stock for an order."""
    return f"{sku}:{quantity}:{priority}"


@tool
def release(
    sku: Annotated[str, P("The product SKU")],
    reason: Annotated[str | None, P("Why the reservation is released")] = None,
) -> str:
    """Release a reservation."""
    return f"{sku}:{reason}"


@tool
def audit(sku: Annotated[str, P("The product SKU")]) -> str:
    """Show the reservations of one SKU."""
    return sku
