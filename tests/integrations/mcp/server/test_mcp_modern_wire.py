"""What ``serve`` answers on the wire in the stateless 2026-07-28 revision, one row of
docs/mcp.md's feature table each: ``server/discover``, ``resultType`` and ``serverInfo`` on
every result, ``ttlMs``/``cacheScope`` on the cacheable ones, the methods the revision
removed, an unsupported version, a deterministic tool order, no log notifications, and
over HTTP no session, no ``GET`` stream and headers checked against the body."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp_client_support import TIMEOUT, RawServer, request, serving_http

MODERN = "2026-07-28"
TOOLS = '''
import logging
from agentforge_cli import tool, resource, prompt

@tool
def zeta(a: int) -> int:
    """Declared first."""
    logging.getLogger("zeta").warning("zeta was called")
    return a

@tool
def alpha(a: int, b: int) -> int:
    """Declared second."""
    return a + b

@resource("memo://greeting", mime_type="text/plain")
def greeting() -> str:
    """A greeting."""
    return "hello"

@resource("memo://notes/{topic}")
def note(topic: str) -> str:
    """A note."""
    return topic

@prompt
def review(code: str) -> str:
    """Reviews code."""
    return code
'''
CLIENT = {"io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": {"name": "wire-test", "version": "1"},
          "io.modelcontextprotocol/clientCapabilities": {}}
CACHEABLE = {"server/discover": {}, "tools/list": {}, "resources/list": {},
             "resources/templates/list": {}, "prompts/list": {}, "resources/read": {"uri": "memo://greeting"}}
OTHERS = {"tools/call": {"name": "alpha", "arguments": {"a": 1, "b": 2}},
          "prompts/get": {"name": "review", "arguments": {"code": "x"}}}
REMOVED = ["ping", "logging/setLevel", "tasks/get", "tasks/list", "resources/subscribe"]


def _params(params: dict[str, Any], **meta: Any) -> dict[str, Any]:
    return {**params, "_meta": {**CLIENT, **meta}}


@pytest.fixture()
def tools(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(TOOLS, encoding="utf-8")
    return path


@pytest.fixture()
def stdio(tools: Path) -> Iterator[RawServer]:
    server = RawServer(str(tools))
    yield server
    server.close()


def test_every_result_says_complete_and_names_the_server(stdio: RawServer) -> None:
    for id, (method, params) in enumerate({**CACHEABLE, **OTHERS}.items()):
        stdio.send(request(id, method, _params(params)))
        result = stdio.reply(id)["result"]
        assert result["resultType"] == "complete", method
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "agentforge"
        cached = (result.get("ttlMs"), result.get("cacheScope"))
        assert cached == ((0, "private") if method in CACHEABLE else (None, None)), method


def test_discover_advertises_the_revision_and_what_is_served(stdio: RawServer) -> None:
    stdio.send(request(1, "server/discover", _params({})))
    result = stdio.reply(1)["result"]
    assert MODERN in result["supportedVersions"]
    assert set(result["capabilities"]) == {"tools", "resources", "prompts"}
    assert "logging" not in result["capabilities"]


def test_removed_methods_are_unknown(stdio: RawServer) -> None:
    for id, method in enumerate(REMOVED):
        stdio.send(request(id, method, _params({})))
        assert stdio.reply(id)["error"]["code"] == -32601, method


def test_no_subscriptions_are_offered(stdio: RawServer) -> None:
    """Nothing ``serve`` lists changes while it runs (``listChanged: false``), so
    ``subscriptions/listen`` is not a method of it."""
    stdio.send(request(1, "server/discover", _params({})))
    capabilities = stdio.reply(1)["result"]["capabilities"]
    assert capabilities["tools"] == {"listChanged": False}
    stdio.send(request(2, "subscriptions/listen",
                       _params({"notifications": {"toolsListChanged": True}})))
    assert stdio.reply(2)["error"]["code"] == -32601


def test_an_unsupported_version_is_refused_with_the_supported_ones(stdio: RawServer) -> None:
    params = _params({}, **{"io.modelcontextprotocol/protocolVersion": "2099-01-01"})
    stdio.send(request(1, "tools/list", params))
    error = stdio.reply(1)["error"]
    assert error["code"] == -32022
    assert MODERN in error["data"]["supported"]


def test_tools_come_in_declaration_order_every_time(stdio: RawServer) -> None:
    orders = []
    for id in range(3):
        stdio.send(request(id, "tools/list", _params({})))
        orders.append([tool["name"] for tool in stdio.reply(id)["result"]["tools"]])
    assert orders == [["zeta", "alpha"]] * 3


def test_a_call_asking_for_logs_gets_only_its_result(tools: Path) -> None:
    """A tool's own ``logging`` goes to standard error, never as ``notifications/message``,
    whatever ``logLevel`` the request asks for; a trace context is accepted."""
    stdio = RawServer(str(tools))
    params = _params({"name": "zeta", "arguments": {"a": 4}},
                     **{"io.modelcontextprotocol/logLevel": "debug",
                        "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"})
    stdio.send(request(7, "tools/call", params))
    assert stdio.reply(7)["result"]["structuredContent"] == 4
    assert [message.get("id") for message in stdio.received] == [7]
    stderr, _ = stdio.close()
    assert "zeta was called" in stderr


def _post(url: str, method: str, params: dict[str, Any], **headers: str) -> httpx.Response:
    sent = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": MODERN,
            "Mcp-Method": method, **headers}
    return httpx.post(url, content=json.dumps(request(1, method, _params(params))),
                      headers={"Content-Type": "application/json", **sent}, timeout=TIMEOUT)


def test_http_has_no_session_no_stream_and_checks_its_headers(tools: Path) -> None:
    with serving_http(tools) as url:
        listed = _post(url, "tools/list", {})
        assert listed.status_code == 200
        assert "mcp-session-id" not in listed.headers
        assert listed.json()["result"]["resultType"] == "complete"
        called = _post(url, "tools/call", {"name": "alpha", "arguments": {"a": 1, "b": 2}},
                       **{"Mcp-Name": "alpha"})
        assert called.json()["result"]["structuredContent"] == 3
        mismatched = _post(url, "tools/call", {"name": "alpha", "arguments": {"a": 1, "b": 2}},
                           **{"Mcp-Name": "zeta"})
        assert mismatched.status_code == 400
        assert mismatched.json()["error"]["code"] == -32020
        stream = httpx.get(url, headers={"Accept": "text/event-stream",
                                         "MCP-Protocol-Version": MODERN}, timeout=TIMEOUT)
        assert stream.status_code == 405
