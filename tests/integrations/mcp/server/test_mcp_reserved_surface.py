"""Re-serving MCP servers (``serve 'mcp:...'``) passes their resources, resource templates
and prompts on, merged with those of the Python targets served beside them: listed, read
and got by the official SDK's client, in both eras, over stdio and streamable HTTP. The
upstreams are the SDK's own server (``surface_server.py``) and the reference
server-everything (Node); what a client reads through agentforge is what it reads from
the server itself, block for block."""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_client_support import AGENTFORGE, HERE, ROOT, TIMEOUT, announced_url

SURFACE = f"mcp:{sys.executable} {HERE / 'surface_server.py'} stdio"
LOCAL = str(HERE / "local_extras.py")
MODES = [("legacy", -32002), ("auto", -32602)]
EVERYTHING = (Path(sys.prefix) / "node" / "node_modules" / "@modelcontextprotocol"
              / "server-everything" / "dist" / "index.js")


def node() -> str:
    found = shutil.which("node")
    if found is None or not EVERYTHING.exists():
        pytest.fail("node or server-everything is missing: run make install")
    return found


def _env(**more: str) -> dict[str, str]:
    return {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "PATH": os.environ["PATH"],
            **more}


def _http(*args: str) -> Any:
    """``agentforge serve ARGS --transport http --port 0`` running: its URL."""
    return announced_url([str(AGENTFORGE), "serve", *args, "--transport", "http", "--port",
                          "0"], ROOT, env=_env())


@asynccontextmanager
async def _client(args: list[str], mode: str, url: str | None = None,
                  **options: Any) -> AsyncIterator[Client]:
    server: Any = url or StdioServerParameters(command=str(AGENTFORGE), args=["serve", *args],
                                               cwd=str(ROOT), env=_env())
    async with Client(server, mode=mode, **options) as client:
        yield client


def _dump(items: Any) -> Any:
    if isinstance(items, list):
        return [_dump(item) for item in items]
    return items.model_dump(mode="json", by_alias=True, exclude_none=True)


async def _surface(client: Client) -> dict[str, Any]:
    got: dict[str, Any] = {
        "resources": [r.uri for r in (await client.list_resources()).resources],
        "templates": [t.uri_template for t in
                      (await client.list_resource_templates()).resource_templates],
        "prompts": [p.name for p in (await client.list_prompts()).prompts],
        "greeting": _dump((await client.read_resource("memo://greeting")).contents),
        "note": _dump((await client.read_resource("memo://notes/tea")).contents),
        "motto": _dump((await client.read_resource("local://motto")).contents),
        "review": _dump((await client.get_prompt("review", {"code": "x = 1"})).messages),
        "plan": _dump((await client.get_prompt("plan", {"goal": "tea"})).messages),
    }
    return got | await _refusals(client)


async def _refusals(client: Client) -> dict[str, Any]:
    """How a client is refused an unknown resource, and a prompt without its argument."""
    got = {}
    for key, ask in (("unknown", client.read_resource("memo://nothing")),
                     ("bad prompt", client.get_prompt("review", {}))):
        with pytest.raises(MCPError) as refused:
            await ask
        got[key] = (refused.value.code, refused.value.message)
    return got


def _expected(refusals: dict[str, Any], not_found: int) -> dict[str, Any]:
    """What a client sees through agentforge: the upstream's refusals as it words them
    (its -32002 for an unknown resource as the session's code)."""
    unknown = refusals["unknown"]
    return {
        "resources": ["local://motto", "memo://greeting", "memo://farewell"],
        "templates": ["memo://notes/{topic}"],
        "prompts": ["plan", "review", "hello"],
        "greeting": [{"uri": "memo://greeting", "mimeType": "text/plain",
                      "text": "hello from the server"}],
        "note": [{"uri": "memo://notes/tea", "mimeType": "text/plain",
                  "text": "a note on tea"}],
        "motto": [{"uri": "local://motto", "mimeType": "text/plain", "text": "measure twice"}],
        "review": [{"role": "user", "content": {
            "type": "text", "text": "Review this python code:\nx = 1"}}],
        "plan": [{"role": "user", "content": {"type": "text", "text": "Plan: tea"}}],
        "unknown": (not_found if unknown[0] == -32002 else unknown[0], unknown[1]),
        "bad prompt": refusals["bad prompt"],
    }


