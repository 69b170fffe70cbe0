"""The ``agentforge serve`` rows: calls per second and latency, against fastmcp.

Both servers serve the same one-parameter tool (``echo(text: str) -> str``, one module
written to a temporary directory) and are driven by the same client, the official ``mcp``
SDK's ``ClientSession``: over stdio (each server a subprocess of the client) and over
streamable HTTP (each server a subprocess on a free loopback port). Each side is timed
for sequential calls and for 1 000 calls in flight at once; the two servers take turns,
round after round, so that a busy moment of the shared machine slows both, and each
figure is the best of the rounds (the least disturbed one).

fastmcp is a bench-only dependency (the ``bench`` extra, installed by ``make bench``).
:data:`BARE_SERVER`, a raw ASGI app under uvicorn, is the plain-client row's floor
(``plain_http_workload``).
"""

from __future__ import annotations

import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

AGENTFORGE = Path(sys.executable).with_name("agentforge")
SEQUENTIAL = 300
"""Calls made one after the other per round (stdio)."""
IN_FLIGHT = 1_000
"""Calls sent at once per round."""
ROUNDS = 3
HTTP_SEQUENTIAL = 100
HTTP_ROUNDS = 2
START_TIMEOUT = 30.0

TOOL_MODULE = '''\
def echo(text: str) -> str:
    """Return the text it is given.

    Args:
        text: The text to send back.
    """
    return text
'''

FASTMCP_SERVER = '''\
import sys

from fastmcp import FastMCP

from bench_tools import echo

server = FastMCP("fastmcp-bench")
server.tool(echo)

if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), path="/mcp",
                   show_banner=False)
    else:
        server.run(show_banner=False)
'''

BARE_SERVER = '''\
"""A bare ASGI app answering the JSON-RPC of an MCP session with JSON: no SDK, no checks."""
import json
import sys

import uvicorn

from bench_tools import echo


async def app(scope, receive, send):
    body, more = b"", True
    while more:
        message = await receive()
        body, more = body + message.get("body", b""), message.get("more_body", False)
    request = json.loads(body)
    if "id" not in request:  # a notification
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    if request["method"] == "initialize":
        result = {"protocolVersion": request["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "bare", "version": "0"}}
    else:
        text = echo(**request["params"]["arguments"])
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    answer = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [
        (b"content-type", b"application/json"), (b"mcp-session-id", b"bare")]})
    await send({"type": "http.response.body", "body": answer})


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), lifespan="off",
                log_level="warning", access_log=False)
'''


@dataclass
class Side:
    """One server's best figures over the rounds."""

    name: str
    rates: dict[str, float] = field(default_factory=dict)
    p50: dict[str, float] = field(default_factory=dict)
    p99: dict[str, float] = field(default_factory=dict)

    def record(self, mode: str, wall: float, latencies: list[float]) -> None:
        quantiles = statistics.quantiles(latencies, n=100, method="inclusive")
        rate, p50, p99 = len(latencies) / wall, quantiles[49], quantiles[98]
        self.rates[mode] = max(self.rates.get(mode, 0.0), rate)
        self.p50[mode] = min(self.p50.get(mode, float("inf")), p50)
        self.p99[mode] = min(self.p99.get(mode, float("inf")), p99)

    def figure(self, mode: str) -> str:
        return (f"{self.rates[mode]:.0f} calls/s, p50 {self.p50[mode] * 1e3:.1f} ms, "
                f"p99 {self.p99[mode] * 1e3:.1f} ms")


# ---------------------------------------------------------------- one session's timings


async def _timed_call(session: Any, index: int, latencies: list[float]) -> None:
    started = time.perf_counter()
    result = await session.call_tool("echo", {"text": f"call {index}"})
    latencies.append(time.perf_counter() - started)
    if result.is_error or result.content[0].text != f"call {index}":
        raise RuntimeError(f"unexpected result: {result}")


