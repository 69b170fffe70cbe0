"""``agentforge record --url URL -o FILE``: the official MCP client gets the same through
the loopback proxy as from the server, FILE replays all matched against the server and a
changed server is a mismatch; headers reach the server but never FILE; SSE passes as it
arrives; a foreign Host or Origin is refused.

Every server (``agentforge serve --transport http``, a raw HTTP server in a thread) and
every proxy is started by the test on 127.0.0.1 and stopped by it.
"""

from __future__ import annotations

import http.client
import http.server
import json
import queue
import signal
import socket
import subprocess
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_client_support import AGENTFORGE, ROOT, free_port, server_env

BOUND = 30.0  # generous bound on start-up, answers and shutdown; nothing is timed
TOOLS = '''
import os
from agentforge_cli import tool

@tool
def greet(name: str) -> str:
    """Greet someone."""
    return f"{os.environ['GREETING']}, {name}"

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
'''


class Running:
    """A command running until :meth:`stop`; ``url`` is the first word after ``marker``
    on its standard error."""

    def __init__(self, command: list[str], marker: str, env: dict[str, str] | None = None
                 ) -> None:
        self.process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env={**server_env(), **(env or {})})
        self.stderr: list[str] = []
        self.found: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, args=(marker,), daemon=True)
        self.reader.start()
        try:
            self.url = self.found.get(timeout=BOUND)
        except queue.Empty:
            self.stop()
            raise AssertionError(f"{command[1]} did not start: {''.join(self.stderr)}"
                                 ) from None

    def _read(self, marker: str) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)
            if marker in line and self.found.empty():
                self.found.put(line.split(marker)[1].split()[0])

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str, str]:
        """Signal the command and wait for it: its exit code, stdout and stderr."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout=BOUND)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        assert self.process.stdout is not None
        with self.process.stdout:
            out = self.process.stdout.read()
        self.reader.join(BOUND)
        self.process.stderr.close()  # type: ignore[union-attr]
        return self.process.returncode, out, "".join(self.stderr)


@contextmanager
def running(command: list[str], marker: str, env: dict[str, str] | None = None
            ) -> Iterator[Running]:
    started = Running(command, marker, env)
    try:
        yield started
    finally:
        started.stop()


def serve(tools: Path, greeting: str) -> Any:
    return running([str(AGENTFORGE), "serve", str(tools), "--transport", "http", "--port",
                    "0"], "listening on ", {"GREETING": greeting})


def record(upstream: str, log: Path, *extra: str) -> Running:
    return Running([str(AGENTFORGE), "record", "--url", upstream, "-o", str(log), *extra],
                   " at ")


def session(url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """What the SDK's streamable HTTP client gets from ``url``: the tools and two calls."""
    async def main() -> dict[str, Any]:
        with anyio.fail_after(BOUND):
            async with create_mcp_http_client(headers=headers) as client, \
                    streamable_http_client(url, http_client=client) as (read, write), \
                    ClientSession(read, write) as mcp:
                init = await mcp.initialize()
                tools = await mcp.list_tools()
                greeted = await mcp.call_tool("greet", {"name": "ann"})
                added = await mcp.call_tool("add", {"a": 2, "b": 40})
                return {"server": init.server_info.model_dump(), "tools": tools.model_dump(),
                        "greet": greeted.model_dump(), "add": added.model_dump()}
    return anyio.run(main)


