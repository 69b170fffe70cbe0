"""Every field of a tool reaches the client: an MCP server's tool served again (``serve
'mcp:...'``) keeps its ``title``, ``icons``, ``_meta``, ``annotations`` and ``execution``
(seen by the official SDK's client), and ``tools list --format mcp|json`` shows them."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

from mcp_client_support import AGENTFORGE, HERE, ROOT, serve, server_env

DECORATED = f"mcp:{sys.executable} {HERE / 'decorated_server.py'}"


def _listed(*args: str) -> str:
    done = subprocess.run([str(AGENTFORGE), "tools", "list", *args], capture_output=True,
                          text=True, cwd=ROOT, env=server_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_tools_list_shows_icons_and_meta() -> None:
    entry, _ = json.loads(_listed("--format", "mcp", DECORATED))["tools"]
    assert entry["icons"] == [{"src": "https://example.com/brush.png",
                               "mimeType": "image/png", "sizes": ["48x48"]}]
    assert entry["_meta"] == {"com.example/owner": "decorators", "com.example/cost": 3}
    assert entry["title"] == "Paint a wall"
    row, _ = json.loads(_listed("--format", "json", "--protocol-era", "legacy", DECORATED))
    assert row["icons"] == entry["icons"] and row["meta"] == entry["_meta"]
    assert row["execution"] == {"taskSupport": "optional"}


def test_a_served_again_tool_keeps_every_field(tmp_path: Path) -> None:
    with contextmanager(serve)(["serve", "--protocol-era", "legacy",
                                DECORATED], tmp_path, str(AGENTFORGE)) as remote:
        tool, _ = remote.run(remote.session.list_tools).tools
        assert tool.title == "Paint a wall"
        assert [icon.src for icon in tool.icons] == ["https://example.com/brush.png"]
        assert tool.meta == {"com.example/owner": "decorators", "com.example/cost": 3}
        assert tool.annotations.idempotent_hint is True
        assert tool.execution is not None and tool.execution.task_support == "optional"
        assert remote.text(remote.call("paint", {"colour": "teal"})) == "painted teal"


PAINTER = '''
from agentforge_cli import tool

@tool(title="Paint a wall", icons=[{"src": "data:image/png;base64,AAAA",
                                    "mimeType": "image/png"}],
      meta={"com.example/owner": "painters"})
def paint(colour: str) -> str:
    """Paints a wall."""
    return f"painted {colour}"
'''


def test_a_python_tool_declares_its_title_icons_and_meta(tmp_path: Path) -> None:
    module = tmp_path / "painter.py"
    module.write_text(PAINTER, encoding="utf-8")
    with contextmanager(serve)(["serve", str(module)], tmp_path,
                               str(AGENTFORGE)) as remote:
        (tool,) = remote.run(remote.session.list_tools).tools
        assert tool.title == "Paint a wall"
        assert [(icon.src, icon.mime_type) for icon in tool.icons] == [
            ("data:image/png;base64,AAAA", "image/png")]
        assert tool.meta == {"com.example/owner": "painters"}
    (row,) = json.loads(_listed("--format", "json", str(module)))
    assert row["meta"] == {"com.example/owner": "painters"}


def test_bad_icons_or_meta_are_refused_when_declared() -> None:
    import pytest

    from agentforge_cli import tool

    with pytest.raises(TypeError, match="icons"):
        tool(icons=[{"mimeType": "image/png"}])
    with pytest.raises(TypeError, match="meta"):
        tool(meta={1: "x"})  # type: ignore[dict-item]  # the wrong key type, on purpose


def _read_unknown_resource(modern: bool) -> int:
    """The error code ``serve`` answers ``resources/read`` of an unknown URI with, to the
    SDK's client in a session of either era."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError
    from mcp_client_support import client_env

    params = StdioServerParameters(command=str(AGENTFORGE), cwd=str(ROOT), env=client_env(),
                                   args=["serve", "sample_tools.crm:CrmTools"])

    async def main() -> int:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), \
                    ClientSession(read, write) as session:
                await (session.discover() if modern else session.initialize())
                try:
                    await session.read_resource("file:///nowhere.txt")
                except MCPError as exc:
                    return exc.code
        raise AssertionError("an unknown resource was read")
    return anyio.run(main)


def test_an_unknown_resource_is_invalid_params_from_2026_07_28_on() -> None:
    assert _read_unknown_resource(modern=True) == -32602
    assert _read_unknown_resource(modern=False) == -32002


def test_a_result_that_breaks_its_output_schema_is_one_line_exit_1() -> None:
    done = subprocess.run([str(AGENTFORGE), "tools", "call", "count", "{}", "-t", DECORATED],
                          capture_output=True, text=True, cwd=ROOT, env=server_env(),
                          timeout=120)
    assert done.returncode == 1, done.stderr
    (line,) = (done.stdout + done.stderr).splitlines()
    assert line.startswith('Tool "count" returned structured content that breaks its '
                           'outputSchema at $.n (type: "integer"): "many many'), line
    assert line.endswith("...") and len(line) < 200
