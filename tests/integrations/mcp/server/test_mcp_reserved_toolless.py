"""An MCP server that lists no tool (only a resource and a prompt, as documentation
servers and prompt libraries do) is still served again by ``serve 'mcp:...'``: the
official SDK's client lists no tool through agentforge, and lists, reads and gets the
server's resource and prompt, in both eras on both sides, over stdio. The commands that
read such a target say what it has: ``resources list`` and ``prompts list`` its objects,
``tools list`` and ``tools check`` that it has no tool."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_client_support import AGENTFORGE, HERE, ROOT, TIMEOUT

TOOLLESS = f"mcp:{sys.executable} {HERE / 'toolless_server.py'}"


def _env() -> dict[str, str]:
    return {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "PATH": os.environ["PATH"]}


async def _seen(client: Client) -> dict[str, Any]:
    read = (await client.read_resource("docs://guide")).contents
    got = (await client.get_prompt("summarise", {"topic": "tea"})).messages
    return {
        "tools": [tool.name for tool in (await client.list_tools()).tools],
        "resources": [r.uri for r in (await client.list_resources()).resources],
        "prompts": [p.name for p in (await client.list_prompts()).prompts],
        "read": [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in read],
        "got": [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in got],
    }


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("upstream_era", [(), ("--protocol-era", "legacy")],
                         ids=["upstream-auto", "upstream-legacy"])
def test_a_server_without_tools_has_its_resources_and_prompts_served_again(
        mode: str, upstream_era: tuple[str, ...]) -> None:
    server = StdioServerParameters(command=str(AGENTFORGE),
                                   args=["serve", TOOLLESS, *upstream_era],
                                   cwd=str(ROOT), env=_env())

    async def main() -> dict[str, Any]:
        with anyio.fail_after(TIMEOUT * 3):
            async with Client(server, mode=mode) as client:
                return await _seen(client)

    assert anyio.run(main) == {
        "tools": [],
        "resources": ["docs://guide"],
        "prompts": ["summarise"],
        "read": [{"uri": "docs://guide", "mimeType": "text/plain",
                  "text": "read the guide first"}],
        "got": [{"role": "user", "content": {"type": "text", "text": "Summarise tea"}}],
    }


def _agentforge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGENTFORGE), *args], cwd=ROOT, env=_env(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT * 3)


def test_the_commands_say_what_a_server_without_tools_has() -> None:
    resources = _agentforge("resources", "list", TOOLLESS)
    assert (resources.returncode, resources.stdout) == (
        0, "[docs://guide] guide (text/plain)\n  The guide\n"), resources.stderr
    prompts = _agentforge("prompts", "list", TOOLLESS)
    assert (prompts.returncode, prompts.stdout) == (
        0, "[summarise] Summarises a topic\n  arguments: topic (required)\n"), prompts.stderr
    listed = _agentforge("tools", "list", TOOLLESS)
    assert (listed.returncode, listed.stdout) == (0, ""), listed.stderr
    assert "no tools" in listed.stderr
    assert "agentforge resources list" in listed.stderr
    as_json = _agentforge("tools", "list", TOOLLESS, "--format", "json")
    assert (as_json.returncode, as_json.stdout.strip()) == (0, "[]"), as_json.stderr
    checked = _agentforge("tools", "check", TOOLLESS)
    assert checked.returncode == 0, checked.stderr
    assert "0 tools" in checked.stdout
