"""Every export is accepted by the provider's official SDK types: OpenAI's Chat Completions
and Responses API tool params, Gemini's ``FunctionDeclaration`` (both forms), Anthropic's
``ToolParam`` and MCP's ``tools/list`` result; for every sample tool and a recursive type.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from typing import Any

import pytest
from anthropic.types import ToolParam
from google.genai._mcp_utils import mcp_to_gemini_tool
from google.genai.types import FunctionDeclaration
from mcp.types import ListToolsResult, Tool
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from agentforge_cli import ToolSpecification, build_local_tools
from agentforge_cli.errors import ProviderExportError
from agentforge_cli.schema.providers import PROVIDERS, export_tools
from sample_tools import crm, shop, weather


@dataclasses.dataclass
class Node:
    """A tree node."""

    label: str
    children: list[Node] = dataclasses.field(default_factory=list)
    parent: Node | None = None


def grow(root: Node, depth: int | None = None) -> str:
    """Grow a tree.

    Args:
        root: The tree.
        depth: How deep, at most.
    """
    return root.label


SAMPLES = list(build_local_tools([crm.CrmTools(), weather, shop]))
RECURSIVE = next(iter(build_local_tools([grow])))


def _keys(typed_dict: Any) -> frozenset[str]:
    return typed_dict.__required_keys__ | typed_dict.__optional_keys__


def check_typed_dict(typed_dict: Any, entry: dict[str, Any]) -> None:
    """Validated by pydantic against the SDK's TypedDict, with no key it does not know."""
    TypeAdapter(typed_dict).validate_python(entry)
    assert set(entry) <= _keys(typed_dict), set(entry) - _keys(typed_dict)


def check_openai(entry: dict[str, Any]) -> None:
    check_typed_dict(ChatCompletionToolParam, entry)
    assert set(entry["function"]) <= {"name", "description", "parameters", "strict"}


def check_gemini(entry: dict[str, Any]) -> None:
    FunctionDeclaration.model_validate(entry)  # extra="forbid": an unknown key fails


def check_gemini_mcp(entry: dict[str, Any]) -> None:
    with warnings.catch_warnings():  # pydantic's serializer warnings only warn outside pytest
        warnings.simplefilter("ignore")
        mcp_to_gemini_tool(Tool.model_validate(entry))  # the bridge takes the MCP tool


SDK_CHECKS = {
    "openai": check_openai,
    "openai-strict": check_openai,
    "openai-responses": lambda entry: check_typed_dict(FunctionToolParam, entry),
    "openai-responses-strict": lambda entry: check_typed_dict(FunctionToolParam, entry),
    "anthropic": lambda entry: check_typed_dict(ToolParam, entry),
    "gemini": check_gemini,
    "gemini-json-schema": check_gemini,
    "gemini-mcp": check_gemini_mcp,
}


def test_every_provider_has_an_sdk_check():
    assert set(SDK_CHECKS) | {"mcp"} == set(PROVIDERS)


@pytest.mark.parametrize("provider", sorted(SDK_CHECKS))
@pytest.mark.parametrize("spec", SAMPLES, ids=[s.name for s in SAMPLES])
def test_every_sample_tool_is_accepted_by_the_sdk(provider: str, spec: ToolSpecification):
    try:
        (entry,) = export_tools([spec], provider).data
    except ProviderExportError as exc:  # the strict and subset forms refuse some types
        assert provider in ("openai-strict", "openai-responses-strict", "gemini",
                            "gemini-mcp"), exc
        return
    SDK_CHECKS[provider](json.loads(json.dumps(entry)))


def test_every_sample_tool_is_an_mcp_tools_list_result():
    ListToolsResult.model_validate(export_tools(SAMPLES, "mcp").data)


@pytest.mark.parametrize("provider", ["openai", "openai-strict", "openai-responses",
                                      "openai-responses-strict", "anthropic",
                                      "gemini-json-schema"])
def test_a_recursive_type_exports_and_the_sdk_accepts_it(provider: str):
    (entry,) = export_tools([RECURSIVE], provider).data
    SDK_CHECKS[provider](entry)
    assert "Node" in json.dumps(entry)


def test_the_responses_api_tool_is_flat_and_says_strict():
    (plain,) = export_tools([RECURSIVE], "openai-responses").data
    assert list(plain) == ["type", "name", "description", "parameters", "strict"]
    assert (plain["type"], plain["name"], plain["strict"]) == ("function", "grow", False)
    assert plain["parameters"] == RECURSIVE.parameters
    (strict,) = export_tools([RECURSIVE], "openai-responses", strict=True).data
    (chat,) = export_tools([RECURSIVE], "openai", strict=True).data
    assert strict["strict"] is True
    assert strict["parameters"] == chat["function"]["parameters"]


def test_gemini_json_schema_keeps_defs_and_refs():
    (entry,) = export_tools([RECURSIVE], "gemini-json-schema").data
    assert list(entry) == ["name", "description", "parametersJsonSchema"]
    assert entry["parametersJsonSchema"] == RECURSIVE.parameters
    assert "Node" in entry["parametersJsonSchema"]["$defs"]
    declaration = FunctionDeclaration.model_validate(entry)
    assert declaration.parameters_json_schema == RECURSIVE.parameters
