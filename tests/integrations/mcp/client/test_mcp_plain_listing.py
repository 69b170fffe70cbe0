"""Listing a streamable-HTTP server without the SDK: the reference server-everything is
listed without importing ``mcp``, into exactly what the SDK's path gives; a call then
opens the SDK's session; the tool check never accepts what the SDK's types refuse or
change; a server that is not plain is listed through the SDK, and one that never
answers is waited for once."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_client_support import threaded_http_server
from reference_servers import everything_over_http

from agentforge_cli import ToolExecutionRequest
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.mcp.client import (
    plain_listing as mcp_plain_listing,
)
from agentforge_cli.integrations.mcp.client.lifecycle import close_all
from agentforge_cli.integrations.mcp.client.listing import _problem
from agentforge_cli.integrations.mcp.client.loading import load_mcp_tools, tool_specification
from agentforge_cli.integrations.mcp.client.options import McpOptions
from agentforge_cli.integrations.mcp.client.plain_listing import HANDSHAKE_VERSIONS, surely_valid

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def everything() -> Iterator[str]:
    """server-everything over streamable HTTP on a loopback port: its endpoint's URL."""
    with everything_over_http() as url:
        yield url


_LIST = ("import json, sys\n"
         "from pathlib import Path\n"
         "from agentforge_cli.integrations.mcp.client import loading as mcp_loading\n"
         "from agentforge_cli.integrations.mcp.client.options import McpOptions\n"
         "from agentforge_cli.integrations.mcp.client import plain_listing as mcp_plain_listing\n"
         "if sys.argv[2] == 'sdk':\n"
         "    mcp_plain_listing.list_tools_plainly = lambda *a, **k: None\n"
         "table = mcp_loading.load_mcp_tools(sys.argv[1], Path('.'),\n"
         "    options=McpOptions(on_skipped=lambda s: None))\n"
         "print(json.dumps({'mcp imported': 'mcp' in sys.modules, 'tools': [\n"
         "    [s.name, s.title, s.description, s.parameters, s.annotations, s.output_schema,\n"
         "     s.execution] for s in table]}))\n")


def _listed(url: str, path: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _LIST, url, path], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    listed: dict[str, Any] = json.loads(done.stdout)
    return listed


def test_everything_is_listed_without_the_sdk_into_what_the_sdk_gives(everything: str
                                                                       ) -> None:
    plain, sdk = _listed(everything, "plain"), _listed(everything, "sdk")
    assert plain["mcp imported"] is False
    assert sdk["mcp imported"] is True
    assert len(plain["tools"]) >= 10
    assert plain["tools"] == sdk["tools"]


def test_first_calls_after_a_plain_listing_open_the_sdks_session_once(everything: str
                                                                       ) -> None:
    """Four threads call at once: one opens the session, all four are answered."""
    table = load_mcp_tools(everything, ROOT,
                           options=McpOptions(on_skipped=lambda skipped: None))
    try:
        (echo,) = [executor for spec, executor in table.items() if spec.name == "echo"]
        results: list[Any] = [None] * 4

        def call(index: int) -> None:
            results[index] = echo.execute(ToolExecutionRequest(
                name="echo", arguments=json.dumps({"message": f"hi {index}"})))

        threads = [threading.Thread(target=call, args=(index,)) for index in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        for index, result in enumerate(results):
            assert not result.is_error and f"hi {index}" in result.text, result
        assert echo.connection._portal is not None
    finally:
        close_all()
    with pytest.raises(TargetError, match="is closed"):
        echo.execute(ToolExecutionRequest(name="echo", arguments='{"message": "late"}'))


def test_the_handshake_versions_are_the_sdks() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    assert HANDSHAKE_VERSIONS[-1] == LATEST_HANDSHAKE_VERSION


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
_SCHEMA = st.fixed_dictionaries(
    {"type": st.sampled_from(["object", "string"]) | _JSON},
    optional={"properties": st.dictionaries(st.text(max_size=4), st.booleans()
                                            | st.dictionaries(st.text(max_size=4), _JSON))
              | _JSON,
              "required": st.lists(st.text(max_size=4)) | _JSON,
              "$schema": st.text(max_size=5) | _JSON,
              "additionalProperties": _JSON}) | _JSON
_TOOL = st.fixed_dictionaries(
    {"name": st.text(max_size=6) | _JSON, "inputSchema": _SCHEMA},
    optional={"title": st.text(max_size=5) | _JSON,
              "description": st.text(max_size=5) | _JSON,
              "outputSchema": _SCHEMA,
              "annotations": st.dictionaries(
                  st.sampled_from(["title", "readOnlyHint", "destructiveHint",
                                   "idempotentHint", "openWorldHint", "other"]),
                  st.booleans() | _JSON) | _JSON,
              "execution": st.dictionaries(st.sampled_from(["taskSupport", "other"]),
                                           st.sampled_from(["forbidden", "optional",
                                                            "required", "always"]) | _JSON)
              | _JSON,
              "_meta": _JSON,
              "icons": _JSON}) | _JSON


_PLAIN_SCHEMA = st.fixed_dictionaries(
    {"type": st.just("object")},
    optional={"properties": st.dictionaries(st.text(max_size=4), st.booleans()
                                            | st.dictionaries(st.text(max_size=4), _JSON)),
              "required": st.lists(st.text(max_size=4)),
              "$schema": st.text(max_size=5),
              "additionalProperties": _JSON})
_PLAIN_TOOL = st.fixed_dictionaries(
    {"name": st.text(min_size=1, max_size=6), "inputSchema": _PLAIN_SCHEMA},
    optional={"title": st.text(max_size=5), "description": st.text(max_size=5),
              "outputSchema": _PLAIN_SCHEMA,
              "annotations": st.fixed_dictionaries({}, optional={
                  "title": st.text(max_size=5), "readOnlyHint": st.booleans(),
                  "destructiveHint": st.booleans(), "idempotentHint": st.booleans(),
                  "openWorldHint": st.booleans()}),
              "execution": st.fixed_dictionaries({}, optional={
                  "taskSupport": st.sampled_from(["forbidden", "optional", "required"])}),
              "_meta": st.dictionaries(st.text(max_size=4), _JSON)})
"""Tools the check should accept: what a plain server lists."""


@settings(max_examples=400, deadline=None)
@given(_PLAIN_TOOL | _TOOL)
def test_a_tool_the_check_accepts_the_sdk_accepts_and_keeps_whole(tool: Any) -> None:
    if not surely_valid(tool):
        return
    from mcp import types

    for version in HANDSHAKE_VERSIONS:
        assert _problem(tool, version) is None, version
    assert tool_specification(tool) == tool_specification(types.Tool.model_validate(tool))


@pytest.mark.parametrize("tool", [
    {"name": "a", "inputSchema": {"type": "object"}, "icons": []},
    {"name": "a", "inputSchema": {"type": "object"}, "title": None},
    {"name": "a", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}},
    {"name": "a", "inputSchema": {"properties": {}}},
    {"name": "", "inputSchema": {"type": "object"}},
    {"name": "a", "inputSchema": {"type": "object", "properties": {"x": 1}}},
    {"name": "a", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "always"}},
])
def test_anything_unusual_is_left_to_the_sdk(tool: dict[str, Any]) -> None:
    assert not surely_valid(tool)


