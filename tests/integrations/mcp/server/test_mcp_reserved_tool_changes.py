"""The tools of a server served again (``serve 'mcp:...'``) change while agentforge serves
them: the SDK's own server (``changing_server.py``) adds a tool when ``add_tool`` is
called and removes one on ``remove_tool``, saying so each time. The official SDK's client,
in a session of the handshake, hears ``notifications/tools/list_changed`` through
agentforge (over stdio and streamable HTTP), lists the new tool and calls it; once it is
removed, it is listed no more and a call to it is refused."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_client_support import AGENTFORGE, HERE, ROOT, TIMEOUT
from test_mcp_reserved_surface import _http

UPSTREAM = [f"mcp:{sys.executable} {HERE / 'changing_server.py'} stdio",
            "--protocol-era", "legacy"]
FIRST = ["add_prompt", "add_resource", "add_tool", "remove_tool"]


def _stdio(*targets: str) -> StdioServerParameters:
    return StdioServerParameters(command=str(AGENTFORGE), args=["serve", *targets, *UPSTREAM],
                                 cwd=str(ROOT), env={"PYTHONPATH": os.environ.get(
                                     "PYTHONPATH", ""), "PATH": os.environ["PATH"]})


class _Heard:
    """Counts ``notifications/tools/list_changed``; ``wait(n)`` until ``n`` came."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.count += 1
            self._changed.set()

    async def wait(self, count: int) -> None:
        while self.count < count:
            self._changed = anyio.Event()
            if self.count < count:
                await self._changed.wait()


async def _names(client: Any) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


async def _change(server: Any) -> dict[str, Any]:
    heard = _Heard()
    with anyio.fail_after(TIMEOUT * 3):
        async with Client(server, mode="legacy", message_handler=heard) as client:
            got: dict[str, Any] = {"first": await _names(client)}
            await client.call_tool("add_tool", {"name": "shout"})
            await heard.wait(1)
            got["added"] = await _names(client)
            answer = await client.call_tool("shout", {"text": "长路"})
            got["called"] = [block.text for block in answer.content]  # type: ignore[union-attr]
            await client.call_tool("remove_tool", {"name": "shout"})
            await heard.wait(2)
            got["removed"] = await _names(client)
            try:
                await client.call_tool("shout", {"text": "again"})
                got["refused"] = None
            except MCPError as exc:
                got["refused"] = exc.error.message
            got["heard"] = heard.count
            got["listChanged"] = client.server_capabilities.tools.list_changed  # type: ignore[union-attr]
    return got


def _expected(got: dict[str, Any]) -> None:
    assert got["first"] == FIRST
    assert got["added"] == [*FIRST, "shout"]
    assert got["called"] == ["shout: 长路"]
    assert got["removed"] == FIRST
    assert got["refused"] is not None and 'Unknown tool "shout"' in got["refused"]
    assert got["heard"] == 2


def test_a_client_on_stdio_hears_a_tool_come_and_go_and_calls_it() -> None:
    got = anyio.run(_change, _stdio())
    _expected(got)
    # the SDK's MCPServer tells of changes without declaring listChanged: nor does serve
    assert got["listChanged"] is False


def test_a_client_over_http_too() -> None:
    with _http(*UPSTREAM) as url:
        _expected(anyio.run(_change, url))


CLASHING = '''
from agentforge_cli import tool

@tool
def shout(text: str) -> str:
    """Answers in capitals."""
    return text.upper()
'''


async def _clash(params: StdioServerParameters, errlog: Any) -> dict[str, Any]:
    heard = _Heard()
    with anyio.fail_after(TIMEOUT * 3):
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write, message_handler=heard) as session:
            await session.initialize()
            await session.call_tool("add_tool", {"name": "shout"})
            await session.call_tool("add_tool", {"name": "whisper"})
            await heard.wait(2)
            names = [tool.name for tool in (await session.list_tools()).tools]
            shout = await session.call_tool("shout", {"text": "hi"})
            whisper = await session.call_tool("whisper", {"text": "hi"})
    return {"names": names, "shout": shout.content[0].text,  # type: ignore[union-attr]
            "whisper": whisper.content[0].text}  # type: ignore[union-attr]


def test_a_new_tool_another_target_already_serves_is_left_out_and_said(tmp_path: Path) -> None:
    module = tmp_path / "clashing_tools.py"
    module.write_text(CLASHING, encoding="utf-8")
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        got = anyio.run(_clash, _stdio(str(module)), errlog)
        errlog.seek(0)
        said = errlog.read()
    assert got == {"names": ["shout", *FIRST, "whisper"], "shout": "HI",
                   "whisper": "whisper: hi"}
    assert "tool 'shout' of MCP server" in said and "another target serves" in said
