"""One tool, ``scale_service``, written with each library, its arguments constrained the
ways that library declares constraints (the targets of ``test_schema_constraints.py``).

Each takes a service ``name`` (at most 12 characters, lowercase letters and dashes), a
number of ``replicas`` (1 to 50) and a ``tier`` (``basic`` or ``premium``), and answers
``web scaled to 3 (basic)``. The FastMCP server's also takes ``ports`` (each 1 to 65535)
and ``limits`` (a ``TypedDict`` whose ``cpu`` is above 0 and at most 8); smolagents' takes
a ``note`` of its type ``any`` (which its schema shows as a string). Besides, LangChain's
``label_run`` takes a union of two constrained types, ``greet`` a name whose pattern
Python's ``re`` cannot read, ``rotate_token`` a secret of at least 20 characters; and
pydantic-ai's ``set_priority`` has a default (0) its own constraint (1 to 5) refuses.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import annotated_types as at
from pydantic import BaseModel, Field, conint, constr
from typing_extensions import TypedDict

NAME = r"^[a-z-]+$"


def _answer(name: str, replicas: int, tier: str) -> str:
    return f"{name} scaled to {replicas} ({tier})"


# ---------------------------------------------------------------- FastMCP: Annotated Field

from fastmcp import FastMCP  # noqa: E402

fastmcp_server = FastMCP("ops")


class Limits(TypedDict, total=False):
    cpu: Annotated[float, Field(gt=0, le=8)]


@fastmcp_server.tool
def scale_service(name: Annotated[str, Field(max_length=12, pattern=NAME)],
                  replicas: Annotated[int, Field(ge=1, le=50)],
                  tier: Literal["basic", "premium"] = "basic",
                  ports: list[Annotated[int, Field(ge=1, le=65535)]] | None = None,
                  limits: Limits | None = None) -> str:
    """Scale a service."""
    return _answer(name, replicas, tier)


# ---------------------------------------------------------------- LangChain

from langchain_core.tools import StructuredTool, tool  # noqa: E402


@tool("scale_service")
def langchain_scale(name: Annotated[str, Field(max_length=12, pattern=NAME)],
                    replicas: Annotated[int, Field(ge=1, le=50)],
                    tier: Literal["basic", "premium"] = "basic") -> str:
    """Scale a service."""
    return _answer(name, replicas, tier)


class ScaleArgs(BaseModel):
    """The arguments of ``langchain_args_scale``: the constraints are the model's."""

    name: str = Field(max_length=12, pattern=NAME)
    replicas: int = Field(ge=1, le=50)
    tier: Literal["basic", "premium"] = "basic"


def _scale(name: str, replicas: int, tier: str = "basic") -> str:
    return _answer(name, replicas, tier)


langchain_args_scale = StructuredTool.from_function(
    func=_scale, name="scale_service", description="Scale a service.", args_schema=ScaleArgs)


@tool
def label_run(label: Annotated[str, Field(max_length=3)] | Annotated[int, Field(le=9)],
              note: Annotated[int, Field(le=3)] | None = None) -> str:
    """Label a run with a short name or a small number."""
    return f"{label!r} {note!r}"


@tool
def greet(name: Annotated[str, Field(max_length=5, pattern=r"^\p{L}+$")]) -> str:
    """Greet someone by a name of letters (a pattern of pydantic's Rust engine)."""
    return f"hello {name}"


@tool
def rotate_token(service: str, api_token: Annotated[str, Field(min_length=20)]) -> str:
    """Give a service a new token."""
    return f"{service}: token of {len(api_token)} characters"


# ---------------------------------------------------------------- pydantic-ai: conint, constr

from pydantic_ai import Tool  # noqa: E402


def _pydantic_ai_scale(name: constr(max_length=12, pattern=NAME),  # type: ignore[valid-type]
                       replicas: conint(ge=1, le=50),  # type: ignore[valid-type]
                       tier: Literal["basic", "premium"] = "basic") -> str:
    """Scale a service."""
    return _answer(name, replicas, tier)


pydantic_ai_scale = Tool(_pydantic_ai_scale, name="scale_service")


def set_priority(service: str, priority: Annotated[int, Field(ge=1, le=5)] = 0) -> str:
    """Set a service's priority (0, the default, leaves it unset)."""
    return f"{service}: priority {priority}"


pydantic_ai_priority = Tool(set_priority)


# ---------------------------------------------------------- OpenAI Agents SDK: annotated_types

from agents import function_tool  # noqa: E402


@function_tool(name_override="scale_service")
def openai_agents_scale(name: Annotated[str, at.MaxLen(12), Field(pattern=NAME)],
                        replicas: Annotated[int, at.Ge(1), at.Le(50)],
                        tier: Literal["basic", "premium"] = "basic") -> str:
    """Scale a service."""
    return _answer(name, replicas, tier)


# ---------------------------------------------------------------- smolagents: its inputs

from smolagents import Tool as SmolTool  # noqa: E402


class SmolScale(SmolTool):
    name = "scale_service"
    description = "Scale a service."
    inputs = {  # noqa: RUF012
        "name": {"type": "string", "description": "The service.", "maxLength": 12,
                 "pattern": NAME},
        "replicas": {"type": "integer", "description": "How many.", "minimum": 1,
                     "maximum": 50},
        "tier": {"type": "string", "description": "The tier.", "enum": ["basic", "premium"],
                 "nullable": True},
        "note": {"type": "any", "description": "Anything.", "nullable": True},
    }
    output_type = "string"

    def forward(self, name: str, replicas: int, tier: str = "basic", note: Any = None) -> str:
        return _answer(name, replicas, tier)


smolagents_scale = SmolScale()
