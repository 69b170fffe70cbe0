"""Lint advice and export notes fit where a tool comes from: an MCP server written with the
TypeScript SDK (``undescribed_server.mjs``) is told to describe its parameters in its own
schema, a LangChain tool to use ``parse_docstring=True`` or ``Field``, and neither is
told that agentforge's binding checks what an export leaves out; agentforge's own tools
keep the ``P(...)`` advice. ``$schema`` constrains nothing: no export reports dropping it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentforge_cli.integrations import frameworks
from agentforge_cli.integrations.targets.provenance import LIBRARY_ORIGINS

HERE = Path(__file__).resolve().parents[1]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).with_name("agentforge")
NODE_MODULES = Path(sys.prefix) / "node" / "node_modules"
TYPESCRIPT = f"mcp:node {HERE / 'undescribed_server.mjs'} {NODE_MODULES}"
LANGCHAIN = str(HERE / "frameworks" / "langchain_tools.py")


def agentforge(*args: str) -> subprocess.CompletedProcess[str]:
    if not (NODE_MODULES / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail(f"{NODE_MODULES} has no MCP SDK: run make install")
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def findings(*args: str) -> list[dict[str, Any]]:
    done = agentforge("tools", "check", *args, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    found: list[dict[str, Any]] = json.loads(done.stdout)["findings"]
    return found


def test_a_typescript_servers_parameter_is_described_in_its_own_schema() -> None:
    found = findings(TYPESCRIPT, "--provider", "gemini", "--provider", "openai-strict")
    described = [f for f in found if f["rule"] == "no-description"]
    assert [f["path"] for f in described] == ["$.items"]
    message = described[0]["message"]
    assert "P(" not in message and "docstring" not in message
    assert ".describe(" in message and "agentforge cannot change" in message
    # the export leaves out a format; agentforge does not bind this server's calls
    (note,) = [f["message"] for f in found if f["rule"] == "gemini:unsupported-format"]
    assert "binding still" not in note
    assert "only the server's own validation" in note
    assert not [f for f in found if "$schema" in f["message"]]


def test_an_export_of_a_typescript_servers_tool_tells_the_truth_on_stderr() -> None:
    done = agentforge("tools", "list", TYPESCRIPT, "--format", "gemini")
    assert done.returncode == 0, done.stderr
    assert "binding still" not in done.stderr
    assert "only the server's own validation can still check it" in done.stderr
    assert "$schema" not in done.stderr
    assert "$schema" not in done.stdout  # left out all the same


def test_a_langchain_tool_is_told_what_langchain_reads() -> None:
    found = findings(LANGCHAIN)
    described = {f["path"]: f["message"] for f in found if f["tool"] == "forecast"}
    assert set(described) == {"$.days", "$.unit", "$.place", "$.place.city"}
    assert "parse_docstring=True" in described["$.days"]
    assert all("P(" not in message for message in described.values())
    assert "Field(description=...)" in described["$.place.city"]


def test_agentforge_tools_keep_the_advice_for_python_tools(write_module: Any) -> None:
    module = write_module("bare_tools", '''
        from agentforge_cli import tool

        @tool
        def bare(x: int, when: str = "") -> str:
            return str(x)
    ''')
    found = findings(str(module))
    assert any("P(" in f["message"] and f["path"] == "$.x" for f in found), found


def test_every_library_an_adapter_reads_has_its_origin() -> None:
    libraries = {adapter.library for adapter in frameworks.ADAPTERS}
    assert libraries == set(LIBRARY_ORIGINS)