async def _measure(session: Any, side: Side, sequential: int) -> None:
    """Warm up, then time ``sequential`` calls one by one and :data:`IN_FLIGHT` at once."""
    import anyio

    await session.list_tools()
    for index in range(20):
        await _timed_call(session, index, [])
    latencies: list[float] = []
    started = time.perf_counter()
    for index in range(sequential):
        await _timed_call(session, index, latencies)
    side.record("sequential", time.perf_counter() - started, latencies)
    latencies = []
    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for index in range(IN_FLIGHT):
            group.start_soon(_timed_call, session, index, latencies)
    side.record("in flight", time.perf_counter() - started, latencies)


# ---------------------------------------------------------------- the two transports


def _stdio_command(server: str, directory: Path) -> tuple[str, list[str]]:
    if server == "agentforge":
        return str(AGENTFORGE), ["serve", "bench_tools.py:echo"]
    return sys.executable, ["fastmcp_server.py"]


async def _stdio_round(server: str, directory: Path, side: Side) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command, args = _stdio_command(server, directory)
    params = StdioServerParameters(command=command, args=args, cwd=str(directory),
                                   env=_environment())
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await _measure(session, side, SEQUENTIAL)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def http_server(server: str, directory: Path) -> Any:
    """Start ``server`` (``agentforge``, ``fastmcp`` or ``bare``, :data:`BARE_SERVER`)
    over HTTP on a free loopback port; its URL. Always stopped."""
    port = _free_port()
    if server == "agentforge":
        argv = [str(AGENTFORGE), "serve", "bench_tools.py:echo", "--transport", "http",
                "--port", str(port)]
    elif server == "fastmcp":
        argv = [sys.executable, "fastmcp_server.py", "http", str(port)]
    else:
        argv = [sys.executable, "bare_server.py", str(port)]
    process = subprocess.Popen(argv, cwd=directory, env=_environment(),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{process.args[0]} did not listen within {START_TIMEOUT:.0f} s")


async def _http_round(server: str, directory: Path, side: Side) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with http_server(server, directory) as url:
        async with streamable_http_client(url) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await _measure(session, side, HTTP_SEQUENTIAL)


def _environment() -> dict[str, str]:
    return {**os.environ, "FASTMCP_LOG_LEVEL": "WARNING", "PYTHONDONTWRITEBYTECODE": "1"}


# ---------------------------------------------------------------- the rows


@contextlib.contextmanager
def tool_directory() -> Any:
    """A temporary folder holding the tool's module and the other servers' scripts."""
    with tempfile.TemporaryDirectory(prefix="agentforge-serve-bench-") as tmp:
        directory = Path(tmp)
        (directory / "bench_tools.py").write_text(TOOL_MODULE)
        (directory / "fastmcp_server.py").write_text(FASTMCP_SERVER)
        (directory / "bare_server.py").write_text(BARE_SERVER)
        yield directory


def _compare(run_round: Callable[..., Any], directory: Path, rounds: int
             ) -> tuple[Side, Side]:
    import anyio

    ours, theirs = Side("agentforge"), Side("fastmcp")
    for _ in range(rounds):
        for side in (ours, theirs):
            anyio.run(run_round, side.name, directory, side)
    return ours, theirs


def serve_rows(row: Callable[..., None]) -> None:
    """The ``agentforge serve`` rows, stdio and HTTP, each against fastmcp: at least 1.5x
    its calls per second, with a lower 99th-percentile latency."""
    import fastmcp  # noqa: F401  (fails early, with its name, without the bench extra)

    with tool_directory() as directory:
        for transport, run_round, rounds in (("stdio", _stdio_round, ROUNDS),
                                             ("--transport http", _http_round, HTTP_ROUNDS)):
            ours, theirs = _compare(run_round, directory, rounds)
            for mode in ("sequential", "in flight"):
                ratio = ours.rates[mode] / theirs.rates[mode]
                name = "serve, stdio" if transport == "stdio" else f"serve {transport}"
                row(f"{name}, 1-param tool, {mode}", ours.figure(mode),
                    f"fastmcp {theirs.figure(mode)}", ratio, ">= 1.5x calls/s, p99 below",
                    ratio >= 1.5 and ours.p99[mode] < theirs.p99[mode])
