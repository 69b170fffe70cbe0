"""The list changes of a server served again (``serve 'mcp:...'``) reach the clients of
agentforge: the SDK's own server (``changing_server.py``) adds a prompt or a resource when
a tool is called and says so; the official SDK's client, in a session of the handshake,
hears ``notifications/prompts/list_changed`` and ``notifications/resources/list_changed``
through agentforge, over stdio and streamable HTTP, and lists the new object."""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_client_support import AGENTFORGE, HERE, ROOT, TIMEOUT
from test_mcp_reserved_surface import _http

# the upstream speaks the handshake to agentforge: in 2026-07-28 a server tells of changes
# only on a subscriptions/listen stream
UPSTREAM = [f"mcp:{sys.executable} {HERE / 'changing_server.py'} stdio",
            "--protocol-era", "legacy"]


def _stdio() -> Any:
    return StdioServerParameters(command=str(AGENTFORGE), args=["serve", *UPSTREAM],
                                 cwd=str(ROOT), env={"PYTHONPATH": os.environ.get(
                                     "PYTHONPATH", ""), "PATH": os.environ["PATH"]})


async def _hear(server: Any, mode: str = "legacy") -> dict[str, Any]:
    heard: list[str] = []
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.PromptListChangedNotification
                      | types.ResourceListChangedNotification):
            heard.append(message.method)
            if len(heard) == 2:
                changed.set()

    with anyio.fail_after(TIMEOUT * 3):
        async with Client(server, mode=mode, message_handler=on_message) as client:
            capabilities = client.server_capabilities
            await client.call_tool("add_prompt", {"name": "second"})
            await client.call_tool("add_resource", {"name": "note"})
            if mode == "legacy":
                await changed.wait()
            return {"heard": sorted(heard),
                    "prompts": [p.name for p in (await client.list_prompts()).prompts],
                    "resources": [r.uri for r in (await client.list_resources()).resources],
                    "listChanged": (capabilities.prompts.list_changed,  # type: ignore[union-attr]
                                    capabilities.resources.list_changed)}  # type: ignore[union-attr]


HEARD = ["notifications/prompts/list_changed", "notifications/resources/list_changed"]


def test_a_client_on_stdio_hears_the_changes_and_lists_them() -> None:
    got = anyio.run(_hear, _stdio())
    # the SDK's MCPServer tells of changes without declaring listChanged: nor does serve
    assert got == {"heard": HEARD, "prompts": ["first", "second"],
                   "resources": ["memo://note"], "listChanged": (False, False)}


def test_a_client_over_http_hears_them_too() -> None:
    with _http(*UPSTREAM) as url:
        got = anyio.run(_hear, url)
    assert got["heard"] == HEARD and got["prompts"] == ["first", "second"]


@pytest.mark.parametrize("mode", ["auto"])
def test_a_2026_07_28_session_is_promised_no_notification_and_lists_the_change(
        mode: str) -> None:
    got = anyio.run(_hear, _stdio(), mode)
    assert got == {"heard": [], "prompts": ["first", "second"], "resources": ["memo://note"],
                   "listChanged": (False, False)}
