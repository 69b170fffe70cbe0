"""Helpers for the MCP tests: the SDK's own stdio client driven synchronously, and a raw
JSON-RPC subprocess for what a client library hides (exactly which lines arrive, stdin
closed at a chosen moment).

The client session lives in an anyio blocking portal (an event loop in a background
thread), so the tests themselves are plain synchronous functions and need no async
pytest plugin. Named ``mcp_client_support`` (not ``mcp``...) so that it never shadows the
SDK: ``tests/integrations`` has no ``__init__.py`` and is on ``sys.path`` while testing.
"""

from __future__ import annotations

import http.server
import json
import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).with_name("agentforge")
TIMEOUT = 20.0
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {},
              "clientInfo": {"name": "raw-test", "version": "0"}}
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""What a terminal acts on (escape sequences, C1 controls, bidirectional overrides); a
newline is allowed."""


class Remote:
    """A connected client session, called synchronously through the portal."""

    def __init__(self, portal: Any, session: ClientSession, init: types.InitializeResult,
                 stderr: Path, problems: list[Exception]) -> None:
        self.portal = portal
        self.session = session
        self.init = init
        self.stderr = stderr
        self.problems = problems

    def run(self, func: Any, *args: Any) -> Any:
        return self.portal.call(bounded, func, *args)

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        return self.run(self.session.call_tool, name, arguments)

    def text(self, result: types.CallToolResult) -> str:
        assert len(result.content) == 1
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        return block.text


async def bounded(func: Any, *args: Any) -> Any:
    with anyio.fail_after(TIMEOUT):
        return await func(*args)


@asynccontextmanager
async def connect(params: StdioServerParameters, errlog: Any, problems: list[Exception]
                   ) -> AsyncIterator[tuple[ClientSession, types.InitializeResult]]:
    async def on_message(message: Any) -> None:
        # A line on stdout that is not a JSON-RPC message arrives here as an exception.
        if isinstance(message, Exception):
            problems.append(message)

    async with stdio_client(params, errlog=errlog) as (read, write), \
            ClientSession(read, write, read_timeout_seconds=TIMEOUT,
                          message_handler=on_message) as session:
        with anyio.fail_after(TIMEOUT):
            init = await session.initialize()
            await session.list_tools()  # the client learns the tools (output schemas)
        yield session, init


def client_env() -> dict[str, str]:
    """What an SDK client adds to a server's (minimal) environment: warnings are errors,
    and the ``PYTHONPATH`` of the tests, so a server imports the code under test."""
    environment = {"PYTHONWARNINGS": "error"}
    if os.environ.get("PYTHONPATH"):
        environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return environment


def serve(args: list[str], tmp_path: Path, command: str = sys.executable,
           stderr_name: str = "server-stderr.txt"):
    """Start a server subprocess (``command args``) and yield a connected :class:`Remote`."""
    params = StdioServerParameters(command=command, args=args, cwd=str(ROOT),
                                   env=client_env())
    stderr_path = tmp_path / stderr_name
    problems: list[Exception] = []
    with stderr_path.open("w", encoding="utf-8") as errlog, \
            start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(connect(params, errlog, problems)) as (session,
                                                                                      init):
        yield Remote(portal, session, init, stderr_path, problems)



# ---------------------------------------------------------------- raw JSON-RPC


def server_env() -> dict[str, str]:
    """The environment of a server subprocess: no targets from the environment, warnings
    are errors."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG")}
    environment["PYTHONWARNINGS"] = "error"
    return environment


def request(id: int | str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def call(id: int | str, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return request(id, "tools/call", {"name": name, "arguments": arguments or {}})


HANDSHAKE = [request(0, "initialize", INITIALIZE),
             {"jsonrpc": "2.0", "method": "notifications/initialized"}]


def lines_of(messages: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def run_closed(args: list[str], messages: list[dict[str, Any]]
               ) -> tuple[list[dict[str, Any]], str, int]:
    """``agentforge serve ARGS``: write ``messages``, close stdin at once, read everything.

    Returns the stdout lines parsed (each must be JSON), stderr and the exit code.
    """
    done = subprocess.run([str(AGENTFORGE), "serve", *args], input=lines_of(messages),
                          capture_output=True, cwd=ROOT, env=server_env(), timeout=60)
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    return replies, done.stderr.decode("utf-8", "replace"), done.returncode


class RawServer:
    """``agentforge serve ARGS`` as a subprocess spoken to line by line."""

    def __init__(self, *args: str, read: bool = True) -> None:
        self.process = subprocess.Popen(
            [str(AGENTFORGE), "serve", *args], cwd=ROOT, env=server_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.received: list[dict[str, Any]] = []
        if read:
            self.start_reading()

    def start_reading(self) -> None:
        """Read the server's stdout from now on (once; ``read=False`` waits for this)."""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.replies.put(json.loads(line))
        self.replies.put(None)

    def send(self, *messages: dict[str, Any]) -> None:
        self.process.stdin.write(lines_of(list(messages)))
        self.process.stdin.flush()

    def reply(self, id: int | str) -> dict[str, Any]:
        """Wait for the reply to ``id`` (keeping every line received on the way)."""
        while True:
            message = self.replies.get(timeout=TIMEOUT)
            assert message is not None, "the server closed stdout"
            self.received.append(message)
            if message.get("id") == id:
                return message

    def close(self) -> tuple[str, int]:
        """Close stdin and read the rest; return stderr and the exit code."""
        self.process.stdin.close()
        while (message := self.replies.get(timeout=TIMEOUT)) is not None:
            self.received.append(message)
        code = self.process.wait(timeout=TIMEOUT)
        stderr = self.process.stderr.read().decode("utf-8", "replace")
        self.process.stdout.close()
        self.process.stderr.close()
        return stderr, code


@contextmanager
def threaded_http_server(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """A plain HTTP server on a loopback port, in a thread: its base URL, until the end of
    the block."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def announced_url(command: list[str], cwd: Path, *, env: dict[str, str] | None = None,
                  stop: int | None = None) -> Iterator[str]:
    """Run ``command`` in ``cwd``: the URL it says it listens on (``listening on URL`` on
    stderr, which is read to the end in a thread so that it never blocks), until the end
    of the block; then ``stop`` (SIGINT by default), and killed if it lingers."""
    import signal

    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def drain() -> None:
        for line in process.stderr:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    try:
        said = []
        while (line := lines.get(timeout=TIMEOUT * 3)) is not None:
            said.append(line)
            if "listening on " in line:
                yield line.split("listening on ")[1].split()[0]
                break
        else:
            raise AssertionError(f"{Path(command[0]).name} did not start: {''.join(said)}")
    finally:
        process.send_signal(signal.SIGINT if stop is None else stop)
        try:
            process.wait(timeout=TIMEOUT * 3)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            process.stderr.close()  # type: ignore[union-attr]


def serving_http(tools: Path, *args: str) -> Any:
    """``agentforge serve TOOLS --transport http --port 0 ARGS`` run in the tools' folder:
    its URL, until the end of the block (:func:`announced_url`)."""
    return announced_url([str(AGENTFORGE), "serve", tools.name, "--transport", "http",
                          "--port", "0", *args], tools.parent)


def free_port() -> int:
    """A loopback port free a moment ago, for a server that must be given one."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
