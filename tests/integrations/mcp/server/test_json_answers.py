"""``JsonAnswers``: an answer that streams nothing goes out as one JSON body; one that
streams stays an event stream, closed right after its last event.

The app behind it is the SDK's own streamable HTTP server (a low-level ``Server`` whose
tool reports progress when the call asks for it), served by uvicorn in a thread on a
free loopback port and driven by ``http.client`` on one keep-alive connection: each
answer is read to its end and the connection is used again.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from agentforge_cli.integrations.mcp.server.json_answers import (
    JsonAnswers,
    accepts,
    lone_response,
)
from agentforge_cli.integrations.mcp.server.streamable_http import bind_socket

BOUND = 30.0
VERSION = "2025-06-18"
ACCEPT = "application/json, text/event-stream"


def progress_server() -> Any:
    """The SDK's app: one tool, ``step``, that reports progress (when asked) and answers."""
    from mcp import types
    from mcp.server import Server, ServerRequestContext
    from mcp.server.transport_security import TransportSecuritySettings

    async def on_list_tools(ctx: ServerRequestContext, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool(name="step", input_schema={
            "type": "object"})])

    async def on_call_tool(ctx: ServerRequestContext, params: Any) -> Any:
        await ctx.session.report_progress(1, 2, "half way")
        return types.CallToolResult(content=[types.TextContent(type="text", text="done")])

    server = Server("progress", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    return server.streamable_http_app(transport_security=TransportSecuritySettings(
        enable_dns_rebinding_protection=False))


class Threaded:
    """``JsonAnswers`` in front of :func:`progress_server`, served in a thread."""

    def __init__(self) -> None:
        self.sock = bind_socket("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(JsonAnswers(progress_server()), log_config=None,
                                lifespan="on", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run,
                                       kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + BOUND
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(BOUND)
        self.sock.close()
        assert not self.thread.is_alive()


@pytest.fixture(scope="module")
def served() -> Iterator[Threaded]:
    server = Threaded()
    try:
        yield server
    finally:
        server.stop()


class Client:
    """One session on one keep-alive connection; each answer read to its end."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=BOUND)
        self.headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        response, _ = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {},
            "clientInfo": {"name": "plain", "version": "0"}}})
        self.headers |= {"Mcp-Session-Id": response.getheader("mcp-session-id"),
                         "Mcp-Protocol-Version": VERSION}
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.socket = self.connection.sock

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.connection.close()

    def post(self, message: dict[str, Any]) -> tuple[http.client.HTTPResponse, bytes]:
        self.connection.request("POST", "/mcp", json.dumps(message), self.headers)
        response = self.connection.getresponse()
        body = response.read()
        assert not response.will_close
        return response, body

    def call(self, request_id: int, meta: dict[str, Any] | None = None
             ) -> tuple[http.client.HTTPResponse, bytes]:
        params: dict[str, Any] = {"name": "step", "arguments": {}}
        if meta is not None:
            params["_meta"] = meta
        return self.post({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                          "params": params})


def events(body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an event stream, in order."""
    return [json.loads(line[5:]) for line in body.decode().splitlines()
            if line.startswith("data:") and line[5:].strip()]


def test_an_answer_that_streams_nothing_is_one_json_body(served: Threaded) -> None:
    with Client(served.port) as client:
        for request_id in range(1, 4):
            response, body = client.call(request_id)
            assert response.status == 200
            assert response.getheader("content-type") == "application/json"
            assert int(response.getheader("content-length")) == len(body)
            assert response.getheader("mcp-session-id") == client.headers["Mcp-Session-Id"]
            assert json.loads(body) == {"jsonrpc": "2.0", "id": request_id, "result": {
                "content": [{"type": "text", "text": "done"}], "isError": False}}
            assert client.connection.sock is client.socket  # the same connection, reused


def test_an_answer_that_streams_stays_a_stream_closed_after_its_last_event(
        served: Threaded) -> None:
    with Client(served.port) as client:
        response, body = client.call(7, meta={"progressToken": "p7"})
        assert response.getheader("content-type").startswith("text/event-stream")
        assert response.getheader("content-length") is None  # chunked, read to its end
        assert events(body) == [
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                "progressToken": "p7", "progress": 1.0, "total": 2.0, "message": "half way"}},
            {"jsonrpc": "2.0", "id": 7, "result": {
                "content": [{"type": "text", "text": "done"}], "isError": False}}]
        response, body = client.call(8)  # the next answer, on the same connection
        assert response.getheader("content-type") == "application/json"
        assert json.loads(body)["id"] == 8
        assert client.connection.sock is client.socket


def test_a_client_that_refuses_json_gets_the_stream(served: Threaded) -> None:
    with Client(served.port) as client:
        client.headers["Accept"] = "application/json;q=0, text/event-stream"
        response, body = client.call(3)
        assert response.getheader("content-type").startswith("text/event-stream")
        assert [message["id"] for message in events(body)] == [3]


def test_errors_and_acknowledgements_pass_untouched(served: Threaded) -> None:
    with Client(served.port) as client:
        response, body = client.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert (response.status, body) == (202, b"")
        client.headers["Mcp-Session-Id"] = "no-such-session"
        response, body = client.call(4)
        assert response.status == 404
        assert json.loads(body)["error"]["message"] == "Session not found"


@pytest.mark.parametrize(("block", "expected"), [
    (b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}',
     b'{"jsonrpc":"2.0","id":1,"result":{}}'),
    (b'data:{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"x"}}',
     b'{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"x"}}'),
    (b'data: {"jsonrpc":"2.0",\ndata: "id":1,"result":{}}',
     b'{"jsonrpc":"2.0",\n"id":1,"result":{}}'),
    (b'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}', None),
    (b'data: {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}', None),
    (b'data: {"jsonrpc":"2.0","id":1,"result":{},"error":{}}', None),
    (b"data: [1, 2]", None),
    (b"data: not json", None),
    (b": ping - 2026-12-06 10:00:00", None),
    (b'id: 5\ndata: {"jsonrpc":"2.0","id":1,"result":{}}', None),
    (b'event: other\ndata: {"jsonrpc":"2.0","id":1,"result":{}}', None),
    (b"event: message", None),
    (b"data", None),
])
def test_only_a_lone_response_becomes_a_json_body(block: bytes, expected: bytes | None) -> None:
    assert lone_response(block) == expected


@pytest.mark.parametrize(("header", "expected"), [
    (b"application/json, text/event-stream", (True, True)),
    (b"text/event-stream, application/json;q=0.5", (True, True)),
    (b"*/*", (True, True)),
    (b"application/*", (True, False)),
    (b"text/event-stream", (False, True)),
    (b"application/json;q=0, text/event-stream", (False, True)),
    (b"application/json; q=0.0", (False, False)),
    (b"", (False, False)),
])
def test_accept_headers(header: bytes, expected: tuple[bool, bool]) -> None:
    assert accepts({"headers": [(b"accept", header)]}) == expected
