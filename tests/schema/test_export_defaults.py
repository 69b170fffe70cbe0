"""Every ``default`` in every exported schema validates against the schema it sits in, for
every sample tool and for generated signatures; a nested type without a docstring of its
own gets no description (never one inherited from ``dict`` or a base class)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import inspect
import json
import uuid
from decimal import Decimal
from typing import Annotated, Any, Literal, NamedTuple, Optional, TypedDict

import pydantic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from provider_testing import invalid_defaults, parameter_schemas, schema_nodes

from agentforge_cli import Int32, P, ToolSpecification, build_local_tools
from agentforge_cli.core.define.definition import define_tool
from agentforge_cli.errors import ProviderExportError
from agentforge_cli.schema.providers import PROVIDERS, export_tools
from sample_tools import crm, shop, weather

FORMATS = ("json", *PROVIDERS)


def exported_schemas(specs: list[ToolSpecification], provider: str
                     ) -> list[tuple[str, dict[str, Any]]]:
    """The parameters schemas of one export; a tool the provider has no form for (an
    export error, reported to the user) is left out."""
    if provider == "json":
        return [(s.name, json.loads(json.dumps(s.to_dict()))["parameters"]) for s in specs]
    found = []
    for one in specs:
        try:
            data = export_tools([one], provider).data
        except ProviderExportError:
            continue
        found += parameter_schemas(provider, json.loads(json.dumps(data)))
    return found


def all_invalid_defaults(specs: list[ToolSpecification]) -> list[str]:
    return [f"{provider}: {name}: {problem}" for provider in FORMATS
            for name, root in exported_schemas(specs, provider)
            for problem in invalid_defaults(root)]


# --- the sample tools --------------------------------------------------------------------

SAMPLE_SPECS = list(build_local_tools([crm.CrmTools(), weather, shop]))


def test_every_sample_default_validates_in_every_format():
    assert all_invalid_defaults(SAMPLE_SPECS) == []


def test_the_sample_optional_parameters_admit_null_beside_their_default():
    by_name = {s.name: s.parameters["properties"] for s in SAMPLE_SPECS}
    assert by_name["getPrice"]["discount"]["default"] is None
    assert by_name["getPrice"]["discount"]["type"] == ["number", "null"]
    note = by_name["restock"]["note"]
    assert (note["type"], note["default"]) == (["string", "null"], None)


# --- Optional, None defaults and defaults a type refuses -------------------------------

class Color(enum.Enum):
    RED = "r"
    BLUE = "b"


class Point(TypedDict):
    x: int


@dataclasses.dataclass
class Box:
    side: int
    label: str | None = None


class Pair(NamedTuple):
    a: int
    b: int = 0


class Base:
    """A documented base class."""


@dataclasses.dataclass
class Derived(Base):
    size: int


def declared(a: Optional[str] = None, b: Point | None = None, c: str = None,  # noqa: RUF013, UP045
             d: int = True, e: Literal["x", "y"] = "z", f: Color = Color.RED,
             g: Annotated[int, P(minimum=1)] = 0, h: Int32 = 2**40, i: float = 1,
             j: list[int] | None = None, k: Box | None = None, m: Derived | None = None,
             n: Pair | None = None) -> str:
    """Declared."""
    return "ok"


PROPS = define_tool(declared).spec.parameters["properties"]


def test_optional_with_a_none_default_admits_null():
    assert PROPS["a"] == {"type": ["string", "null"], "default": None}
    assert PROPS["c"] == {"type": ["string", "null"], "default": None}
    assert PROPS["b"]["anyOf"][-1] == {"type": "null"} and PROPS["b"]["default"] is None
    assert PROPS["j"] == {"anyOf": [{"type": "array", "items": {"type": "integer"}},
                                    {"type": "null"}], "default": None}


def test_a_default_the_type_refuses_is_left_out():
    assert "default" not in PROPS["d"]  # True is not an integer
    assert "default" not in PROPS["e"]  # "z" is not one of the Literal's values
    assert "default" not in PROPS["g"]  # below the minimum
    assert "default" not in PROPS["h"]  # beyond Int32
    assert PROPS["f"]["default"] == "RED" and PROPS["i"]["default"] == 1


def test_a_field_optional_with_a_none_default_admits_null():
    box = PROPS["k"]["anyOf"][0]["properties"]["label"]
    assert box == {"type": ["string", "null"], "default": None}


def test_nested_types_without_a_docstring_get_no_description():
    for key in ("b", "k", "m", "n"):
        nested = PROPS[key]["anyOf"][0]
        assert "description" not in nested, (key, nested.get("description"))


def test_declared_defaults_validate_in_every_format():
    assert all_invalid_defaults([define_tool(declared).spec]) == []


# --- generated signatures ----------------------------------------------------------------

ANNOTATIONS = [
    str, int, float, bool, Decimal, uuid.UUID, dt.date, Any, Int32,
    Optional[str], Optional[int], int | None, Literal["a", "b"], Literal[1, 2],  # noqa: UP045
    Literal["a", 1], Color, Color | None, list[int], list[str] | None, dict[str, int],
    tuple[int, str], Point, Point | None, Box, Box | None, Pair, Derived | None,
    Annotated[int, P(minimum=1, maximum=5)], Annotated[float, P(maximum=0)],
    Annotated[str | None, P("described")],
]
DEFAULTS = [inspect.Parameter.empty, None, 0, 1, -3, 7, 2**40, 1.5, float("nan"), "a", "x",
            "2020-01-01", True, False, Color.RED, Color.BLUE]

parameters = st.lists(st.tuples(st.sampled_from(ANNOTATIONS), st.sampled_from(DEFAULTS)),
                      min_size=1, max_size=5)


def generated_tool(params: list[tuple[Any, Any]]) -> ToolSpecification:
    def generated(**kwargs: Any) -> str:
        return "ok"

    # parameters with a default come last, as Python requires
    ordered = sorted(params, key=lambda p: p[1] is not inspect.Parameter.empty)
    generated.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(f"p{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=a,
                          default=d) for i, (a, d) in enumerate(ordered)])
    generated.__annotations__ = {f"p{i}": a for i, (a, _) in enumerate(ordered)}
    return define_tool(generated).spec


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(params=parameters)
def test_generated_defaults_validate_in_every_format(params):
    spec = generated_tool(params)
    assert all_invalid_defaults([spec]) == []
    for _, node in schema_nodes(spec.parameters):
        assert node.get("description") not in (inspect.getdoc(dict), Base.__doc__)


def test_the_default_check_finds_a_default_the_schema_refuses():
    spec = ToolSpecification(name="t", description="T.", parameters={
        "type": "object", "properties": {"s": {"type": "string", "default": 5}},
        "required": []})
    assert len(all_invalid_defaults([spec])) == len(FORMATS) - 2  # gemini, openai-strict


class Filters(pydantic.BaseModel):
    tag: str = None  # type: ignore[assignment]  # pydantic does not validate defaults
    depth: int | None = None
    kind: Literal["a", "b"] = "a"


def search(filters: Filters | None = None) -> str:
    """Search."""
    return "ok"


def test_pydantic_model_defaults_validate_too():
    spec = define_tool(search).spec
    assert all_invalid_defaults([spec]) == []
    fields = spec.parameters["properties"]["filters"]["anyOf"][0]["properties"]
    assert "default" not in fields["tag"] and fields["depth"]["default"] is None
    assert fields["kind"]["default"] == "a"
