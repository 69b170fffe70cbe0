"""Requests with unusual ids, over stdio and HTTP, answered as JSON-RPC 2.0 asks: a valid
id (a string or an integer, however large or full of escapes) echoed exactly, and an id
of another type answered ``-32600`` with id ``null`` rather than taken for a
notification and never answered."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from mcp_client_support import HANDSHAKE, HERE, RawServer
from test_mcp_http import Served

SHOP = str(HERE / "mcp_sample_tools.py")
VALID = ["123456789012345678901234567890", "-9007199254740993",
         '"a\\u0000\\"b\\\\\\ud83d\\ude00\\u001b\\u202e"', '""']
INVALID = [('{"a": 1}', "an object"), ("[1]", "an array"), ("true", "a boolean"),
           ("null", "null"), ("1.5", "a number with a fraction or exponent"),
           ("1e3", "a number with a fraction or exponent")]


def ping(raw_id: str) -> str:
    return '{"jsonrpc": "2.0", "id": ' + raw_id + ', "method": "ping"}'


def refusal(kind: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": f"Invalid request: the id must be a string or an "
                                   f"integer, got {kind}"}}


def test_over_stdio_each_request_gets_one_answer_with_its_id() -> None:
    server = RawServer(SHOP)
    server.send(*HANDSHAKE)
    server.reply(0)
    lines = [ping(raw_id) for raw_id in VALID] + [ping(raw_id) for raw_id, _ in INVALID]
    server.process.stdin.write("".join(line + "\n" for line in lines).encode())
    server.process.stdin.flush()
    stderr, code = server.close()
    assert code == 0, stderr
    answers = server.received[1:]
    assert len(answers) == len(lines), answers
    echoed = [answer["id"] for answer in answers if "result" in answer]
    assert sorted(map(json.dumps, echoed)) == sorted(
        json.dumps(json.loads(raw_id)) for raw_id in VALID)
    refused = [answer for answer in answers if "error" in answer]
    assert sorted(map(json.dumps, refused)) == sorted(
        json.dumps(refusal(kind)) for _, kind in INVALID)


@pytest.fixture(scope="module")
def session() -> Any:
    server = Served()
    headers = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
    try:
        with httpx.Client(timeout=30) as client:
            opened = client.post(server.url, content=json.dumps(HANDSHAKE[0]), headers=headers)
            headers = {**headers, "Mcp-Session-Id": opened.headers["mcp-session-id"],
                       "MCP-Protocol-Version": "2025-06-18"}
            client.post(server.url, content=json.dumps(HANDSHAKE[1]), headers=headers)
            yield lambda body: client.post(server.url, content=body, headers=headers)
    finally:
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err


def _data(response: httpx.Response) -> Any:
    if response.headers["content-type"].startswith("text/event-stream"):
        [line] = [line for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(line[5:])
    return response.json()


@pytest.mark.parametrize("raw_id", VALID)
def test_over_http_a_valid_id_is_echoed_exactly(session: Any, raw_id: str) -> None:
    response = session(ping(raw_id))
    assert response.status_code == 200
    assert _data(response) == {"jsonrpc": "2.0", "id": json.loads(raw_id), "result": {}}


@pytest.mark.parametrize(("raw_id", "kind"), INVALID)
def test_over_http_an_invalid_id_is_answered_with_id_null(session: Any, raw_id: str,
                                                          kind: str) -> None:
    response = session(ping(raw_id))
    assert (response.status_code, _data(response)) == (400, refusal(kind))
