"""An in-memory shop: catalogue, inventory, orders and shipping quotes.

A realistic tool module that exercises every parameter type agentforge supports: enums,
``Literal``, ``Decimal``, ``UUID``, ``datetime``/``date``/``time``, lists, sets, sequences,
fixed-length tuples, ``dict[str, int]``, dataclasses, ``TypedDict``, ``NamedTuple``,
``Optional``/``X | None`` with defaults, a union, the ``Int32``/``Float32`` aliases, a
``bool`` flag, an ``async def`` tool, a void tool, tools that raise, a tool returning a
dataclass and a sensitive parameter. Descriptions come from ``P(...)`` on some tools and
from Google-style docstrings on others; tool names are camelCase (``@tool(name=...)``) on
some and the plain function name on others.

Everything is deterministic: the inventory is an in-memory dict, order ids are derived
from the order's content (``uuid5``), and no clock is read — times are only what the
caller passes in. ``placeOrder`` and ``restock`` change the stock of the instance they run
on; build a fresh ``ShopTools()`` for an isolated shop. The module-level ``shop`` instance
is what a scan of this module finds (the class itself is never scanned)::

    agentforge tools list sample_tools.shop
    agentforge tools call getPrice '{"sku": "TEA-001", "quantity": 2}' -t sample_tools.shop
"""

import asyncio
import dataclasses
import json
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import ROUND_HALF_UP, Decimal
from enum import Enum
from typing import Annotated, Literal, NamedTuple, Optional, TypedDict

from agentforge_cli import Float32, Int32, P, tool

__all__ = [
    "Address",
    "LineItem",
    "Order",
    "Parcel",
    "Priority",
    "Product",
    "ShippingQuote",
    "ShopTools",
    "shop",
]

CENT = Decimal("0.01")
GIFT_WRAP_FEE = Decimal("5.00")
#: Where parcels leave from (Hangzhou), as (latitude, longitude).
WAREHOUSE = (30.2741, 120.1551)
#: uuid5 namespace for order ids: the same order content always gets the same id, so a
#: model that retries ``placeOrder`` does not book twice.
ORDER_NAMESPACE = uuid.UUID("6f1d3c1e-7a52-4d0b-9a3e-0c5b2f7d8e41")


class Priority(Enum):
    """How urgently an order is handled."""

    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"


Category = Literal["tea", "snack", "gift"]
DeliveryWindow = Literal["morning", "afternoon", "evening"]
# typing.Optional (a typing.Union) on purpose: `X | None` (types.UnionType) is used elsewhere.
Discount = Optional[Decimal]  # noqa: UP045


@dataclass(frozen=True)
class Product:
    """One catalogue entry."""

    sku: str
    name: str
    category: Category
    unit_price: Decimal
    barcode: int


@dataclass
class LineItem:
    """One line of an order.

    Attributes:
        sku: Product code, e.g. ``TEA-001``.
        qty: Number of units, at least 1.
        unit_price: Agreed price per unit; the catalogue price when omitted.
    """

    sku: str
    qty: int
    unit_price: Decimal | None = None


class Address(TypedDict):
    """A delivery address.

    Attributes:
        street: Street and house number.
        city: The city.
        postcode: The postal code, as written locally.
    """

    street: str
    city: str
    postcode: str


class Parcel(NamedTuple):
    """Outer size and weight of a parcel.

    Attributes:
        length_cm: Outer length, in centimetres.
        width_cm: Outer width, in centimetres.
        height_cm: Outer height, in centimetres.
        weight_kg: Weight, in kilograms.
    """

    length_cm: float
    width_cm: float
    height_cm: float
    weight_kg: Float32


@dataclass
class Order:
    """An order as stored and returned to the model (serialised as JSON)."""

    order_id: uuid.UUID
    customer: str
    items: list[LineItem]
    ship_to: Address
    priority: Priority
    total: Decimal
    gift_wrap: bool = False
    placed_at: datetime | None = None
    tags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ShippingQuote:
    """What ``quote_shipping`` answers."""

    carrier: str
    price: Decimal
    days: int
    distance_km: float
    billable_kg: float


CATALOGUE: dict[str, Product] = {
    p.sku: p
    for p in (
        Product("TEA-001", "西湖龙井 250g", "tea", Decimal("128.00"), 6901234567001),
        Product("TEA-002", "安溪铁观音 200g", "tea", Decimal("86.50"), 6901234567002),
        Product("SNK-001", "凤梨酥礼盒 12枚", "snack", Decimal("45.90"), 6901234567101),
        Product("GFT-001", "青瓷茶具套装", "gift", Decimal("299.00"), 6901234567201),
    )
}
INITIAL_STOCK: dict[str, int] = {"TEA-001": 12, "TEA-002": 0, "SNK-001": 40, "GFT-001": 3}


def _product(sku: str) -> Product:
    try:
        return CATALOGUE[sku]
    except KeyError:
        known = ", ".join(CATALOGUE)
        raise LookupError(f"unknown sku: {sku} (known: {known})") from None


def _money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


