"""``agentforge serve --transport http``: the installed command on a free loopback port,
driven by the SDK's streamable HTTP client; the Host/Origin guard checked with raw HTTP.

Every server is started by the test on 127.0.0.1 and stopped by it (SIGINT, or SIGTERM).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import queue
import signal
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_client_support import AGENTFORGE, HERE, ROOT

from agentforge_cli.integrations.mcp.server.streamable_http import bind_socket

BOUND = 30.0  # generous bound on start-up and shutdown; nothing is timed


class Served:
    """``agentforge serve --transport http ...`` running; ``url`` read from stderr."""

    def __init__(self, *args: str, preexec_fn: Callable[[], None] | None = None) -> None:
        self.process = subprocess.Popen(
            [str(AGENTFORGE), "serve", "sample_tools.shop", str(HERE / "mcp_sample_tools.py"),
             "--transport", "http", "--port", "0", *args],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, preexec_fn=preexec_fn)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()
        try:
            self.url = self._url()
        except BaseException:
            self.stop()
            raise

    def _drain(self) -> None:
        for line in self.process.stderr:  # type: ignore[union-attr]
            self.lines.put(line)
        self.lines.put(None)

    def _url(self) -> str:
        while (line := self.lines.get(timeout=BOUND)) is not None:
            self.stderr.append(line)
            if "listening on " in line:
                return line.split("listening on ")[1].split()[0]
        raise AssertionError(f"the server did not start: {''.join(self.stderr)}")

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str, str]:
        """Signal the server, wait for it to end; its exit code, stdout and stderr."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            # not communicate(): it reads stderr too, and takes lines from _drain
            self.process.wait(timeout=BOUND)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        out = self.process.stdout.read()  # type: ignore[union-attr]
        self.process.stdout.close()  # type: ignore[union-attr]
        while (line := self.lines.get(timeout=BOUND)) is not None:
            self.stderr.append(line)
        self.process.stderr.close()  # type: ignore[union-attr]
        return self.process.returncode, out, "".join(self.stderr)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    server = Served()
    try:
        yield server
    finally:
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err


def session_run(url: str, body: Any) -> Any:
    """Run ``body(session)`` in an initialized SDK client session on ``url``."""
    async def main() -> Any:
        async with streamable_http_client(url) as (read, write), \
                ClientSession(read, write) as session:
            init = await session.initialize()
            return init, await body(session)
    return anyio.run(main)