def replay(log: Path, target: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run([str(AGENTFORGE), "replay", str(log), "-t", target, "--json"],
                          capture_output=True, text=True, cwd=ROOT, env=server_env(),
                          timeout=120)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def logged(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_the_sdk_client_gets_the_same_and_the_recording_replays(tmp_path: Path) -> None:
    tools = tmp_path / "greeter.py"
    tools.write_text(TOOLS, encoding="utf-8")
    log = tmp_path / "session.jsonl"
    with serve(tools, "hello") as server:
        proxy = record(server.url, log, "--header", "X-Api-Key: upstream-key-4242")
        try:
            parts = urlsplit(proxy.url)
            assert (parts.hostname, parts.path) == ("127.0.0.1", "/mcp")
            assert parts.port != urlsplit(server.url).port
            through = session(proxy.url, {"Authorization": "Bearer client-token-777"})
        finally:
            code, out, err = proxy.stop()
        direct = session(server.url)
        assert (code, out) == (0, ""), err
        assert through == direct
        assert through["greet"]["content"][0]["text"] == "hello, ann"
        entries = logged(log)
        sent = [e["message"].get("method") for e in entries
                if e["direction"] == "client_to_server"]
        assert sent[:2] == ["initialize", "notifications/initialized"]
        assert sent.count("tools/call") == 2
        answers = {e["message"]["id"]: e["message"] for e in entries
                   if e["direction"] == "server_to_client" and "id" in e["message"]}
        order = [(e["direction"], e["message"].get("id")) for e in entries]
        for number in answers:  # every answer is logged after its request
            assert order.index(("client_to_server", number)) < order.index(
                ("server_to_client", number))
        text = log.read_text(encoding="utf-8")
        assert "client-token-777" not in text and "upstream-key-4242" not in text
        assert "upstream-key-4242" not in err and "client-token-777" not in err
        code, report = replay(log, server.url)
        assert code == 0, report
        assert report["summary"]["matched"] == 2 and sum(report["summary"].values()) == 2
    with serve(tools, "howdy") as changed:
        code, report = replay(log, changed.url)
    assert code == 1
    statuses = {call["name"]: call["status"] for call in report["calls"]}
    assert statuses == {"greet": "mismatched", "add": "matched"}


class Upstream(http.server.ThreadingHTTPServer):
    """A raw HTTP server on loopback answering every POST from ``answers`` (one list of
    byte chunks a response, sent with a pause after each chunk but the last until the
    test allows it), keeping each request's headers and body."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.seen: list[tuple[str, dict[str, str], bytes]] = []
        self.answers: list[tuple[str, list[bytes]]] = []
        self.go_on = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/mcp"


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Upstream
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()},
                                 body))
        content_type, chunks = self.server.answers.pop(0)
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Mcp-Session-Id", "session-1")
        self.send_header("Connection", "close")
        self.end_headers()
        for index, chunk in enumerate(chunks):
            if index == len(chunks) - 1:
                self.server.go_on.wait(BOUND)
            self.wfile.write(chunk)
            self.wfile.flush()


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    server = Upstream()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.go_on.set()
        server.shutdown()
        server.server_close()
        thread.join(BOUND)


@contextmanager
def post(url: str, message: Any, headers: dict[str, str] | None = None
         ) -> Iterator[http.client.HTTPResponse]:
    """POST ``message`` (raw HTTP, the headers as given); the response, open."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=BOUND)
    body = json.dumps(message).encode()
    try:
        connection.putrequest("POST", parts.path + "?session=q",
                              skip_host="Host" in (headers or {}))
        for key, value in {"Content-Type": "application/json",
                           "Content-Length": str(len(body)),
                           "Accept": "application/json, text/event-stream",
                           **(headers or {})}.items():
            connection.putheader(key, value)
        connection.endheaders(body)
        with connection.getresponse() as response:
            yield response
    finally:
        connection.close()


LOGIN = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
         "params": {"name": "login", "arguments": {"user": "ann", "password": "hunter2-xyz"}}}


def test_sse_passes_as_it_arrives_and_secrets_stay_out(tmp_path: Path,
                                                        upstream: Upstream) -> None:
    first = {"jsonrpc": "2.0", "method": "notifications/progress",
             "params": {"progressToken": 1, "progress": 1}}
    answer = {"jsonrpc": "2.0", "id": 7, "result": {"content": [
        {"type": "text", "text": "signed in with Bearer up-secret-555"}]}}
    event = f"event: message\r\ndata: {json.dumps(answer)}\r\n\r\n".encode()
    chunks = [b": a comment\n\nid: 1\ndata:\n\n",  # a priming event without data
              f"data: {json.dumps(first)}\n\n".encode(),
              event[:30], event[30:-3], event[-3:]]  # the end of a \r\n split over chunks
    upstream.answers.append(("text/event-stream", chunks))
    log = tmp_path / "session.jsonl"
    proxy = record(upstream.url, log, "-H", "Authorization: Bearer up-secret-555")
    try:
        with post(proxy.url, LOGIN, {"Authorization": "Bearer client-secret-1"}) as response:
            assert response.status == 200
            assert response.getheader("Mcp-Session-Id") == "session-1"
            streamed = b""
            while b"progress" not in streamed:  # it arrives before the server goes on
                streamed += response.read1(65536)
            assert logged(log)[-1]["message"] == first
            upstream.go_on.set()
            streamed += response.read()
    finally:
        code, out, err = proxy.stop(signal.SIGTERM)
    assert (code, out) == (0, ""), err
    assert streamed == b"".join(chunks)
    path, headers, body = upstream.seen[0]
    assert path == "/mcp?session=q" and body == json.dumps(LOGIN).encode()
    assert headers["authorization"] == "Bearer up-secret-555"  # --header wins
    assert headers["host"] == urlsplit(upstream.url).netloc
    assert "origin" not in headers
    entries = logged(log)
    assert [e["direction"] for e in entries] == ["client_to_server", "server_to_client",
                                                 "server_to_client"]
    assert entries[0]["message"]["params"]["arguments"] == {"user": "ann", "password": "***"}
    assert entries[2]["message"]["result"]["content"][0]["text"] == \
        "signed in with ***"
    text = log.read_text(encoding="utf-8")
    for secret in ("up-secret-555", "client-secret-1", "hunter2-xyz"):
        assert secret not in text and secret not in err


def test_no_mask_writes_the_arguments_as_sent(tmp_path: Path, upstream: Upstream) -> None:
    upstream.answers.append(("application/json", [b'{"jsonrpc":"2.0",', b'"id":7,"result":{}}']))
    upstream.go_on.set()
    log = tmp_path / "session.jsonl"
    proxy = record(upstream.url, log, "--no-mask")
    try:
        with post(proxy.url, LOGIN) as response:
            assert response.read() == b'{"jsonrpc":"2.0","id":7,"result":{}}'
    finally:
        proxy.stop()
    assert [e["message"] for e in logged(log)] == [LOGIN, {"jsonrpc": "2.0", "id": 7,
                                                          "result": {}}]


def test_a_batchs_secrets_and_the_session_id_stay_out(tmp_path: Path,
                                                     upstream: Upstream) -> None:
    batch = [LOGIN, {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "fetch", "arguments": {"passwords": ["pw-batch-4242"], "n": 1}}}]
    answers = [{"jsonrpc": "2.0", "id": 7, "result": {"content": [
        {"type": "text", "text": "you are in session-1"}]}}, {"jsonrpc": "2.0", "id": 8,
                                                              "result": {"content": []}}]
    upstream.answers.append(("application/json", [json.dumps(answers).encode()]))
    upstream.go_on.set()
    log = tmp_path / "session.jsonl"
    proxy = record(upstream.url, log, "-H", "X-Team: 12")
    try:
        with post(proxy.url, batch) as response:
            assert response.getheader("Mcp-Session-Id") == "session-1"
            assert json.loads(response.read()) == answers  # the client gets it unmasked
    finally:
        code, _, err = proxy.stop()
    assert code == 0, err
    sent, answered = (entry["message"] for entry in logged(log))
    assert [m["params"]["arguments"] for m in sent] == [
        {"user": "ann", "password": "***"}, {"passwords": "***", "n": 1}]
    assert answered[0]["result"]["content"][0]["text"] == "you are in ***"
    assert upstream.seen[0][1]["x-team"] == "12"  # a short header value is not hunted
    text = log.read_text(encoding="utf-8")
    assert "hunter2-xyz" not in text and "pw-batch-4242" not in text
    assert "session-1" not in text and '"id":8' in text


