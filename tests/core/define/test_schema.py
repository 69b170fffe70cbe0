"""Schema generation: signatures, ``P``, docstrings and types -> JSON Schema."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from typing import Annotated, Any, Literal, NamedTuple, Optional, TypedDict, Union

import jsonschema
import pytest

from agentforge_cli import (
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    P,
    ToolExecutionRequest,
    ToolSpecification,
    build_local_tools,
    tool,
    tool_specification_from,
)
from agentforge_cli.core.run.executor import LocalToolExecutor
from sample_tools import crm, shop, weather

Validator = jsonschema.Draft202012Validator


class Color(Enum):
    RED = "red"
    GREEN = 2


@dataclass
class Dim:
    """A size."""

    width: int
    height: Annotated[float, P("in cm")] = 1.0


class Geo(TypedDict):
    lat: float
    lon: float


class Span(NamedTuple):
    start: int
    end: int = 0


@dataclass
class Node:
    value: int
    children: list[Node] = field(default_factory=list)


def prop_schema(annotation: Any) -> tuple[dict, dict]:
    """Return (property schema of ``x: annotation``, the whole parameters schema)."""

    def f(x):
        pass

    f.__annotations__ = {"x": annotation}
    parameters = tool_specification_from(f).parameters
    Validator.check_schema(parameters)
    return parameters["properties"]["x"], parameters


def deref(schema: dict, root: dict) -> dict:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    assert ref.startswith("#/$defs/")
    return root["$defs"][ref[len("#/$defs/"):]]


# (annotation, exact property schema)
EXACT = [
    pytest.param(str, {"type": "string"}, id="str"),
    pytest.param(int, {"type": "integer"}, id="int"),
    pytest.param(Int8, {"type": "integer", "minimum": -128, "maximum": 127}, id="Int8"),
    pytest.param(Int16, {"type": "integer", "minimum": -32768, "maximum": 32767}, id="Int16"),
    pytest.param(Int32, {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1},
                 id="Int32"),
    pytest.param(Int64, {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1},
                 id="Int64"),
    pytest.param(float, {"type": "number"}, id="float"),
    pytest.param(Float32, {"type": "number", "minimum": -3.4028235e38, "maximum": 3.4028235e38},
                 id="Float32"),
    pytest.param(bool, {"type": "boolean"}, id="bool"),
    pytest.param(Decimal, {"type": "number"}, id="Decimal"),
    pytest.param(uuid.UUID, {"type": "string", "format": "uuid"}, id="UUID"),
    pytest.param(dt.datetime, {"type": "string", "format": "date-time"}, id="datetime"),
    pytest.param(dt.date, {"type": "string", "format": "date"}, id="date"),
    pytest.param(dt.time, {"type": "string", "format": "time"}, id="time"),
    pytest.param(Color, {"type": "string", "enum": ["RED", "GREEN"]}, id="Enum-names"),
    pytest.param(Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}, id="Literal-str"),
    pytest.param(Literal[1, 2], {"type": "integer", "enum": [1, 2]}, id="Literal-int"),
    pytest.param(Literal[True], {"type": "boolean", "enum": [True]}, id="Literal-bool"),
    pytest.param(list[int], {"type": "array", "items": {"type": "integer"}}, id="list"),
    pytest.param(set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                 id="set"),
    pytest.param(tuple[int, ...], {"type": "array", "items": {"type": "integer"}},
                 id="tuple-variadic"),
    pytest.param(Sequence[bool], {"type": "array", "items": {"type": "boolean"}},
                 id="Sequence"),
    pytest.param(dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}},
                 id="dict"),
    pytest.param(Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]},  # noqa: UP007
                 id="Union"),
    pytest.param(int | list[int],
                 {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]},
                 id="pipe-Union"),
    pytest.param(Any, {}, id="Any"),
    pytest.param(Annotated[int, P(minimum=1, maximum=10)],
                 {"type": "integer", "minimum": 1, "maximum": 10}, id="P-range"),
    pytest.param(Annotated[float, P(minimum=0)], {"type": "number", "minimum": 0},
                 id="P-minimum-float"),
]


@pytest.mark.parametrize(("annotation", "expected"), EXACT)
def test_type_table(annotation, expected):
    schema, _ = prop_schema(annotation)
    assert schema == expected


def test_unannotated_parameter_is_anything():
    def f(x):
        pass

    parameters = tool_specification_from(f).parameters
    assert parameters["properties"]["x"] == {}
    assert parameters["required"] == ["x"]


def test_literal_mixed_types_lists_values():
    schema, _ = prop_schema(Literal[1, "a"])
    assert schema["enum"] == [1, "a"]
    assert "type" not in schema or set(schema["type"]) == {"integer", "string"}


def test_fixed_tuple_uses_prefix_items_with_fixed_length():
    schema, _ = prop_schema(tuple[int, str])
    assert schema["type"] == "array"
    assert schema["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert schema["minItems"] == 2
    assert schema.get("maxItems") == 2 or schema.get("items") is False
    validator = Validator(schema)
    assert validator.is_valid([1, "a"])
    assert not validator.is_valid([1])
    assert not validator.is_valid([1, "a", 3])


@pytest.mark.parametrize("annotation", [int | None, Optional[int]])  # noqa: UP045
def test_optional_parameter_shows_the_schema_of_t_and_is_not_required(annotation):
    schema, parameters = prop_schema(annotation)
    assert schema in ({"type": "integer"},
                      {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                      {"type": ["integer", "null"]})
    assert parameters["required"] == []


def test_optional_items_inside_a_container_allow_null():
    schema, _ = prop_schema(list[int | None])
    validator = Validator(schema)
    assert validator.is_valid([1, None])
    assert not validator.is_valid([1, "a"])
    schema, _ = prop_schema(list[int])
    assert not Validator(schema).is_valid([1, None])


@pytest.mark.parametrize(("annotation", "properties", "required"), [
    pytest.param(Dim, {"width": {"type": "integer"}, "height": {"type": "number"}}, ["width"],
                 id="dataclass"),
    pytest.param(Geo, {"lat": {"type": "number"}, "lon": {"type": "number"}}, ["lat", "lon"],
                 id="TypedDict"),
    pytest.param(Span, {"start": {"type": "integer"}, "end": {"type": "integer"}}, ["start"],
                 id="NamedTuple"),
])
def test_object_types_are_nested_objects(annotation, properties, required):
    schema, root = prop_schema(annotation)
    schema = deref(schema, root)
    assert schema["type"] == "object"
    assert list(schema["properties"]) == list(properties)
    for name, expected in properties.items():
        assert {k: v for k, v in schema["properties"][name].items()
                if k in ("type", "items")} == expected
    assert schema["required"] == required
    assert "$defs" not in root  # used once, not recursive: inlined


def test_field_description_from_p_in_nested_object():
    schema, _ = prop_schema(Dim)
    assert schema["properties"]["height"]["description"] == "in cm"


def test_pydantic_model_is_a_nested_object():
    import pydantic

    class Address(pydantic.BaseModel):
        city: str
        zip_code: str | None = None

    schema, root = prop_schema(Address)
    schema = deref(schema, root)
    assert schema["type"] == "object"
    assert set(schema["properties"]) == {"city", "zip_code"}
    assert schema["required"] == ["city"]


def test_pydantic_model_binds():
    import pydantic

    class Address(pydantic.BaseModel):
        city: str
        floor: int = 0

    received = []

    def ship(to: Address) -> None:
        received.append(to)

    ship.__annotations__ = {"to": Address, "return": None}
    executor = LocalToolExecutor(ship)
    executor.execute(ToolExecutionRequest(name="ship", arguments='{"to":{"city":"杭州",'
                                                                  '"floor":"3"}}'))
    assert received == [Address(city="杭州", floor=3)]


# --- required rules --------------------------------------------------------------------------

def rules(a: int, b: int = 1, c: int | None = None, d: Optional[str] = None,  # noqa: UP045
          e: Annotated[int, P(required=True)] = 5,
          f: Annotated[int | None, P(required=True)] = None,
          g: Annotated[str | None, P(required=True)] = None,
          h: str | None = "x", i: int | None = None, *, k: str, m: bool = False):
    pass


def test_required_rules():
    parameters = tool_specification_from(rules).parameters
    assert list(parameters["properties"]) == ["a", "b", "c", "d", "e", "f", "g", "h", "i", "k",
                                              "m"]
    assert parameters["required"] == ["a", "e", "f", "g", "k"]


def test_python_defaults_may_be_shown():
    parameters = tool_specification_from(rules).parameters
    for name, value in (("b", 1), ("h", "x"), ("m", False)):
        assert parameters["properties"][name].get("default", value) == value


# --- names and descriptions -----------------------------------------------------------------

class Account:
    @tool(name="lookUp", description="Look a user up.")
    def look_up(self, user_id: Annotated[str, P("The user's id", name="userId")],
                verbose: bool = False) -> str:
        """Docstring summary that the explicit description replaces."""
        return user_id

    @tool
    def summary_only(self, q: str) -> str:
        """Search the catalogue.

        More text that is not the summary.
        """
        return q

    @classmethod
    @tool
    def from_class(cls, n: int) -> int:
        return n

    @staticmethod
    @tool
    def static_one(n: int) -> int:
        return n


def test_self_and_cls_never_appear():
    instance = Account()
    for method in (instance.look_up, instance.summary_only, Account.from_class,
                   instance.static_one, Account.look_up):
        parameters = tool_specification_from(method).parameters
        assert "self" not in parameters["properties"]
        assert "cls" not in parameters["properties"]
        assert "self" not in parameters["required"]


def test_names_and_descriptions_from_tool_and_p():
    spec = tool_specification_from(Account().look_up)
    assert spec.name == "lookUp"
    assert spec.description == "Look a user up."
    assert spec.parameters["properties"]["userId"] == {"type": "string",
                                                       "description": "The user's id"}
    assert "user_id" not in spec.parameters["properties"]
    assert spec.parameters["required"] == ["userId"]


def test_description_defaults_to_docstring_summary_and_name_to_function_name():
    spec = tool_specification_from(Account().summary_only)
    assert spec.name == "summary_only"
    assert spec.description == "Search the catalogue."


def test_p_positional_argument_is_the_description():
    assert P("text").description == "text"
    assert P("text").name is None


def google(city: str, days: int = 3, unit: Annotated[str, P("from P")] = "C") -> str:
    """Get the weather.

    Args:
        city: The city name.
        days: How many days
            ahead to forecast.
        unit: From the docstring (P wins).
    """
    return city


def numpy_style(city: str, days: int = 3) -> str:
    """Get the weather.

    Parameters
    ----------
    city : str
        The city name.
    days : int
        How many days
        ahead to forecast.
    """
    return city


def sphinx(city: str, days: int = 3) -> str:
    """Get the weather.

    :param city: The city name.
    :param days: How many days
        ahead to forecast.
    :returns: the forecast.
    """
    return city


@pytest.mark.parametrize("func", [google, numpy_style, sphinx])
def test_descriptions_from_docstrings(func):
    spec = tool_specification_from(func)
    assert spec.description == "Get the weather."
    properties = spec.parameters["properties"]
    assert properties["city"]["description"] == "The city name."
    assert properties["days"]["description"] == "How many days ahead to forecast."


def test_p_description_wins_over_docstring():
    spec = tool_specification_from(google)
    assert spec.parameters["properties"]["unit"]["description"] == "from P"


def test_no_docstring_gives_empty_description():
    def bare(x: int):
        pass

    spec = tool_specification_from(bare)
    assert spec.description == ""
    assert "description" not in spec.parameters["properties"]["x"]


# --- $defs / $ref ---------------------------------------------------------------------------

def used_once(d: Dim) -> None:
    pass


def used_twice(a: Dim, b: list[Dim]) -> None:
    pass


def recursive(tree: Node) -> int:
    def total(node: Node) -> int:
        return node.value + sum(total(c) for c in node.children)

    return total(tree)


def walk_refs(node: Any) -> list[str]:
    found = []
    if isinstance(node, dict):
        if "$ref" in node:
            found.append(node["$ref"])
        for value in node.values():
            found.extend(walk_refs(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(walk_refs(value))
    return found


def test_type_used_once_is_inlined():
    parameters = tool_specification_from(used_once).parameters
    assert "$defs" not in parameters
    assert walk_refs(parameters) == []
    assert parameters["properties"]["d"]["type"] == "object"


def test_type_used_twice_goes_to_defs():
    parameters = tool_specification_from(used_twice).parameters
    Validator.check_schema(parameters)
    assert set(parameters["$defs"]) == {"Dim"}
    refs = walk_refs(parameters)
    assert refs and all(r == "#/$defs/Dim" for r in refs)
    validator = Validator(parameters)
    assert validator.is_valid({"a": {"width": 1}, "b": [{"width": 2, "height": 1.5}]})
    assert not validator.is_valid({"a": {"width": "x"}, "b": []})


def test_recursive_type_uses_defs_and_binds():
    parameters = tool_specification_from(recursive).parameters
    Validator.check_schema(parameters)
    assert "Node" in parameters["$defs"]
    node = parameters["$defs"]["Node"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    sample = {"tree": {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}}
    Validator(parameters).validate(sample)
    result = LocalToolExecutor(recursive).execute(
        ToolExecutionRequest(name="recursive", arguments=json.dumps(sample)))
    assert result == ("6", False)


def test_two_classes_with_the_same_name_get_distinct_defs():
    Other = dataclasses.make_dataclass("Dim", [("label", str)])

    def both(a: Dim, b: Dim, c: Any, d: Any) -> None:
        pass

    both.__annotations__ = {"a": Dim, "b": Dim, "c": Other, "d": Other}
    parameters = tool_specification_from(both).parameters
    Validator.check_schema(parameters)
    validator = Validator(parameters)
    assert validator.is_valid({"a": {"width": 1}, "b": {"width": 1}, "c": {"label": "x"},
                               "d": {"label": "y"}})
    assert not validator.is_valid({"a": {"label": "x"}, "b": {"width": 1},
                                   "c": {"label": "x"}, "d": {"label": "y"}})


# --- validity: every generated schema is JSON Schema 2020-12 and accepts valid calls -------

SAMPLES: list[tuple[Any, Any]] = [
    (str, "x"), (int, 5), (Int8, -5), (Int32, 7), (Int64, 2**40), (float, 1.5), (Float32, 2.5),
    (bool, True), (Decimal, 0.1), (uuid.UUID, "12345678-1234-5678-1234-567812345678"),
    (dt.datetime, "2024-01-02T03:04:05Z"), (dt.date, "2024-01-02"), (dt.time, "03:04:05"),
    (Color, "RED"), (Literal["a", "b"], "a"), (Literal[1, "a"], 1), (list[int], [1, 2]),
    (set[str], ["a", "b"]), (tuple[int, ...], [1]), (tuple[int, str], [1, "a"]),
    (Sequence[int], [3]), (dict[str, int], {"a": 1}), (Dim, {"width": 1}),
    (Geo, {"lat": 1.0, "lon": 2.0}), (Span, {"start": 1}), (Node, {"value": 1, "children": []}),
    (int | None, 3), (Union[int, str], "a"), (Any, {"free": ["form"]}),  # noqa: UP007
    (list[Dim | None], [{"width": 1}, None]), (dict[str, list[Node]], {"k": [{"value": 1}]}),
]


@pytest.mark.parametrize(("annotation", "sample"), SAMPLES,
                         ids=[str(i) for i in range(len(SAMPLES))])
def test_schema_is_valid_2020_12_and_accepts_what_binding_accepts(annotation, sample):
    received = []

    def f(x):
        received.append(x)

    f.__annotations__ = {"x": annotation}
    executor = LocalToolExecutor(f)
    parameters = executor.specification.parameters
    Validator.check_schema(parameters)
    Validator(parameters).validate({"x": sample})
    result = executor.execute(ToolExecutionRequest(name="f", arguments=json.dumps({"x": sample})))
    assert result.is_error is False
    assert len(received) == 1


def test_sample_tool_schemas_are_valid():
    targets = [crm.CrmTools(), weather, shop.ShopTools()]
    tools = build_local_tools(targets)
    assert len(tools) > 3
    for spec in tools:
        assert isinstance(spec, ToolSpecification)
        parameters = spec.parameters
        Validator.check_schema(parameters)
        assert parameters["type"] == "object"
        assert isinstance(parameters["properties"], dict)
        assert isinstance(parameters["required"], list)
        assert set(parameters["required"]) <= set(parameters["properties"])
        json.dumps(parameters)  # plain JSON, no Python objects


def test_parameters_schema_shape_for_no_parameters():
    def nothing() -> str:
        return "x"

    parameters = tool_specification_from(nothing).parameters
    assert parameters == {"type": "object", "properties": {}, "required": [],
                          "additionalProperties": False}
    Validator.check_schema(parameters)