def raw(url: str, headers: dict[str, str], connect: str | None = None) -> int:
    """POST an initialize request with ``headers`` (to the address ``connect``, by
    default the URL's); the status code."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(connect or parts.hostname, parts.port,
                                            timeout=BOUND)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
    try:
        connection.putrequest("POST", parts.path, skip_host="Host" in headers)
        for key, value in {"Content-Type": "application/json",
                           "Accept": "application/json, text/event-stream",
                           "Content-Length": str(len(body)), **headers}.items():
            connection.putheader(key, value)
        connection.endheaders(body.encode())
        return connection.getresponse().status
    finally:
        connection.close()


def test_serves_on_loopback_path_mcp(served: Served) -> None:
    parts = urlsplit(served.url)
    assert (parts.scheme, parts.hostname, parts.path) == ("http", "127.0.0.1", "/mcp")


def test_initialize_list_and_call(served: Served) -> None:
    async def body(session: ClientSession) -> Any:
        tools = await session.list_tools()
        price = await session.call_tool("getPrice", {"sku": "TEA-001", "quantity": "3"})
        added = await session.call_tool("add", {"a": 2, "b": "3"})
        return tools, price, added

    init, (tools, price, added) = session_run(served.url, body)
    assert init.server_info.name == "agentforge"
    names = [tool.name for tool in tools.tools]
    assert {"getPrice", "add"} <= set(names)
    assert (price.is_error, price.content[0].text) == (False, "384.00")
    assert (added.is_error, added.content[0].text) == (False, "5")


def test_an_argument_error_is_an_error_result(served: Served) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("add", {"a": 2.5, "b": 1})

    _, result = session_run(served.url, body)
    assert result.is_error
    assert 'Argument "a"' in result.content[0].text


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "http://127.0.0.1.evil.example"},
    {"Host": "evil.example"},
    {"Host": "evil.example:8000", "Origin": "http://evil.example:8000"},
])
def test_foreign_origin_or_host_is_refused(served: Served, headers: dict[str, str]) -> None:
    assert raw(served.url, headers) == 403


def test_own_origin_and_loopback_names_are_accepted(served: Served) -> None:
    port = urlsplit(served.url).port
    assert raw(served.url, {"Origin": f"http://127.0.0.1:{port}"}) == 200
    assert raw(served.url, {"Host": f"localhost:{port}"}) == 200


def test_allow_origin_adds_an_origin() -> None:
    server = Served("--allow-origin", "http://localhost:6274")
    try:
        assert raw(server.url, {"Origin": "http://localhost:6274"}) == 200
        assert raw(server.url, {"Origin": "http://localhost:6275"}) == 403
    finally:
        code, out, err = server.stop(signal.SIGTERM)
    assert (code, out) == (0, ""), err


def test_sigint_stops_cleanly_with_empty_stdout_and_a_masked_log() -> None:
    server = Served("--log", "--strict")
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("add", {"a": 1})

    _, result = session_run(server.url, body)
    code, out, err = server.stop()
    assert result.is_error and 'Required parameter "b"' in result.content[0].text
    assert (code, out) == (0, ""), err
    assert "Tool request: add" in err
    assert "Traceback" not in err


def test_a_taken_port_is_exit_3() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        done = subprocess.run(
            [str(AGENTFORGE), "serve", "sample_tools.shop", "--transport", "http",
             "--port", str(port)], cwd=ROOT, capture_output=True, text=True, timeout=BOUND)
    assert done.returncode == 3
    assert f"cannot listen on 127.0.0.1:{port}: the port is taken" in done.stderr
    assert done.stdout == ""


def test_the_servers_connections_send_each_write_at_once() -> None:
    """Nagle's algorithm is off (``TCP_NODELAY``) on every connection the bound socket
    accepts, as on a socket asyncio binds itself: with it on, an answer's body waited
    for the client to acknowledge its headers, up to its delayed-ACK timer (~40 ms)."""
    async def accepted_nodelay() -> int:
        loop = asyncio.get_running_loop()
        made: asyncio.Future[int] = loop.create_future()

        class Accepting(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                made.set_result(transport.get_extra_info("socket").getsockopt(
                    socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        with bind_socket("127.0.0.1", 0) as sock:
            server = await loop.create_server(Accepting, sock=sock)  # as uvicorn serves it
            _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
            try:
                return await asyncio.wait_for(made, BOUND)
            finally:
                writer.close()
                server.close()
                await server.wait_closed()

    assert asyncio.run(accepted_nodelay()) != 0


@pytest.mark.parametrize("args", [["--port", "8000"], ["--transport", "http", "--port", "-1"]])
def test_bad_http_options_are_usage_errors(args: list[str]) -> None:
    done = subprocess.run([str(AGENTFORGE), "serve", "sample_tools.shop", *args], cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=BOUND)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------------- which Host names pass


def _outbound_address() -> str | None:
    """The address this machine sends from (no packet leaves: UDP only picks a route)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            return probe.getsockname()[0]
        except OSError:
            return None


def test_loopback_names_compare_case_insensitively(served: Served) -> None:
    port = urlsplit(served.url).port
    assert raw(served.url, {"Host": f"LocalHost:{port}"}) == 200
    assert raw(served.url, {"Host": f"127.0.0.1:{port}", "Origin": f"http://LOCALHOST:{port}"}
               ) == 200


