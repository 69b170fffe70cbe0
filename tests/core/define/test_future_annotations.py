"""Tools declared at module level under ``from __future__ import annotations``.

Every annotation below is a string until the library resolves it; names, types, nested
objects, forward references and aliases must work exactly as without the import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from typing import Annotated, Literal, NotRequired, Required, TypedDict

import jsonschema

from agentforge_cli import (
    Int32,
    P,
    ToolExecutionRequest,
    ToolService,
    build_local_tools,
    tool,
    tool_specification_from,
)


class Size(Enum):
    SMALL = "s"
    LARGE = "l"


@tool(name="orderTea")
def order_tea(
    kind: Annotated[str, P("Tea kind", name="teaKind")],
    size: Size,
    cups: Int32 = 1,
    sugar: Literal["none", "some"] = "none",
    note: str | None = None,
    price: Decimal | None = None,
) -> dict:
    """Order tea.

    Args:
        size: How big.
    """
    return {"kind": kind, "size": size, "cups": cups, "sugar": sugar, "note": note,
            "price": price}


@dataclass
class Folder:
    name: str
    children: list[Folder] = field(default_factory=list)
    parent: Folder | None = None


@tool
def count_folders(root: Folder) -> int:
    return 1 + sum(count_folders(c) for c in root.children)


class Barista:
    @tool
    def brew(self, ticket: Ticket, extra: list[Size] | None = None) -> str:
        return f"{ticket.number}:{ticket.size.name}:{len(extra or [])}"


@dataclass
class Ticket:  # defined after its first use: a forward reference
    number: int
    size: Size


def test_string_annotations_resolve_into_the_same_schema():
    spec = tool_specification_from(order_tea)
    assert spec.name == "orderTea"
    assert spec.description == "Order tea."
    properties = spec.parameters["properties"]
    assert list(properties) == ["teaKind", "size", "cups", "sugar", "note", "price"]
    assert properties["teaKind"] == {"type": "string", "description": "Tea kind"}
    assert properties["size"]["enum"] == ["SMALL", "LARGE"]
    assert properties["size"]["description"] == "How big."
    assert properties["cups"]["maximum"] == 2**31 - 1
    assert properties["sugar"]["enum"] == ["none", "some"]
    assert properties["note"]["type"] == ["string", "null"]
    assert spec.parameters["required"] == ["teaKind", "size"]
    jsonschema.Draft202012Validator.check_schema(spec.parameters)


def test_binding_uses_resolved_types():
    service = ToolService().tools(build_local_tools([order_tea]))
    result = service.execute(ToolExecutionRequest(
        name="orderTea", arguments='{"teaKind":"龙井","size":"large","cups":"2","price":0.10}'))
    assert result.is_error is False
    assert json.loads(result.text) == {"kind": "龙井", "size": "LARGE", "cups": 2,
                                       "sugar": "none", "note": None, "price": 0.10}
    assert '"price":0.10' in result.text
    bad = service.execute(ToolExecutionRequest(name="orderTea",
                                               arguments='{"teaKind":"x","size":"small","cups":2147483648}'))
    assert bad.is_error is True
    assert "out of range for Int32" in bad.text


def test_recursive_dataclass_under_future_annotations():
    service = ToolService().tools(build_local_tools([count_folders]))
    tree = {"root": {"name": "a", "children": [{"name": "b"}, {"name": "c", "children": [
        {"name": "d"}]}]}}
    result = service.execute(ToolExecutionRequest(name="count_folders",
                                                  arguments=json.dumps(tree)))
    assert result == ("4", False)
    parameters = tool_specification_from(count_folders).parameters
    assert "Folder" in parameters["$defs"]
    jsonschema.Draft202012Validator(parameters).validate(tree)


def test_forward_reference_on_a_method():
    service = ToolService().tools(build_local_tools([Barista()]))
    result = service.execute(ToolExecutionRequest(
        name="brew", arguments='{"ticket":{"number":"7","size":"small"},"extra":["LARGE"]}'))
    assert result == ("7:SMALL:1", False)
    spec = tool_specification_from(Barista().brew)
    assert "self" not in spec.parameters["properties"]
    assert spec.parameters["required"] == ["ticket"]


def test_module_scan_finds_module_level_tools():
    import sys

    module = sys.modules[__name__]
    names = sorted(spec.name for spec in build_local_tools([module]))
    assert names == ["count_folders", "orderTea", "search"]


class Filters(TypedDict, total=False):
    depth: Required[int]
    tag: str


class Options(TypedDict):
    depth: int
    tag: NotRequired[str]


@tool
def search(options: Options, filters: Filters | None = None) -> str:
    return json.dumps({"options": options, "filters": filters}, sort_keys=True)


def test_typeddict_required_and_not_required_keys_are_honoured():
    spec = tool_specification_from(search)
    options = spec.parameters["properties"]["options"]
    assert options["required"] == ["depth"]
    filters = spec.parameters["properties"]["filters"]["anyOf"][0]
    assert filters["required"] == ["depth"]
    service = ToolService()
    service.tools(build_local_tools([search]))

    def run(arguments):
        return service.execute(ToolExecutionRequest(name="search", arguments=arguments))

    assert run('{"options": {"depth": "2"}}') == (
        '{"filters": null, "options": {"depth": 2}}', False)
    missing = run('{"options": {"tag": "x"}}')
    assert missing.is_error and 'Argument "options.depth" is missing' in missing.text
    assert run('{"options": {"depth": 1}, "filters": {"tag": "t"}}').is_error
