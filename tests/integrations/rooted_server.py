"""An MCP server written with the official SDK's low-level ``Server`` whose very tool list
depends on what the client answers: while listing its tools it asks the client for its
roots (``roots/list``) and for a name (``elicitation/create``), and lists one tool per
root, ``in_<directory name>``, and ``for_<name>`` when the client answered with one. So a
command that only lists (``tools check``, a snapshot) shows whether ``--root`` and
``--elicit`` reached the server. Each tool answers its own name.

``python rooted_server.py`` serves over stdio, in the initialize era only (in the 2026-07-28
one a listing has no channel for the server's requests).
"""

import re

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server

_EMPTY = {"type": "object", "properties": {}}
_NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def _tool(name: str, description: str) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=_EMPTY)


def _plain(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


async def list_tools(ctx, params) -> types.ListToolsResult:
    listed = await ctx.session.list_roots()
    tools = [_tool("in_" + _plain(str(root.uri).rstrip("/").rsplit("/", 1)[-1]),
                   f"A tool for the root {root.uri}") for root in listed.roots]
    answer = await ctx.session.elicit("Who is this for?", _NAME)
    if answer.action == "accept" and answer.content:
        tools.append(_tool("for_" + _plain(str(answer.content["name"])),
                           "A tool for the person named"))
    return types.ListToolsResult(tools=tools)


async def call_tool(ctx, params) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])


server = Server("rooted", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    """The SDK's handshake-only loop (what its streamable-HTTP manager runs for sessions of
    the initialize era): a client's server/discover is refused as by servers of 2025-11-25
    and older, and every client falls back to initialize."""
    async with stdio_server() as (read, write), server.lifespan(server) as state:
        await serve_loop(server, read, write, lifespan_state=state,
                         init_options=server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