MAX_SIDE_CM = 300
MAX_WEIGHT_KG = 70


def _distance_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance (haversine), rounded to 0.1 km."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + (
        math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return round(2 * 6371.0 * math.asin(math.sqrt(h)), 1)


def _check_parcel(parcel: Parcel) -> None:
    """Refuse, with what the carrier takes, a parcel no carrier would."""
    for side, value in zip(("length_cm", "width_cm", "height_cm"), parcel[:3], strict=True):
        if not 0 < value <= MAX_SIDE_CM:
            raise ValueError(f"parcel.{side} must be more than 0 and at most {MAX_SIDE_CM} "
                             f"cm; got {value:g}")
    if not 0 < parcel.weight_kg <= MAX_WEIGHT_KG:
        raise ValueError(f"parcel.weight_kg must be more than 0 and at most {MAX_WEIGHT_KG} "
                         f"kg; got {parcel.weight_kg:g}")


def _check_destination(destination: tuple[float, float]) -> None:
    latitude, longitude = destination
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        raise ValueError("destination must be [latitude, longitude] in degrees, latitude "
                         f"-90..90 and longitude -180..180; got [{latitude:g}, {longitude:g}]")


class ShopTools:
    """Order and inventory tools over an in-memory shop."""

    def __init__(self) -> None:
        self._stock: dict[str, int] = dict(INITIAL_STOCK)
        self._orders: dict[uuid.UUID, Order] = {}
        self._deliveries: dict[uuid.UUID, str] = {}
        self.restock_log: list[tuple[dict[str, int], str | None]] = []

    # ------------------------------------------------------------------ catalogue

    @tool(name="listProducts")
    def list_products(
        self, category: Category | None = None, in_stock_only: bool = False
    ) -> list[Product]:
        """List the products in the catalogue.

        Args:
            category: Only products of this category; all categories when omitted.
            in_stock_only: Leave out products with no units on hand.
        """
        return [
            p
            for p in CATALOGUE.values()
            if (category is None or p.category == category)
            and (not in_stock_only or self._stock.get(p.sku, 0) > 0)
        ]

    @tool(name="findProducts", description="按名称关键字或商品条码查找商品")
    def find_products(
        self,
        query: Annotated[str | int, P("名称关键字（字符串）或商品条码（整数）")],
        limit: Annotated[Int32, P("最多返回条数", minimum=1, maximum=50)] = 10,
    ) -> list[Product]:
        if isinstance(query, int):
            found = [p for p in CATALOGUE.values() if p.barcode == query]
        else:
            needle = query.strip().casefold()
            found = [
                p
                for p in CATALOGUE.values()
                if needle in p.name.casefold() or needle == p.sku.casefold()
            ]
        return found[:limit]

    @tool(name="getPrice", description="计算商品总价（含折扣）")
    def get_price(
        self,
        sku: Annotated[str, P("商品编号，如 TEA-001")],
        quantity: Annotated[Int32, P("数量", minimum=1)] = 1,
        discount: Annotated[Discount, P("折扣率，0~1，例如 0.9 表示九折；不传为原价")] = None,
    ) -> Decimal:
        price = _product(sku).unit_price * quantity
        if discount is not None:
            if not Decimal(0) < discount <= Decimal(1):
                raise ValueError(f"discount must be in (0, 1], got {discount}")
            price *= discount
        return _money(price)

    # ------------------------------------------------------------------ inventory

    @tool
    async def check_stock(self, skus: set[str]) -> dict[str, int]:
        """Report how many units of each SKU are on hand.

        Args:
            skus: The SKUs to look up; an unknown SKU reports 0.
        """
        await asyncio.sleep(0)  # stands in for a call to the warehouse service
        return {sku: self._stock.get(sku, 0) for sku in sorted(skus)}

    @tool
    def restock(self, levels: dict[str, int], note: str | None = None) -> None:
        """Add units to the inventory.

        Args:
            levels: Units to add, per SKU; each must be positive.
            note: Why the stock was added, kept in the restock log.
        """
        for sku, qty in levels.items():
            _product(sku)
            if qty <= 0:
                raise ValueError(f"restock quantity must be positive: {sku}={qty}")
        for sku, qty in levels.items():
            self._stock[sku] = self._stock.get(sku, 0) + qty
        self.restock_log.append((dict(levels), note))

    @tool(name="syncInventory", description="从仓库系统同步库存（只读核对）")
    def sync_inventory(
        self,
        api_token: Annotated[str, P("仓库系统 API 令牌", sensitive=True)],
        warehouse_id: Annotated[Int32, P("仓库编号", minimum=1)],
    ) -> str:
        if not api_token.startswith("wh-"):
            raise PermissionError("invalid API token for the warehouse system")
        return f"warehouse {warehouse_id}: {len(self._stock)} SKUs in sync"

    # ------------------------------------------------------------------ orders

    @tool(name="placeOrder")
    def place_order(
        self,
        customer: str,
        items: list[LineItem],
        ship_to: Address,
        priority: Priority = Priority.NORMAL,
        placed_at: datetime | None = None,
        gift_wrap: bool = False,
        tags: Sequence[str] = (),
    ) -> Order:
        """Place an order and take its items out of stock.

        Placing the same order twice returns the first one unchanged: the order id is
        derived from the order's content.

        Args:
            customer: Customer name, as in the CRM.
            items: What to buy; a line without ``unit_price`` uses the catalogue price.
            ship_to: Where to deliver.
            priority: How urgently to handle the order.
            placed_at: When the customer placed the order (ISO 8601), recorded as given.
            gift_wrap: Wrap the parcel as a gift (5.00 extra).
            tags: Free-form labels for the order.

        Raises:
            ValueError: ``out of stock: <sku>`` when a line asks for more than is on hand.
        """
        if not items:
            raise ValueError("an order needs at least one item")
        priced: list[LineItem] = []
        total = GIFT_WRAP_FEE if gift_wrap else Decimal(0)
        for item in items:
            product = _product(item.sku)
            if item.qty < 1:
                raise ValueError(f"quantity must be at least 1: {item.sku}={item.qty}")
            price = _money(product.unit_price if item.unit_price is None else item.unit_price)
            priced.append(dataclasses.replace(item, unit_price=price))
            total += price * item.qty
        order_id = uuid.uuid5(
            ORDER_NAMESPACE,
            json.dumps(
                [
                    customer,
                    [[i.sku, i.qty, str(i.unit_price)] for i in priced],
                    dict(sorted(ship_to.items())),
                    placed_at.isoformat() if placed_at else None,
                ],
                ensure_ascii=False,
            ),
        )
        if order_id in self._orders:
            return self._orders[order_id]
        wanted: dict[str, int] = {}
        for item in priced:
            wanted[item.sku] = wanted.get(item.sku, 0) + item.qty
        for sku, qty in wanted.items():
            if qty > self._stock.get(sku, 0):
                raise ValueError(f"out of stock: {sku}")
        for sku, qty in wanted.items():
            self._stock[sku] -= qty
        order = Order(
            order_id=order_id,
            customer=customer,
            items=priced,
            ship_to=ship_to,
            priority=priority,
            total=_money(total),
            gift_wrap=gift_wrap,
            placed_at=placed_at,
            tags=list(tags),
        )
        self._orders[order_id] = order
        return order

    @tool(name="getOrder", description="按订单号查询订单")
    def get_order(self, order_id: Annotated[uuid.UUID, P("订单号（UUID）")]) -> Order:
        try:
            return self._orders[order_id]
        except KeyError:
            raise LookupError(f"unknown order: {order_id}") from None

    @tool(name="scheduleDelivery", description="为订单预约送货日期和时段")
    def schedule_delivery(
        self,
        order_id: Annotated[uuid.UUID, P("订单号（UUID）")],
        day: Annotated[date, P("送货日期，YYYY-MM-DD")],
        window: Annotated[DeliveryWindow, P("送货时段")] = "morning",
        earliest: Annotated[time | None, P("最早送达时间，HH:MM；不限则不传")] = None,
    ) -> str:
        order = self.get_order(order_id)
        if order.placed_at is not None and day < order.placed_at.date():
            raise ValueError(
                f"delivery day {day.isoformat()} is before the order was placed "
                f"({order.placed_at.date().isoformat()})"
            )
        slot = f"{day.isoformat()} {window}"
        if earliest is not None:
            slot += f", not before {earliest.isoformat(timespec='minutes')}"
        self._deliveries[order_id] = slot
        return f"order {order_id} will be delivered {slot}"

    # ------------------------------------------------------------------ shipping

    @tool
    def quote_shipping(
        self,
        parcel: Parcel,
        destination: tuple[float, float],
        express: bool = False,
        insured_value: Annotated[Float32, P(minimum=0)] = 0.0,
    ) -> ShippingQuote:
        """Quote the cost of shipping one parcel from the warehouse.

        Args:
            parcel: Outer size in centimetres and weight in kilograms.
            destination: Where it goes, as (latitude, longitude).
            express: Next-day carrier at 1.5 times the price.
            insured_value: Declared value in yuan to insure (0.5% fee); 0 for none.
        """
        _check_parcel(parcel)
        _check_destination(destination)
        volumetric = parcel.length_cm * parcel.width_cm * parcel.height_cm / 6000
        billable = math.ceil(max(parcel.weight_kg, volumetric) * 2) / 2  # next 0.5 kg
        distance = _distance_km(WAREHOUSE, destination)
        price = Decimal(8) + Decimal(2) * Decimal(str(billable))
        price += Decimal(str(distance)) * Decimal("0.01")
        if express:
            price *= Decimal("1.5")
        price += Decimal(str(insured_value)) * Decimal("0.005")
        days = 1 if express else 2 + int(distance // 800)
        return ShippingQuote(
            carrier="SF Express" if express else "ZTO",
            price=_money(price),
            days=days,
            distance_km=distance,
            billable_kg=billable,
        )


shop = ShopTools()