def test_a_wildcard_bind_admits_the_machines_names_and_warns() -> None:
    server = Served("--host", "0.0.0.0")
    try:
        port = urlsplit(server.url).port
        assert urlsplit(server.url).hostname == "0.0.0.0"
        names = ["127.0.0.1", "localhost", socket.gethostname(), socket.getfqdn(),
                 socket.gethostname().upper()]
        if (address := _outbound_address()) is not None:
            names.append(address)
        for name in names:
            assert raw(server.url, {"Host": f"{name}:{port}"}, connect="127.0.0.1") == 200, name
        assert raw(server.url, {"Host": f"{socket.gethostname()}:{port}",
                                "Origin": f"http://{socket.gethostname()}:{port}"},
                   connect="127.0.0.1") == 200
        assert raw(server.url, {"Host": f"evil.example:{port}"}, connect="127.0.0.1") == 403
        assert raw(server.url, {"Host": f"{socket.gethostname()}:{port + 1}"},
                   connect="127.0.0.1") == 403
        # the SDK's client, through the machine's name
        _, listed = session_run(f"http://{socket.gethostname()}:{port}/mcp",
                                lambda session: session.list_tools())
        assert "getPrice" in [tool.name for tool in listed.tools]
    finally:
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err
    assert "warning: 0.0.0.0 exposes the tools without authentication" in err


def test_allow_host_admits_a_name_behind_a_proxy() -> None:
    server = Served("--allow-host", "Tools.Example.com")
    try:
        assert raw(server.url, {"Host": "tools.example.com"}) == 200
        assert raw(server.url, {"Host": "TOOLS.example.com:443",
                                "Origin": "https://tools.example.com"}) == 200
        assert raw(server.url, {"Host": "other.example.com"}) == 403
    finally:
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err
    assert "warning" not in err  # loopback: nothing is exposed


def test_allow_host_needs_the_http_transport() -> None:
    done = subprocess.run([str(AGENTFORGE), "serve", "sample_tools.shop", "--allow-host", "x"],
                          cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=BOUND)
    assert done.returncode == 2, done.stderr
    assert "--allow-host" in done.stderr


# ---------------------------------------------------------------- CORS, as a browser sends it

INSPECTOR = "http://localhost:6274"
INITIALIZE_BODY = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "browser", "version": "0"}}}


@pytest.fixture(scope="module")
def inspected() -> Iterator[Served]:
    server = Served("--allow-origin", INSPECTOR)
    try:
        yield server
    finally:
        code, out, err = server.stop()
    assert (code, out) == (0, ""), err


def _preflight(url: str, origin: str) -> httpx.Response:
    return httpx.options(url, timeout=BOUND, headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,mcp-protocol-version"})


def test_preflight_from_an_allowed_origin_is_answered(inspected: Served) -> None:
    response = _preflight(inspected.url, INSPECTOR)
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == INSPECTOR
    assert "POST" in response.headers["access-control-allow-methods"]
    allowed = {name.strip() for name in
               response.headers["access-control-allow-headers"].lower().split(",")}
    assert {"content-type", "mcp-session-id", "mcp-protocol-version", "authorization",
            "last-event-id"} <= allowed
    assert "origin" in response.headers["vary"].lower()


def test_responses_to_an_allowed_origin_carry_cors_headers(inspected: Served) -> None:
    response = httpx.post(inspected.url, json=INITIALIZE_BODY, timeout=BOUND, headers={
        "Origin": INSPECTOR, "Accept": "application/json, text/event-stream"})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == INSPECTOR
    assert "mcp-session-id" in response.headers["access-control-expose-headers"].lower()
    assert response.headers.get("mcp-session-id")


def test_a_foreign_origin_gets_403_and_no_cors_headers(inspected: Served) -> None:
    for response in (_preflight(inspected.url, "http://evil.example"),
                     httpx.post(inspected.url, json=INITIALIZE_BODY, timeout=BOUND, headers={
                         "Origin": "http://evil.example",
                         "Accept": "application/json, text/event-stream"})):
        assert response.status_code == 403
        assert not [name for name in response.headers if name.lower().startswith("access-")]
