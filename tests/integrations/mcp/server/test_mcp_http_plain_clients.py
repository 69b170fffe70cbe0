"""``serve --transport http`` with a plain keep-alive client (``http.client``), as a script
that speaks MCP without an SDK would use it, and with the official SDK client.

Each answer is read to its end and the next request goes on the same connection. A
plain ``tools/call`` is answered by ``PlainCalls``; the same call with ``_meta`` in its
params goes through the SDK, and both answers must be the same, for every protocol
version the handshake offers. The server is the installed command on a free loopback
port, started and stopped here (``Served``); every wait is bounded.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError
from test_mcp_http import Served, session_run

BOUND = 30.0
ACCEPT = "application/json, text/event-stream"


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    server = Served()
    try:
        yield server
    finally:
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err


class KeepAlive:
    """One MCP session over one ``http.client`` keep-alive connection."""

    def __init__(self, url: str, version: str = "2025-06-18") -> None:
        parts = urlsplit(url)
        self.path = parts.path
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port,
                                                     timeout=BOUND)
        self.headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        self.version = version
        response, answer = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                      "params": {"protocolVersion": version,
                                                 "capabilities": {},
                                                 "clientInfo": {"name": "plain",
                                                                "version": "0"}}})
        assert answer["result"]["protocolVersion"] == version
        self.session = response.getheader("mcp-session-id")
        self.headers |= {"Mcp-Session-Id": self.session, "Mcp-Protocol-Version": version}
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.socket = self.connection.sock

    def __enter__(self) -> KeepAlive:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.connection.close()

    def post(self, message: dict[str, Any], method: str = "POST"
             ) -> tuple[http.client.HTTPResponse, Any]:
        """Send ``message``; the response and its JSON-RPC message (``None``: no body),
        the body read to its end."""
        self.connection.request(method, self.path, json.dumps(message), self.headers)
        response = self.connection.getresponse()
        body = response.read()
        assert not response.will_close
        if not body:
            return response, None
        if response.getheader("content-type", "").startswith("text/event-stream"):
            [data] = [line[5:] for line in body.decode().splitlines()
                      if line.startswith("data:") and line[5:].strip()]
            return response, json.loads(data)
        return response, json.loads(body)

    def call(self, request_id: int | str, name: str, arguments: dict[str, Any],
             through_sdk: bool = False) -> tuple[http.client.HTTPResponse, Any]:
        """``tools/call``; ``through_sdk``: with ``_meta`` in the params, which the SDK
        answers."""
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if through_sdk:
            params["_meta"] = {}
        return self.post({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                          "params": params})


def test_sequential_calls_on_one_connection_each_end_in_one_json_body(served: Served) -> None:
    with KeepAlive(served.url) as client:
        for index in range(1, 11):
            response, answer = client.call(index, "add", {"a": index, "b": 2})
            assert response.status == 200
            assert response.getheader("content-type") == "application/json"
            assert response.getheader("content-length") is not None
            assert response.getheader("mcp-session-id") == client.session
            assert answer == {"jsonrpc": "2.0", "id": index, "result": {
                "content": [{"type": "text", "text": str(index + 2)}], "isError": False}}
            assert client.connection.sock is client.socket  # not reopened


CALLS = [
    ("add", {"a": 1, "b": 2}),
    ("add", {"a": 1}),
    ("add", {"a": "1", "b": "x"}),
    ("reading", {"city": "Oslo"}),
    ("reading", {"city": "Oslo", "broken": True}),
    ("stock", {"sku": "TEA-001"}),
    ("point", {}),
    ("countdown", {"start": 3}),
    ("explode", {"reason": "on purpose"}),
    ("getPrice", {"sku": "TEA-001", "quantity": "3"}),
    ("findProducts", {"keyword": "茶"}),
]


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_a_plain_call_is_answered_as_the_sdk_answers_it(served: Served, version: str) -> None:
    with KeepAlive(served.url, version) as client:
        for index, (name, arguments) in enumerate(CALLS):
            plain = client.call(index, name, arguments)[1]
            sdk = client.call(f"sdk-{index}", name, arguments, through_sdk=True)[1]
            assert (plain["id"], sdk["id"]) == (index, f"sdk-{index}")
            assert plain["result"] == sdk["result"], (name, arguments)


def test_an_unknown_tool_is_the_sdks_protocol_error(served: Served) -> None:
    with KeepAlive(served.url) as client:
        response, answer = client.call(1, "nope", {})
        assert response.status == 200
        assert answer["error"]["code"] == -32602
        assert "nope" in answer["error"]["message"]


def _cancel_until_answered(url: str, session: str, version: str, request_id: int,
                           done: threading.Event) -> None:
    """Send ``notifications/cancelled`` for ``request_id`` until its call is answered (it
    may not have arrived yet), at most :data:`BOUND` seconds."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=BOUND)
    deadline = time.monotonic() + BOUND
    try:
        while not done.wait(0.05) and time.monotonic() < deadline:
            connection.request("POST", parts.path, json.dumps({
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": request_id, "reason": "the test"}}),
                {"Content-Type": "application/json", "Accept": ACCEPT,
                 "Mcp-Session-Id": session, "Mcp-Protocol-Version": version})
            response = connection.getresponse()
            response.read()
            assert response.status == 202
    finally:
        connection.close()


@pytest.mark.parametrize("through_sdk", [False, True])
def test_a_cancelled_call_is_answered_request_cancelled(served: Served,
                                                        through_sdk: bool) -> None:
    with KeepAlive(served.url) as client:
        done = threading.Event()
        canceller = threading.Thread(target=_cancel_until_answered, args=(
            served.url, client.session, client.version, 5, done))
        canceller.start()
        try:
            _, answer = client.call(5, "wait_for_signal", {"seconds": BOUND},
                                    through_sdk=through_sdk)
        finally:
            done.set()
            canceller.join(BOUND)
        assert answer == {"jsonrpc": "2.0", "id": 5,
                          "error": {"code": -32800, "message": "Request cancelled"}}
        # the tool's thread is still waiting: release it; the session goes on
        assert client.call(6, "send_signal", {})[1]["result"]["content"][0]["text"] == "sent"
        assert client.connection.sock is client.socket


def test_a_deleted_session_is_not_found_for_plain_calls_either(served: Served) -> None:
    with KeepAlive(served.url) as client:
        assert client.call(1, "add", {"a": 1, "b": 1})[1]["result"]["isError"] is False
        response, _ = client.post({}, method="DELETE")
        assert response.status == 200
        response, answer = client.call(2, "add", {"a": 1, "b": 1})
        assert response.status == 404
        assert answer["error"]["message"] == "Session not found"


def test_the_official_client_calls_one_after_another_and_many_at_once(served: Served) -> None:
    async def body(session: ClientSession) -> Any:
        structured = await session.call_tool("reading", {"city": "Oslo"})
        results: dict[int, Any] = {}

        async def add(index: int) -> None:
            results[index] = await session.call_tool("add", {"a": index, "b": 1})

        async with anyio.create_task_group() as group:
            for index in range(30):
                group.start_soon(add, index)
        with pytest.raises(MCPError, match="nope"):
            await session.call_tool("nope", {})
        return structured, results

    _, (structured, results) = session_run(served.url, body)
    assert structured.is_error is False
    assert structured.structured_content["city"] == "Oslo"  # checked by the client
    assert {index: result.content[0].text for index, result in results.items()} == {
        index: str(index + 1) for index in range(30)}
