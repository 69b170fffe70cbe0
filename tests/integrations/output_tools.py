"""Tools whose return type is a pydantic model or a ``NamedTuple``: ``serve`` declares an
``outputSchema`` for each and sends ``structuredContent`` that matches it
(``test_mcp_output_schemas.py``)."""

import datetime
import enum
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, computed_field

from agentforge_cli import tool


class Size(enum.Enum):
    SMALL = "s"
    LARGE = "l"


class Line(BaseModel):
    """An order line."""

    product_code: str = Field(alias="productCode", description="The product.")
    quantity: int


class Order(BaseModel):
    """An order; its fields have aliases, one is computed."""

    order_id: str = Field(alias="orderId")
    placed: datetime.date
    note: str | None = None
    lines: list[Line]

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented use
    @property
    def line_count(self) -> int:
        return len(self.lines)


class Camel(BaseModel):
    """A model that writes its aliases."""

    model_config = ConfigDict(serialize_by_alias=True)
    first_name: str = Field(alias="firstName")


class Corner(NamedTuple):
    x: int
    y: int


class Box(NamedTuple):
    """A box: two corners and a size."""

    low: Corner
    high: Corner
    size: Size
    label: str | None = None


@tool
def get_order(order_id: str) -> Order:
    """An order by its id.

    Args:
        order_id: The order.
    """
    return Order(orderId=order_id, placed=datetime.date(2026, 3, 1),
                 lines=[Line(productCode="TEA-001", quantity=2)])


@tool
def camel(name: str) -> Camel:
    """A model written by alias.

    Args:
        name: The first name.
    """
    return Camel(firstName=name)


@tool
def corner(x: int) -> Corner:
    """A corner on the diagonal.

    Args:
        x: Both coordinates.
    """
    return Corner(x, x)


@tool
def box(broken: bool = False) -> Box:
    """A box (``broken``: with a string where a corner belongs).

    Args:
        broken: Return a wrong value.
    """
    if broken:
        return Box("nowhere", Corner(3, 4), Size.LARGE)  # type: ignore[arg-type]
    return Box(Corner(1, 2), Corner(3, 4), Size.LARGE)
