"""The workloads the benchmark measures, built with the public API only."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from pathlib import Path

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools, tool

TWO_ARGS = '{"name":"长路","limit":5}'


def query_customer(name: str, limit: int) -> str:
    return f"customer:{name},limit:{limit}"


def two_param_floor():
    """The floor: ``json.loads(s)`` plus a direct call."""
    loads, func, text = json.loads, query_customer, TWO_ARGS

    def floor():
        return func(**loads(text))

    return floor


def _service_call(tools, name: str, arguments: str, record=None):
    service = ToolService(record=record)
    service.tools(build_local_tools(tools))
    request = ToolExecutionRequest(id="call_1", name=name, arguments=arguments)
    execute = service.execute
    assert not execute(request).is_error, execute(request)

    def call():
        return execute(request)

    return call


def two_param_service(record=None):
    """``ToolService.execute`` of a two-parameter tool (recording every call to
    ``record``, a file, when given)."""
    return _service_call([tool(name="queryCustomer")(query_customer)], "queryCustomer",
                         TWO_ARGS, record)


async def query_customer_async(name: str, limit: int) -> str:
    return f"customer:{name},limit:{limit}"


def async_service():
    return _service_call([tool(name="queryCustomerAsync")(query_customer_async)],
                         "queryCustomerAsync", TWO_ARGS)


class Priority(Enum):
    LOW = "low"
    HIGH = "high"


@dataclass
class Address:
    street: str
    city: str
    postcode: str


SIX_ARGS = json.dumps({
    "priority": "high", "price": "12.50", "quantities": [1, 2, 3],
    "ship_to": {"street": "1 Main St", "city": "Hangzhou", "postcode": "310000"},
    "note": None, "gift": True,
})


def place(priority: Priority, price: Decimal, quantities: list[int], ship_to: Address,
          note: str | None = None, gift: bool = False) -> str:
    return "ok"


def six_param_service():
    return _service_call([tool(name="place")(place)], "place", SIX_ARGS)


def six_param_pydantic():
    from pydantic import validate_call

    validated = validate_call(place)
    loads, text = json.loads, SIX_ARGS
    assert validated(**loads(text)) == "ok"

    def call():
        return validated(**loads(text))

    return call


def generated_tools_module(directory: Path, count: int):
    """Write and import a module of ``count`` tools with varied signatures."""
    lines = ["from typing import Annotated, Optional",
             "from agentforge_cli import tool, P", ""]
    for i in range(count):
        lines += [
            f"@tool(name='tool_{i}')",
            f"def tool_{i}(name: Annotated[str, P('the name')], limit: int = {i},",
            "           tags: Optional[list[str]] = None, flag: bool = False) -> str:",
            f'    """Tool number {i}."""',
            "    return name",
            "",
        ]
    name = f"generated_tools_{count}"
    path = directory / f"{name}.py"
    path.write_text("\n".join(lines), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
