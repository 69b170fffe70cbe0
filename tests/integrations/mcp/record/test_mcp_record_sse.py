"""``agentforge record --url`` in front of a server of the older HTTP+SSE transport (the
SDK's own ``sse_app``, ``sse_server.py``): the client's messages go to the path the
stream's ``endpoint`` event names, which the proxy rewrites to itself and records, so the
session replays matched against the server.

The server and the proxy are started by the test on 127.0.0.1 and stopped by it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp_client_support import HERE
from test_mcp_record_http import BOUND, logged, record, replay, running


def sse_session(url: str) -> dict[str, Any]:
    """What the SDK's HTTP+SSE client gets from ``url``: the tools and two calls."""
    async def main() -> dict[str, Any]:
        with anyio.fail_after(BOUND):
            async with sse_client(url) as (read, write), ClientSession(read, write) as mcp:
                await mcp.initialize()
                tools = await mcp.list_tools()
                echoed = await mcp.call_tool("echo", {"text": "über"})
                added = await mcp.call_tool("add", {"a": 2, "b": 40})
                return {"tools": [tool.name for tool in tools.tools],
                        "echo": echoed.model_dump(), "add": added.model_dump()}
    return anyio.run(main)


def test_a_legacy_sse_session_is_recorded_and_replays(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    with running([sys.executable, str(HERE / "sse_server.py")], "listening on ") as server:
        proxy = record(server.url, log)
        try:
            assert urlsplit(proxy.url).path == "/sse"
            through = sse_session(proxy.url)
        finally:
            code, out, err = proxy.stop()
        assert (code, out) == (0, ""), err
        assert through == sse_session(server.url)
        assert through["add"]["content"][0]["text"] == "42"
        entries = logged(log)
        sent = [e["message"].get("method") for e in entries
                if e["direction"] == "client_to_server"]
        assert sent == ["initialize", "notifications/initialized", "tools/list",
                        "tools/call", "tools/call"]
        answered = [e["message"]["id"] for e in entries
                    if e["direction"] == "server_to_client" and "id" in e["message"]]
        assert len(answered) == 4
        assert "not JSON-RPC" not in err
        code, report = replay(log, server.url)
    assert code == 0, report
    assert report["summary"]["matched"] == 2 and sum(report["summary"].values()) == 2


def test_an_absolute_endpoint_is_pointed_at_the_proxy(tmp_path: Path) -> None:
    from agentforge_cli.integrations.mcp.record.http_proxy import RecordingProxy, _Endpoint
    from agentforge_cli.integrations.mcp.record.stdio_proxy import SessionLog

    log = SessionLog(tmp_path / "log.jsonl")
    proxy = RecordingProxy("http://127.0.0.1:9/sse", log)
    log.close()
    stream = _Endpoint(proxy, "http://127.0.0.1:9/sse")
    first = b": ping\n\nevent: endpoint\ndata: http://127.0.0.1:9/msg?session_id=ab"
    assert stream.feed(first) == b": ping\n\n"  # the endpoint held until it is whole
    rest = b'\n\nevent: message\ndata: {"jsonrpc": "2.0"}\n\n'
    assert stream.feed(rest[:3]) == b"event: endpoint\r\ndata: /msg?session_id=ab\r\n\r\ne"
    assert stream.feed(rest[3:]) == rest[3:]  # then everything passes as it comes
    assert proxy.endpoints == {"/msg"}