async def _direct_refusals(upstream_mode: str) -> dict[str, Any]:
    server = StdioServerParameters(command=sys.executable,
                                   args=[str(HERE / "surface_server.py"), "stdio"],
                                   env=_env())
    async with Client(server, mode=upstream_mode) as client:
        return await _refusals(client)


@pytest.mark.parametrize(("mode", "not_found"), MODES)
@pytest.mark.parametrize("upstream_era", [(), ("--protocol-era", "legacy")],
                         ids=["upstream-auto", "upstream-legacy"])
def test_the_upstream_and_the_python_targets_are_merged_over_stdio(
        mode: str, not_found: int, upstream_era: tuple[str, ...]) -> None:
    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        with anyio.fail_after(TIMEOUT * 3):
            direct = await _direct_refusals("legacy" if upstream_era else "auto")
            async with _client([LOCAL, SURFACE, *upstream_era], mode) as client:
                return direct, await _surface(client)

    direct, got = anyio.run(main)
    assert got == _expected(direct, not_found)


@pytest.mark.parametrize(("mode", "not_found"), MODES)
def test_the_same_over_streamable_http(mode: str, not_found: int) -> None:
    async def main(url: str) -> tuple[dict[str, Any], dict[str, Any]]:
        with anyio.fail_after(TIMEOUT * 3):
            direct = await _direct_refusals("auto")
            async with _client([], mode, url) as client:
                return direct, await _surface(client)

    with _http(LOCAL, SURFACE) as url:
        direct, got = anyio.run(main, url)
    assert got == _expected(direct, not_found)


_TIME = re.compile(r"\d{1,2}:\d{2}:\d{2}\s?[AP]M")


async def _everything(client: Client) -> dict[str, Any]:
    """What a client reads of server-everything: every static resource, a text and a blob
    template instance, the prompt that embeds a resource (the time of day scrubbed)."""
    resources = (await client.list_resources()).resources
    got: dict[str, Any] = {
        "resources": _dump(resources),
        "templates": _dump((await client.list_resource_templates()).resource_templates),
        "prompts": _dump((await client.list_prompts()).prompts),
        "static": [_dump((await client.read_resource(r.uri)).contents) for r in resources],
        "text": _dump((await client.read_resource("demo://resource/dynamic/text/2")).contents),
        "blob": _dump((await client.read_resource("demo://resource/dynamic/blob/3")).contents),
        "embedded": _dump((await client.get_prompt(
            "resource-prompt", {"resourceType": "Text", "resourceId": "2"})).messages),
    }
    with pytest.raises(MCPError) as refused:
        await client.get_prompt("args-prompt", {})
    got["refused"] = refused.value.message
    blob = got["blob"][0]
    blob["blob"] = _TIME.sub("TIME", base64.b64decode(blob["blob"]).decode())
    return _scrubbed(got)


def _scrubbed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _scrubbed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrubbed(item) for item in value]
    return _TIME.sub("TIME", value) if isinstance(value, str) else value


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_server_everything_reads_the_same_through_agentforge(mode: str) -> None:
    upstream = [node(), str(EVERYTHING), "stdio"]

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        with anyio.fail_after(TIMEOUT * 4):
            direct_server = StdioServerParameters(command=upstream[0], args=upstream[1:])
            async with Client(direct_server, mode="legacy") as direct:
                seen = await _everything(direct)
            async with _client([f"mcp:{' '.join(upstream)}"], mode) as through:
                return seen, await _everything(through)

    direct, through = anyio.run(main)
    assert through == direct
    assert through["blob"][0]["blob"].startswith("Resource 3: This is a base64 blob")
    assert through["embedded"][1]["content"]["type"] == "resource"
    assert "expected string" in through["refused"]


def test_a_name_offered_by_two_targets_stops_serve_naming_both() -> None:
    done = subprocess.run([str(AGENTFORGE), "serve", LOCAL, SURFACE], cwd=ROOT,
                          env=_env(LOCAL_EXTRAS_CLASH="1"), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=TIMEOUT * 3)
    assert done.returncode == 3, done.stderr
    assert done.stdout == ""
    assert "Duplicated prompt 'hello': offered by the Python targets and by MCP server " \
           "`" in done.stderr, done.stderr
    assert "surface_server.py stdio` (protocol 2026-07-28)" in done.stderr
    assert "Traceback" not in done.stderr