@pytest.mark.parametrize("headers", [{"Host": "evil.example"},
                                     {"Origin": "http://evil.example"}])
def test_a_foreign_host_or_origin_is_refused(tmp_path: Path, upstream: Upstream,
                                             headers: dict[str, str]) -> None:
    log = tmp_path / "session.jsonl"
    proxy = record(upstream.url, log)
    try:
        with post(proxy.url, LOGIN, headers) as response:
            assert response.status == 403
    finally:
        proxy.stop()
    assert upstream.seen == [] and log.read_bytes() == b""


def test_an_unreachable_server_is_a_502(tmp_path: Path) -> None:
    closed = free_port()  # nothing listens on it
    proxy = record(f"http://127.0.0.1:{closed}/mcp", tmp_path / "s.jsonl")
    try:
        with post(proxy.url, LOGIN) as response:
            assert response.status == 502
    finally:
        code, _, err = proxy.stop()
    assert code == 0 and "cannot reach the MCP server" in err


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--url", "http://127.0.0.1:9/mcp", "-o", "s.jsonl", "--", "server"], 2,
     "either --url or a server command"),
    (["--url", "ftp://host/mcp", "-o", "s.jsonl"], 2, "--url takes the http(s)://"),
    (["--url", "http://127.0.0.1:9/mcp"], 2, "--output FILE is required"),
    (["--url", "http://127.0.0.1:9/mcp", "-o", "s.jsonl", "--env", "A=b"], 2,
     "--env and --cwd are for a server command"),
    (["--port", "0", "-o", "s.jsonl", "--", "server"], 2, "--port and --header need --url"),
    (["--url", "http://127.0.0.1:9/mcp", "-o", "s.jsonl", "--port", "70000"], 2,
     "--port must be between 0 and 65535"),
    (["--url", "http://127.0.0.1:9/mcp", "-o", "s.jsonl", "-H", "nocolon"], 2,
     "--header takes KEY:VALUE"),
])
def test_bad_usage_is_named(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    done = subprocess.run([str(AGENTFORGE), "record", *args], cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=BOUND)
    assert done.returncode == code, done.stderr
    assert message in done.stderr and done.stdout == ""


def test_a_taken_port_is_named(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = subprocess.run([str(AGENTFORGE), "record", "--url", "http://127.0.0.1:9/mcp",
                               "-o", "s.jsonl", "--port", str(taken.getsockname()[1])],
                              cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=BOUND)
    assert done.returncode == 3 and "the port is taken" in done.stderr


def _raw_post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    """POST ``body`` as it is: the status and the answer."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=BOUND)
    try:
        connection.request("POST", parts.path, body, {"Content-Type": "application/json",
                                                      **headers})
        with connection.getresponse() as response:
            return response.status, response.read()
    finally:
        connection.close()


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_the_servers_query_is_sent_on_and_its_secret_masked(tmp_path: Path,
                                                           upstream: Upstream) -> None:
    answer = b'{"jsonrpc":"2.0","id":7,"result":{"echo":"key k-secret-9 used"}}'
    upstream.answers.append(("application/json", [answer]))
    upstream.go_on.set()
    log = tmp_path / "session.jsonl"
    proxy = record(upstream.url + "?api_key=k-secret-9&region=eu", log)
    try:
        with post(proxy.url, LOGIN) as response:
            assert response.read() == answer
    finally:
        _, _, err = proxy.stop()
    assert upstream.seen[0][0] == "/mcp?api_key=k-secret-9&region=eu&session=q"
    assert logged(log)[1]["message"]["result"] == {"echo": "key *** used"}
    assert "k-secret-9" not in err


def test_a_gzip_bomb_is_inflated_no_further_than_the_limit(tmp_path: Path,
                                                          upstream: Upstream) -> None:
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)  # gzip: 400 MiB of zeros
    bomb = b"".join(packer.compress(bytes(1 << 20)) for _ in range(400)) + packer.flush()
    assert len(bomb) < 2 << 20
    upstream.answers.append(("application/json", [b'{"jsonrpc":"2.0","id":1,"result":{}}']))
    upstream.go_on.set()
    proxy = record(upstream.url, tmp_path / "s.jsonl")
    try:
        status, _ = _raw_post(proxy.url, bomb, {"Content-Encoding": "gzip"})
        peak = _peak_rss_mb(proxy.process.pid)
    finally:
        code, _, err = proxy.stop()
    assert status == 200 and upstream.seen[0][2] == bomb  # sent on as it came
    assert peak < 250, f"the proxy grew to {peak:.0f} MB"
    assert code == 0 and "1 bod(ies) or event(s) were not JSON-RPC" in err


def test_a_request_body_past_the_limit_is_refused(tmp_path: Path, upstream: Upstream) -> None:
    proxy = record(upstream.url, tmp_path / "s.jsonl")
    try:
        status, text = _raw_post(proxy.url, b" " * (64 * 1024 * 1024 + 1), {})
    finally:
        proxy.stop()
    assert status == 413 and b"more than the limit of 67108864 bytes" in text
    assert upstream.seen == []


def test_a_large_answer_is_read_in_linear_time(tmp_path: Path, upstream: Upstream) -> None:
    text = "y" * (60 * 1000 * 1000)
    answer = json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"text": text}}).encode()
    upstream.answers.append(("application/json", [answer]))
    upstream.go_on.set()
    log = tmp_path / "s.jsonl"
    proxy = record(upstream.url, log, "--no-mask")
    try:
        started = time.monotonic()
        status, body = _raw_post(proxy.url, json.dumps(LOGIN).encode(), {})
        took = time.monotonic() - started
    finally:
        proxy.stop()
    assert status == 200 and body == answer
    assert took < 20, f"a 60 MB answer took {took:.1f} s through the proxy"
    assert logged(log)[1]["message"]["result"]["text"] == text
