"""``--schema-form gemini-mcp``: ``serve`` and ``tools list --format mcp`` write input
schemas that google-genai's MCP bridge takes whole. The official client fetches the
served tools; ``tools check --provider gemini-mcp``'s rules find nothing in them, and
google-genai's own converter (``mcp_to_gemini_tool``) takes each one."""

from __future__ import annotations

import json
import logging
import subprocess
import warnings
from typing import Any

import pytest
from google.genai._mcp_utils import mcp_to_gemini_tool
from mcp import types
from mcp_client_support import AGENTFORGE, ROOT, Remote, serve

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.lint import check_specs

TARGETS = ["sample_tools.shop", "sample_tools.weather"]


def _lint(tools: list[dict[str, Any]]) -> list[str]:
    specs = [ToolSpecification(name=tool["name"], description=tool["description"],
                               parameters=tool["inputSchema"]) for tool in tools]
    return [str(found) for found in check_specs(specs, ["gemini-mcp"])]


def _bridge(tool: types.Tool) -> Any:
    logging.getLogger("google_genai.types").disabled = True
    with warnings.catch_warnings():  # as outside pytest: pydantic's warnings only warn
        warnings.simplefilter("ignore")
        return mcp_to_gemini_tool(tool)


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory):
    yield from serve(["serve", *TARGETS, "--schema-form", "gemini-mcp"],
                     tmp_path_factory.mktemp("gemini-form"), command=str(AGENTFORGE))


def test_served_tools_pass_the_bridge_lint_and_its_converter(remote: Remote) -> None:
    listed = remote.run(remote.session.list_tools).tools
    assert len(listed) == 11
    dumped = [tool.model_dump(by_alias=True, exclude_none=True) for tool in listed]
    assert _lint(dumped) == []
    for tool in listed:
        declaration = _bridge(tool).function_declarations[0]
        assert declaration.name == tool.name
    # the shop's closed objects: no boolean schema left, the bounds kept in snake case
    place = next(t for t in dumped if t["name"] == "placeOrder")["inputSchema"]
    assert "additionalProperties" not in json.dumps(place)
    (sent,) = _bridge(next(t for t in listed if t.name == "quote_shipping")
                      ).function_declarations
    assert sent.parameters.properties["destination"].min_items == 2


def test_calls_still_bind_against_the_tools_own_signature(remote: Remote) -> None:
    price = remote.call("getPrice", {"sku": "TEA-001", "quantity": "3"})
    assert (price.is_error, remote.text(price)) == (False, "384.00")
    refused = remote.call("getPrice", {"sku": "TEA-001", "quantity": 2.5})
    assert refused.is_error is True


def _agentforge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def test_tools_list_writes_the_same_form() -> None:
    done = _agentforge("tools", "list", *TARGETS, "--format", "mcp",
                       "--schema-form", "gemini-mcp")
    assert done.returncode == 0, done.stderr
    assert _lint(json.loads(done.stdout)["tools"]) == []
    standard = _agentforge("tools", "list", *TARGETS, "--format", "mcp")
    assert [f for f in _lint(json.loads(standard.stdout)["tools"]) if "error" in f]


def test_the_form_needs_the_mcp_format() -> None:
    done = _agentforge("tools", "list", *TARGETS, "--schema-form", "gemini-mcp")
    assert done.returncode == 2
    assert "--format mcp" in done.stderr


def test_a_tool_with_no_gemini_form_is_refused(write_module: Any) -> None:
    module = write_module("anything", '''
        from typing import Any
        from agentforge_cli import tool

        @tool
        def keep(value: Any) -> str:
            """Keep a value.

            Args:
                value: Anything.
            """
            return "kept"
    ''')
    done = _agentforge("tools", "list", str(module), "--format", "mcp",
                       "--schema-form", "gemini-mcp")
    assert done.returncode == 1
    assert 'tool "keep", parameter "value"' in done.stderr
