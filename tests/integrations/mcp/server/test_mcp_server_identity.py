"""``[tool.agentforge.serve]``: the name, title, version, description, website, icons and
instructions ``serve`` introduces itself with, as the official SDK's client reads them in
both eras (``initialize``, and ``server/discover`` of 2026-07-28); a malformed table is a
configuration error (exit 2) before anything is served."""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_client_support import AGENTFORGE, TIMEOUT, client_env

TOOLS = '''
from agentforge_cli import tool

@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
'''
PYPROJECT = '''
[tool.agentforge.serve]
name = "weather-tools"
title = "Weather tools"
version = "1.4.0"
description = "Forecasts and alerts."
website = "https://example.com/weather"
icons = [{src = "https://example.com/w.png", mimeType = "image/png", sizes = ["48x48"]}]
instructions = "Call add first."
'''


def _project(folder: Path, pyproject: str) -> Path:
    (folder / "tools.py").write_text(TOOLS, encoding="utf-8")
    (folder / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return folder


def _introduction(folder: Path, mode: str) -> tuple[str, object, str | None]:
    params = StdioServerParameters(command=str(AGENTFORGE), args=["serve", "tools.py"],
                                   cwd=str(folder), env=client_env())

    async def main() -> tuple[str, object, str | None]:
        with anyio.fail_after(TIMEOUT):
            async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
                return client.protocol_version, client.server_info, client.instructions

    return anyio.run(main)


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"),
                                              ("auto", "2026-07-28")])
def test_the_client_reads_the_project_s_server_info(tmp_path: Path, mode: str,
                                                    version: str) -> None:
    agreed, info, instructions = _introduction(_project(tmp_path, PYPROJECT), mode)
    assert agreed == version
    assert info is not None
    said = info.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[attr-defined]
    assert said == {"name": "weather-tools", "title": "Weather tools", "version": "1.4.0",
                    "description": "Forecasts and alerts.",
                    "websiteUrl": "https://example.com/weather",
                    "icons": [{"src": "https://example.com/w.png", "mimeType": "image/png",
                               "sizes": ["48x48"]}]}
    assert instructions == "Call add first."


def test_without_the_table_the_server_is_agentforge(tmp_path: Path) -> None:
    from agentforge_cli import __version__

    _, info, _ = _introduction(_project(tmp_path, "[tool.agentforge]\n"), "legacy")
    said = info.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[attr-defined]
    assert said == {"name": "agentforge", "version": __version__}


@pytest.mark.parametrize(("table", "message"), [
    ('[tool.agentforge.serve]\nnmae = "x"\n', "unknown key 'nmae'"),
    ('[tool.agentforge.serve]\ntitle = 3\n', "title must be a non-empty string"),
    ('[tool.agentforge.serve]\nwebsite = "example.com"\n', "website must be an http(s) URL"),
    ('[tool.agentforge.serve]\nicons = [{mimeType = "image/png"}]\n', "each icon needs a src"),
])
def test_a_malformed_table_is_refused_before_serving(tmp_path: Path, table: str,
                                                    message: str) -> None:
    _project(tmp_path, table)
    done = subprocess.run([str(AGENTFORGE), "serve", "tools.py"], cwd=tmp_path,
                          capture_output=True, text=True, input="", timeout=60)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "[tool.agentforge.serve]" in done.stderr
    assert done.stdout == ""
