"""``PlainCalls`` alone, in front of a stand-in for the SDK's app that records what
reaches it: which requests it answers itself, and which it hands on untouched.

Driven through the ASGI interface directly (no server). Its answers are compared with
the SDK's own in ``test_mcp_http_plain_clients.py``.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from agentforge_cli import ToolService, build_local_tools, tool
from agentforge_cli.integrations.mcp.server.plain_calls import PlainCalls
from agentforge_cli.integrations.mcp.server.tool_server import ToolCalls

VERSION = "2025-06-18"
SESSION = "s1"


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return a + b


class StandIn:
    """Answers ``initialize`` as the SDK does in JSON (opening :data:`SESSION`), anything
    else ``202``; remembers each request's method and body."""

    def __init__(self, status: int = 202) -> None:
        self.seen: list[tuple[str, bytes]] = []
        self.status = status

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body = (await receive())["body"]
        self.seen.append((scope["method"], body))
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        if type(message) is dict and message.get("method") == "initialize":
            answer = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": message["params"]["protocolVersion"]}}).encode()
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"mcp-session-id", SESSION.encode()), (b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": answer[:10], "more_body": True})
            await send({"type": "http.response.body", "body": answer[10:]})
            return
        await send({"type": "http.response.start", "status": self.status, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def request(plain: PlainCalls, body: dict[str, Any] | bytes, *, method: str = "POST",
            path: str = "/mcp", **headers: str) -> tuple[int, dict[str, str], bytes]:
    """One request through ``plain``: the status, headers and body of the answer."""
    sent: list[dict[str, Any]] = []
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    given = {"content-type": "application/json",
             "accept": "application/json, text/event-stream",
             **{key.replace("_", "-"): value for key, value in headers.items()}}
    scope = {"type": "http", "method": method, "path": path, "headers": [
        (key.encode(), value.encode()) for key, value in given.items()]}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": data, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    anyio.run(plain, scope, receive, send)
    start, *bodies = sent
    return (start["status"], {k.decode(): v.decode() for k, v in start["headers"]},
            b"".join(part.get("body", b"") for part in bodies))


def opened(stand_in: StandIn, version: str = VERSION) -> PlainCalls:
    """PlainCalls in front of ``stand_in``, with :data:`SESSION` opened at ``version``."""
    plain = PlainCalls(stand_in, ToolCalls(ToolService().tools(build_local_tools([add]))),
                       "/mcp")
    status, _, _ = request(plain, {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                   "params": {"protocolVersion": version}})
    assert status == 200
    return plain


def call(arguments: Any = None, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "add", "arguments": arguments or {"a": 2, "b": 3}, **params}}


IN_SESSION = {"mcp_session_id": SESSION, "mcp_protocol_version": VERSION}


def test_a_plain_call_is_answered_here_as_json() -> None:
    stand_in = StandIn()
    plain = opened(stand_in)
    status, headers, body = request(plain, call(), **IN_SESSION)
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert headers["content-length"] == str(len(body))
    assert headers["mcp-session-id"] == SESSION
    assert json.loads(body) == {"jsonrpc": "2.0", "id": 7, "result": {
        "content": [{"type": "text", "text": "5"}], "isError": False}}
    assert [method for method, _ in stand_in.seen] == ["POST"]  # the initialize only


@pytest.mark.parametrize(("message", "headers"), [
    (call(_meta={"progressToken": 1}), IN_SESSION),  # progress may stream
    (call(task={"ttl": 10}), IN_SESSION),
    ({**call(), "params": {"name": "add"}}, IN_SESSION),
    (call(arguments=[1, 2]), IN_SESSION),
    ({**call(), "params": {"name": "nope", "arguments": {}}}, IN_SESSION),  # the SDK's error
    ({**call(), "id": None}, IN_SESSION),
    ({**call(), "id": 1.5}, IN_SESSION),
    ({**call(), "jsonrpc": "1.0"}, IN_SESSION),
    ({**call(), "method": "tools/list"}, IN_SESSION),
    ([call()], IN_SESSION),
    (call(), {"mcp_session_id": SESSION}),  # no version header
    (call(), {"mcp_session_id": SESSION, "mcp_protocol_version": "2025-03-26"}),
    (call(), {"mcp_session_id": "other", "mcp_protocol_version": VERSION}),
    (call(), {**IN_SESSION, "accept": "application/json"}),  # the SDK refuses it (406)
    (call(), {**IN_SESSION, "accept": "text/event-stream"}),
    (call(), {**IN_SESSION, "content_type": "text/plain"}),
])
def test_anything_else_goes_to_the_sdk_untouched(message: Any, headers: dict[str, str]
                                                  ) -> None:
    stand_in = StandIn()
    plain = opened(stand_in)
    status, _, _ = request(plain, message, **headers)
    assert status == 202
    assert stand_in.seen[-1] == ("POST", json.dumps(message).encode())


def test_a_body_that_is_not_json_goes_to_the_sdk() -> None:
    stand_in = StandIn()
    plain = opened(stand_in)
    assert request(plain, b"{not json", **IN_SESSION)[0] == 202
    assert stand_in.seen[-1] == ("POST", b"{not json")


def test_another_path_goes_to_the_sdk() -> None:
    stand_in = StandIn()
    plain = opened(stand_in)
    assert request(plain, call(), path="/other", **IN_SESSION)[0] == 202


def test_with_a_tracer_provider_every_call_goes_to_the_sdk(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    provider = TracerProvider()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    stand_in = StandIn()
    plain = opened(stand_in)
    assert request(plain, call(), **IN_SESSION)[0] == 202  # the SDK traces it


@pytest.mark.parametrize(("method", "status"), [("DELETE", 200), ("POST", 404)])
def test_a_session_ended_or_unknown_to_the_sdk_is_forgotten(method: str, status: int) -> None:
    stand_in = StandIn(status)
    plain = opened(stand_in)
    request(plain, {"jsonrpc": "2.0", "method": "notifications/initialized"}
            if method == "POST" else b"", method=method, **IN_SESSION)
    assert SESSION not in plain.sessions
    assert request(plain, call(), **IN_SESSION)[0] == status  # the SDK answers it


def test_a_session_whose_initialize_failed_is_not_learned() -> None:
    stand_in = StandIn()
    plain = opened(stand_in, version="1999-01-01")  # not a version the SDK negotiates
    assert plain.sessions == {}
    assert request(plain, call(), **IN_SESSION)[0] == 202
