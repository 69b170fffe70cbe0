"""``agentforge resources list|read`` and ``agentforge prompts list|get`` against real
servers: one of the test's own written with the official SDK (``surface_server.py``), in
both protocol eras, whose objects ``--format json`` prints as the SDK's own client reads
them; and the reference server-everything. Refusals have the exit codes of docs/cli.md:
a server's refusal 1, an unknown prompt, a missing argument or no MCP target 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentforge_cli.integrations.mcp.client.options import HEADERS_VAR, TIMEOUT_VAR

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
SURFACE = f"mcp:{sys.executable} {HERE / 'surface_server.py'} stdio"
EVERYTHING = (Path(sys.prefix) / "node" / "node_modules" / "@modelcontextprotocol"
              / "server-everything" / "dist" / "index.js")


def agentforge(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", TIMEOUT_VAR,
                                  HEADERS_VAR)}
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=ROOT,
                          env=environment, timeout=120, stdin=subprocess.DEVNULL)


async def _sdk_surface() -> dict[str, Any]:
    """What the official SDK's client lists of ``surface_server.py``, as JSON."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    def dump(items: list[Any]) -> list[dict[str, Any]]:
        return [item.model_dump(mode="json", by_alias=True, exclude_none=True)
                for item in items]

    server = StdioServerParameters(command=sys.executable,
                                   args=[str(HERE / "surface_server.py"), "stdio"])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return {"resources": dump((await session.list_resources()).resources),
                "resourceTemplates": dump(
                    (await session.list_resource_templates()).resource_templates),
                "prompts": dump((await session.list_prompts()).prompts)}


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_lists_print_the_protocols_objects_as_the_sdk_reads_them(era: str) -> None:
    expected = anyio.run(_sdk_surface)
    resources = agentforge("resources", "list", SURFACE, "--format", "json",
                           "--protocol-era", era)
    assert resources.returncode == 0, resources.stderr
    assert json.loads(resources.stdout) == {
        "resources": expected["resources"], "resourceTemplates": expected["resourceTemplates"]}
    prompts = agentforge("prompts", "list", SURFACE, "--format", "json", "--protocol-era", era)
    assert json.loads(prompts.stdout) == expected["prompts"]


def test_the_tables_name_each_resource_template_and_prompt() -> None:
    resources = agentforge("resources", "list", SURFACE)
    assert resources.stdout == (
        "[memo://greeting] greeting (text/plain)\n  A greeting\n"
        "[memo://farewell] farewell (text/plain)\n"
        "templates:\n[memo://notes/{topic}] note (text/plain)\n  A note on a topic\n")
    prompts = agentforge("prompts", "list", SURFACE)
    assert prompts.stdout == ("[review] Reviews code\n"
                              "  arguments: code (required), language (optional)\n"
                              "[hello] Says hello\n")


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_resource_is_read_and_a_prompt_got(era: str) -> None:
    read = agentforge("resources", "read", "memo://notes/tea", "-t", SURFACE,
                      "--protocol-era", era)
    assert (read.returncode, read.stdout) == (
        0, "[resource memo://notes/tea, text/plain]\na note on tea\n"), read.stderr
    as_json = agentforge("resources", "read", "memo://greeting", "-t", SURFACE, "-f", "json",
                         "--protocol-era", era)
    assert json.loads(as_json.stdout)["contents"] == [
        {"uri": "memo://greeting", "mimeType": "text/plain", "text": "hello from the server"}]
    got = agentforge("prompts", "get", "review", '{"code": "x = 1"}', "-t", SURFACE,
                     "--protocol-era", era)
    assert (got.returncode, got.stdout) == (0, "[user] Review this python code:\nx = 1\n")
    document = json.loads(agentforge("prompts", "get", "hello", "-t", SURFACE, "-f",
                                     "json").stdout)
    assert document["messages"] == [{"role": "user",
                                     "content": {"type": "text", "text": "Say hello"}}]


def test_refusals_have_the_documented_exit_codes() -> None:
    unknown = agentforge("resources", "read", "memo://nope", "-t", SURFACE)
    assert unknown.returncode == 1
    assert "refused resources/read memo://nope: Unknown resource: memo://nope" in unknown.stderr
    typo = agentforge("prompts", "get", "reveiw", '{"code": "x"}', "-t", SURFACE)
    assert typo.returncode == 2 and 'Unknown prompt "reveiw". Did you mean: review?' in typo.stderr
    missing = agentforge("prompts", "get", "review", "-t", SURFACE)
    assert missing.returncode == 2 and 'prompt "review" needs the argument code' in missing.stderr
    not_text = agentforge("prompts", "get", "review", '{"code": 1}', "-t", SURFACE)
    assert not_text.returncode == 2 and "JSON object of strings" in not_text.stderr
    python = agentforge("prompts", "list", "sample_tools.crm:CrmTools")
    assert python.returncode == 2 and "served by MCP servers" in python.stderr
    bad_format = agentforge("resources", "list", SURFACE, "--format", "yaml")
    assert bad_format.returncode == 2


def test_server_everything_resources_and_prompts() -> None:
    node = shutil.which("node")
    if node is None or not EVERYTHING.exists():
        pytest.fail("node or server-everything is missing: run make install")
    target = f"mcp:{node} {EVERYTHING} stdio"
    listed = json.loads(agentforge("resources", "list", target, "-f", "json").stdout)
    assert "demo://resource/static/document/architecture.md" in {
        resource["uri"] for resource in listed["resources"]}
    assert listed["resourceTemplates"]
    prompts = {prompt["name"] for prompt in
               json.loads(agentforge("prompts", "list", target, "-f", "json").stdout)}
    assert {"simple-prompt", "args-prompt"} <= prompts
    got = agentforge("prompts", "get", "args-prompt", '{"city": "Oslo"}', "-t", target)
    assert (got.returncode, got.stdout) == (0, "[user] What's weather in Oslo?\n")