_INITIALIZED = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "s", "version": "1"}}


@pytest.mark.parametrize("change", [
    {"protocolVersion": "2026-07-28"}, {"serverInfo": {"name": "s"}},
    {"capabilities": {"tools": True}}, {"instructions": 3}, {"capabilities": None},
])
def test_an_initialize_result_the_sdk_may_refuse_is_left_to_it(change: dict[str, Any]
                                                               ) -> None:
    from agentforge_cli.integrations.mcp.client.plain_listing import _plain_initialize

    assert _plain_initialize(_INITIALIZED)
    assert not _plain_initialize({**_INITIALIZED, **change})


@pytest.fixture
def odd_server(request: pytest.FixtureRequest) -> Iterator[str]:
    """A loopback HTTP server that answers every POST as the test says: ``"html"`` (a
    page, not MCP), ``"deep"`` (JSON nested 200 000 deep) or ``"silent"`` (nothing,
    ever)."""
    mode = request.param
    release = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            if mode == "silent":
                release.wait(30)
                return
            deep = mode == "deep"
            body = b"[" * 200_000 + b"]" * 200_000 if deep else b"<html>not here</html>"
            self.send_response(200)
            self.send_header("content-type", "application/json" if deep else "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with threaded_http_server(Handler) as base:
        try:
            yield f"{base}/mcp"
        finally:
            release.set()  # before the server's end, which waits for its threads


def _error(url: str, timeout: float = 5.0) -> TargetError:
    with pytest.raises(TargetError) as caught:
        load_mcp_tools(url, ROOT, timeout=timeout)
    return caught.value


@pytest.mark.parametrize("odd_server", ["html"], indirect=True)
def test_a_server_that_is_not_plain_gets_the_sdks_answer(
        odd_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    through_plain = _error(odd_server)
    monkeypatch.setattr(mcp_plain_listing, "list_tools_plainly", lambda *a, **k: None)
    through_sdk = _error(odd_server)
    assert through_plain.message == through_sdk.message


@pytest.mark.parametrize("odd_server", ["silent"], indirect=True)
def test_a_server_that_never_answers_is_waited_for_once(odd_server: str) -> None:
    started = time.monotonic()
    error = _error(odd_server, timeout=1.0)
    assert time.monotonic() - started < 1.9
    assert error.message == f"MCP server {odd_server} did not answer: no answer within 1 s"


class _PlainMcp(http.server.BaseHTTPRequestHandler):
    """Just enough streamable HTTP for a plain listing: one tool, JSON answers."""

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["content-length"])))
        results = {"initialize": {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "serverInfo": {"name": "plain", "version": "1"}},
                   "tools/list": {"tools": [{"name": "ping",
                                             "inputSchema": {"type": "object"}}]}}
        if "id" not in message:
            self.send_response(202)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"],
                           "result": results.get(message["method"], {})}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_DELETE(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_a_server_gone_after_a_plain_listing_is_named_at_every_call() -> None:
    """The SDK's session cannot open at the first call: that call and the next one say
    why (not that the connection is closed)."""
    with threaded_http_server(_PlainMcp) as base:
        table = load_mcp_tools(f"{base}/mcp", ROOT, timeout=2.0)
    try:
        ((spec, ping),) = table.items()
        assert spec.name == "ping"
        messages = []
        for _ in range(2):
            with pytest.raises(TargetError) as caught:
                ping.execute(ToolExecutionRequest(name="ping", arguments="{}"))
            messages.append(caught.value.message)
        assert all(message.startswith(f"MCP server {base}/mcp (protocol 2025-11-25) did not "
                                      "answer")
                   for message in messages), messages
    finally:
        close_all()


@pytest.mark.parametrize("odd_server", ["deep"], indirect=True)
def test_json_nested_too_deep_is_not_plain(odd_server: str) -> None:
    assert mcp_plain_listing.list_tools_plainly(odd_server, {}, 5.0, "0", 10) is None
