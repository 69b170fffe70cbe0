"""The ``serve --transport http`` row for a plain keep-alive client, against fastmcp and a
bare ASGI app.

The client is the standard library's ``http.client`` on one keep-alive connection, as a
script that speaks MCP without an SDK would be: ``initialize``, ``notifications/
initialized``, then ``tools/call`` after ``tools/call``, each answer read to its end (a
JSON body or an event stream, whichever the server sends) and its text checked. The three
servers serve the same ``echo`` tool (``serve_workload``): ``agentforge serve``, fastmcp
(its defaults) and :data:`~serve_workload.BARE_SERVER`, a raw ASGI app under uvicorn that
answers the same JSON-RPC with JSON and checks nothing (the floor of an HTTP server in
Python on this machine). They take turns, round after round; each figure is the best
round.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from serve_workload import Side, http_server, tool_directory

SEQUENTIAL = 300
"""Calls timed per round."""
WARM_UP = 20
ROUNDS = 3
SERVERS = ("agentforge", "fastmcp", "bare")
PROTOCOL = "2025-06-18"
TIMEOUT = 30.0


class PlainClient:
    """One MCP session over one keep-alive ``http.client`` connection."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.path = parts.path
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port,
                                                     timeout=TIMEOUT)
        self.headers = {"Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream"}
        self.next_id = 0
        answer = self.request("initialize", {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "plain", "version": "0"}})
        if "result" not in answer:
            raise RuntimeError(f"initialize failed: {answer}")
        self.headers |= {"Mcp-Session-Id": self.session, "Mcp-Protocol-Version": PROTOCOL}
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        return self._post({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params})

    def _post(self, message: dict[str, Any]) -> Any:
        self.connection.request("POST", self.path, json.dumps(message), self.headers)
        response = self.connection.getresponse()
        body = response.read()  # to its end: the connection is then free for the next
        self.session = response.getheader("mcp-session-id") or ""
        if response.status == 202:
            return None
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status}: {body[:200]!r}")
        if (response.getheader("content-type") or "").startswith("text/event-stream"):
            data = [line[5:] for line in body.decode().splitlines()
                    if line.startswith("data:") and line[5:].strip()]
            return json.loads(data[-1])
        return json.loads(body)

    def call(self, index: int) -> None:
        answer = self.request("tools/call", {"name": "echo",
                                             "arguments": {"text": f"call {index}"}})
        if answer["result"]["content"][0]["text"] != f"call {index}":
            raise RuntimeError(f"unexpected answer: {answer}")

    def close(self) -> None:
        self.connection.close()


def _round(server: str, directory: Path, side: Side) -> None:
    with http_server(server, directory) as url:
        client = PlainClient(url)
        try:
            for index in range(WARM_UP):
                client.call(index)
            latencies = []
            started = time.perf_counter()
            for index in range(SEQUENTIAL):
                began = time.perf_counter()
                client.call(index)
                latencies.append(time.perf_counter() - began)
            side.record("sequential", time.perf_counter() - started, latencies)
        finally:
            client.close()


def plain_http_row(row: Callable[..., None]) -> None:
    """"serve --transport http, sequential calls, a plain keep-alive client": at least 2x
    fastmcp's calls per second and 0.5x the bare app's."""
    import fastmcp  # noqa: F401  (fails early, with its name, without the bench extra)

    sides = {name: Side(name) for name in SERVERS}
    with tool_directory() as directory:
        for _ in range(ROUNDS):
            for name, side in sides.items():
                _round(name, directory, side)
    ours, theirs, bare = (sides[name].rates["sequential"] for name in SERVERS)
    row("serve --transport http, sequential calls, a plain keep-alive client (http.client)",
        sides["agentforge"].figure("sequential"),
        f"fastmcp {sides['fastmcp'].figure('sequential')}; bare ASGI app "
        f"{sides['bare'].figure('sequential')} ({ours / bare:.2f}x)",
        ours / theirs, ">= 2x fastmcp and >= 0.5x the bare app",
        ours >= 2 * theirs and ours >= 0.5 * bare)
