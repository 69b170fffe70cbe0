"""Soak run: many tool calls through ``agentforge serve``, over stdio and over HTTP, with
hostile clients mixed in; it passes when every well-behaved request got its answer and
the server's memory stayed flat.

    python benchmarks/soak.py [--stdio CALLS] [--http CALLS]    # 50 000 each by default

stdio: one server, driven with raw JSON-RPC lines, up to 256 requests in flight. One line
in 20 is hostile: a line that is not JSON (answered ``-32700``), a request without a
method (``-32600``), arguments the tool refuses, an unknown tool, a notification. Then
a second server whose client sends calls and closes its input without reading a single
answer must exit 0.

HTTP: one server, driven with httpx by 16 concurrent workers over 4 sessions. One call in
10 comes with a hostile act, in turn: four sessions opened and abandoned after their
``initialize``; a body that is not JSON and a request naming an unknown session; a call
whose connection is closed before the answer; a call whose answer is never read (the
connection is held open, 20 of them at a time).

The server's resident memory (RSS) is sampled every 0.1 s while calls run; the run fails
when the median of the last quarter of the samples exceeds that of the first quarter by
more than 15 % (and 8 MiB), or when a well-behaved request got no answer or a wrong one.
It prints a short report and exits 0 (pass) or 1 (fail).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import psutil

HERE = Path(__file__).resolve().parent
TOOLS = HERE / "soak_tools.py"
AGENTFORGE = Path(sys.executable).with_name("agentforge")
CALLS = 50_000
"""Calls per transport."""
IN_FLIGHT = 256
"""stdio requests sent ahead of their answers."""
HOSTILE_EVERY = 20
HTTP_HOSTILE_EVERY = 10
ABANDON = 4
"""Sessions opened and abandoned by one hostile act."""
HTTP_WORKERS = 16
HTTP_SESSIONS = 4
NEVER_READ_HELD = 20
"""Connections whose answer is never read, held open at once."""
RSS_GROWTH = 0.15
RSS_SLACK = 8 * 1024 * 1024
"""Growth below this many bytes passes whatever its ratio (a small server's noise)."""
SAMPLE_EVERY = 0.1
BOUND = 60.0
"""Longest wait for any one answer, start-up or exit."""
PROTOCOL = "2025-06-18"
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": PROTOCOL, "capabilities": {},
    "clientInfo": {"name": "soak", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def call(request_id: Any, n: Any, name: str = "echo") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": {"n": n}}}


def good_answer(message: dict[str, Any], n: int) -> bool:
    result = message.get("result") or {}
    content = result.get("content") or [{}]
    return result.get("isError") is False and content[0].get("text") == str(n)


@dataclass
class Outcome:
    """What one transport's run saw."""

    name: str
    calls: int = 0
    answered: int = 0
    wrong: list[str] = field(default_factory=list)
    hostile: dict[str, int] = field(default_factory=dict)
    null_id_answers: int = 0
    seconds: float = 0.0
    rss: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def count(self, kind: str) -> None:
        self.hostile[kind] = self.hostile.get(kind, 0) + 1

    def check(self) -> None:
        if self.answered != self.calls:
            self.failures.append(f"{self.calls - self.answered} well-behaved requests "
                                 "got no answer")
        if self.wrong:
            self.failures.append(f"{len(self.wrong)} wrong answers, the first: {self.wrong[0]}")
        first, last = _quarters(self.rss)
        if last > first * (1 + RSS_GROWTH) and last - first > RSS_SLACK:
            self.failures.append(f"RSS grew from {_mib(first)} to {_mib(last)}")

    def report(self) -> list[str]:
        first, last = _quarters(self.rss)
        rate = self.calls / self.seconds if self.seconds else 0.0
        hostile = ", ".join(f"{kind} {number:,}" for kind, number in sorted(self.hostile.items()))
        return [f"{self.name}: {self.calls:,} calls in {self.seconds:.1f} s ({rate:,.0f}/s), "
                f"{self.calls - self.answered:,} unanswered, {len(self.wrong):,} wrong",
                f"  hostile: {hostile or 'none'}",
                f"  server RSS: first quarter {_mib(first)}, last quarter {_mib(last)} "
                f"({(last - first) / first * 100 if first else 0.0:+.1f} %, "
                f"{len(self.rss)} samples)",
                *(f"  {note}" for note in self.notes),
                *(f"  FAILED: {failure}" for failure in self.failures)]


def _quarters(samples: list[int]) -> tuple[float, float]:
    if not samples:
        return 0.0, 0.0
    quarter = max(1, len(samples) // 4)
    return statistics.median(samples[:quarter]), statistics.median(samples[-quarter:])


def _mib(size: float) -> str:
    return f"{size / 1024 / 1024:.1f} MiB"


class Sampler:
    """The RSS of process ``pid``, every :data:`SAMPLE_EVERY` seconds, in a thread."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.samples: list[int] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            with contextlib.suppress(psutil.Error):
                self.samples.append(self.process.memory_info().rss)
            if self.done.wait(SAMPLE_EVERY):
                return

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(BOUND)
        with contextlib.suppress(psutil.Error):
            self.samples.append(self.process.memory_info().rss)


# ---------------------------------------------------------------- stdio


class StdioPeer:
    """A raw JSON-RPC client of ``agentforge serve`` over its standard input and output."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([str(AGENTFORGE), "serve", f"{TOOLS}:echo"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(json.loads(line))
        self.answers.put(None)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")

    def flush(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.flush()

    def initialize(self) -> None:
        self.send(json.dumps(INITIALIZE).encode())
        self.flush()
        answer = self.answers.get(timeout=BOUND)
        if not answer or "result" not in answer:
            raise RuntimeError(f"initialize failed: {answer}")
        self.send(json.dumps(INITIALIZED).encode())

    def close(self) -> int:
        """Close its input (the end of the session); the exit code."""
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()  # type: ignore[union-attr]
        return _reap(self.process)



def _reap(process: subprocess.Popen[bytes]) -> int:
    """The exit code of a process asked to end, killed if it has not within the bound."""
    try:
        return process.wait(BOUND)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

_STDIO_HOSTILE = ("not JSON", "no method", "refused arguments", "unknown tool", "notification")


def _stdio_hostile(kind: str, index: int) -> tuple[bytes, Any, str | None]:
    """The line of a hostile act, the id its answer has, and the check on that answer
    (``None``: no answer is due)."""
    if kind == "not JSON":
        return b'{"jsonrpc": "2.0", "id": oops', None, "-32700"
    if kind == "no method":
        return json.dumps({"jsonrpc": "2.0", "id": f"h{index}"}).encode(), f"h{index}", "-32600"
    if kind == "refused arguments":
        return json.dumps(call(f"h{index}", "many")).encode(), f"h{index}", "isError"
    if kind == "unknown tool":
        return json.dumps(call(f"h{index}", 1, "nope")).encode(), f"h{index}", "any"
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": "none"}}).encode(), None, None


def _hostile_answer_ok(check: str, message: dict[str, Any]) -> bool:
    if check in ("-32700", "-32600"):
        return (message.get("error") or {}).get("code") == int(check)
    if check == "isError":
        return (message.get("result") or {}).get("isError") is True
    return "result" in message or "error" in message


def soak_stdio(calls: int) -> Outcome:
    outcome = Outcome("stdio", calls=calls)
    peer = StdioPeer()
    try:
        peer.initialize()
        expected: dict[Any, tuple[str, Any]] = {}
        """id -> ("good", n) or ("hostile", check); null-id answers are counted apart."""
        null_ids_due = 0
        in_flight = threading.Semaphore(IN_FLIGHT)
        kinds = itertools.cycle(_STDIO_HOSTILE)
        started = time.perf_counter()
        with Sampler(peer.process.pid) as sampler:
            collector = threading.Thread(target=_collect_stdio,
                                         args=(peer, expected, in_flight, outcome), daemon=True)
            lines: list[bytes] = []
            for index in range(calls):
                if index % HOSTILE_EVERY == HOSTILE_EVERY - 1:
                    kind = next(kinds)
                    line, answer_id, check = _stdio_hostile(kind, index)
                    outcome.count(kind)
                    if check is not None:
                        in_flight.acquire()
                        if answer_id is None:
                            null_ids_due += 1
                        else:
                            expected[answer_id] = ("hostile", check)
                    lines.append(line)
                in_flight.acquire()
                expected[index] = ("good", index)
                lines.append(json.dumps(call(index, index)).encode())
                if len(lines) >= 32:
                    peer.send(b"\n".join(lines))
                    peer.flush()
                    lines.clear()
                if index == 0:
                    collector.start()
            if lines:
                peer.send(b"\n".join(lines))
                peer.flush()
            collector.join(BOUND * 10)
        outcome.seconds = time.perf_counter() - started
        outcome.rss = sampler.samples
        missing_hostile = [key for key, (kind, _) in expected.items() if kind == "hostile"]
        if missing_hostile:
            outcome.failures.append(f"{len(missing_hostile)} hostile requests got no answer")
        if outcome.null_id_answers != null_ids_due:
            outcome.failures.append(f"{null_ids_due} lines that are not JSON, "
                                    f"{outcome.null_id_answers} -32700 answers")
    finally:
        code = peer.close()
    if code != 0:
        outcome.failures.append(f"the server exited {code}")
    outcome.notes.append(_client_gone_mid_call())
    if "FAILED" in outcome.notes[-1]:
        outcome.failures.append(outcome.notes.pop())
    outcome.check()
    return outcome


def _collect_stdio(peer: StdioPeer, expected: dict[Any, tuple[str, Any]],
                   in_flight: threading.Semaphore, outcome: Outcome) -> None:
    """Take the answers until every request sent has one (or none comes for a while)."""
    while expected or outcome.answered < outcome.calls:
        try:
            message = peer.answers.get(timeout=BOUND)
        except queue.Empty:
            return
        if message is None:
            return
        in_flight.release()
        key = message.get("id")
        if key is None:
            outcome.null_id_answers += 1
            if (message.get("error") or {}).get("code") != -32700:
                outcome.wrong.append(json.dumps(message)[:200])
            continue
        kind, detail = expected.pop(key, ("unexpected", None))
        if kind == "good":
            outcome.answered += 1
            if not good_answer(message, detail):
                outcome.wrong.append(json.dumps(message)[:200])
        elif kind == "hostile":
            if not _hostile_answer_ok(detail, message):
                outcome.wrong.append(json.dumps(message)[:200])
        else:
            outcome.wrong.append(f"an answer to no request: {json.dumps(message)[:200]}")


def _client_gone_mid_call() -> str:
    """A client sends calls and closes its input at once, reading nothing: the server must
    end, exit 0."""
    peer = StdioPeer()
    try:
        peer.initialize()
        peer.send(b"\n".join(json.dumps(call(i, i)).encode() for i in range(200)))
        peer.flush()
    finally:
        started = time.perf_counter()
        code = peer.close()
    seconds = time.perf_counter() - started
    verdict = "" if code == 0 else "FAILED: "
    return f"{verdict}client gone mid-call: the server exited {code} in {seconds:.1f} s"


# ---------------------------------------------------------------- HTTP


class HttpServer:
    """``agentforge serve --transport http`` on a free loopback port."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [str(AGENTFORGE), "serve", f"{TOOLS}:echo", "--transport", "http", "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True)
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._drain, args=(lines,), daemon=True).start()
        while (line := lines.get(timeout=BOUND)) is not None:
            if "listening on " in line:
                self.url = line.split("listening on ")[1].split()[0]
                return
        raise RuntimeError("the HTTP server did not start")

    def _drain(self, lines: queue.Queue[str | None]) -> None:
        for line in self.process.stderr:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    def stop(self) -> int:
        self.process.terminate()
        return _reap(self.process)


def _message(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of an answer, a JSON body or an event stream."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                return json.loads(line[5:])
        return {}
    return response.json()


async def _open_session(client: httpx.AsyncClient, url: str, complete: bool = True) -> str:
    response = await client.post(url, json=INITIALIZE, headers=ACCEPT)
    if response.status_code != 200:
        raise RuntimeError(f"initialize answered HTTP {response.status_code}")
    session = response.headers["mcp-session-id"]
    if complete:
        done = await client.post(url, json=INITIALIZED, headers=_in(session))
        if done.status_code != 202:
            raise RuntimeError(f"initialized answered HTTP {done.status_code}")
    return session


def _in(session: str) -> dict[str, str]:
    return {**ACCEPT, "Mcp-Session-Id": session, "Mcp-Protocol-Version": PROTOCOL}


def _raw_post(url: str, session: str, body: dict[str, Any]) -> bytes:
    parts = urlsplit(url)
    data = json.dumps(body).encode()
    head = (f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: {PROTOCOL}\r\n"
            f"Content-Length: {len(data)}\r\n\r\n")
    return head.encode() + data


class HttpHostile:
    """The hostile acts, in turn."""

    def __init__(self, client: httpx.AsyncClient, url: str, session: str,
                 outcome: Outcome) -> None:
        self.client, self.url, self.session, self.outcome = client, url, session, outcome
        self.held: deque[asyncio.StreamWriter] = deque()
        self.acts = itertools.cycle((self.abandon, self.garbage, self.disconnect,
                                     self.never_read))

    async def act(self) -> None:
        await next(self.acts)()

    async def abandon(self) -> None:
        for _ in range(ABANDON):
            await _open_session(self.client, self.url, complete=False)
            self.outcome.count("sessions abandoned")

    async def garbage(self) -> None:
        bad = await self.client.post(self.url, content=b"{not json",
                                     headers=_in(self.session))
        unknown = await self.client.post(self.url, json=call(1, 1),
                                         headers=_in("0" * 32))
        self.outcome.count("bodies not JSON")
        self.outcome.count("unknown sessions")
        if (bad.status_code, unknown.status_code) != (400, 404):
            self.outcome.wrong.append(f"garbage answered HTTP {bad.status_code}, an unknown "
                                      f"session HTTP {unknown.status_code}")

    async def _connect(self, index: int) -> asyncio.StreamWriter:
        parts = urlsplit(self.url)
        _, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(_raw_post(self.url, self.session, call(f"x{index}", index)))
        await writer.drain()
        return writer

    async def disconnect(self) -> None:
        writer = await self._connect(0)
        writer.close()
        self.outcome.count("calls disconnected")

    async def never_read(self) -> None:
        self.held.append(await self._connect(1))
        self.outcome.count("answers never read")
        if len(self.held) > NEVER_READ_HELD:
            self.held.popleft().close()

    def close(self) -> None:
        while self.held:
            self.held.popleft().close()


async def _http_calls(url: str, calls: int, outcome: Outcome) -> None:
    # a connection idle for uvicorn's keep-alive timeout (5 s) is closed by the server: one
    # reused at that moment fails without an answer, so idle ones are dropped well before
    limits = httpx.Limits(max_connections=HTTP_WORKERS + 8,
                          max_keepalive_connections=HTTP_WORKERS + 8, keepalive_expiry=1.0)
    async with httpx.AsyncClient(timeout=BOUND, limits=limits) as client:
        sessions = [await _open_session(client, url) for _ in range(HTTP_SESSIONS)]
        hostile = HttpHostile(client, url, await _open_session(client, url), outcome)
        indexes = iter(range(calls))

        async def worker(session: str) -> None:
            for index in indexes:
                try:
                    response = await client.post(url, json=call(index, index),
                                                 headers=_in(session))
                    message = _message(response)
                except (httpx.HTTPError, ValueError) as exc:
                    outcome.wrong.append(f"call {index}: {type(exc).__name__}: {exc}")
                    continue
                if response.status_code != 200 or message.get("id") != index:
                    outcome.wrong.append(f"call {index}: HTTP {response.status_code} "
                                         f"{json.dumps(message)[:200]}")
                    continue
                outcome.answered += 1
                if not good_answer(message, index):
                    outcome.wrong.append(json.dumps(message)[:200])
                if index % HTTP_HOSTILE_EVERY == HTTP_HOSTILE_EVERY - 1:
                    try:
                        await hostile.act()
                    except (httpx.HTTPError, OSError, RuntimeError) as exc:
                        outcome.wrong.append(f"hostile act: {type(exc).__name__}: {exc}")

        try:
            await asyncio.gather(*(worker(sessions[n % HTTP_SESSIONS])
                                   for n in range(HTTP_WORKERS)))
        finally:
            hostile.close()


def soak_http(calls: int) -> Outcome:
    outcome = Outcome("http", calls=calls)
    server = HttpServer()
    try:
        started = time.perf_counter()
        with Sampler(server.process.pid) as sampler:
            asyncio.run(_http_calls(server.url, calls, outcome))
        outcome.seconds = time.perf_counter() - started
        outcome.rss = sampler.samples
    finally:
        code = server.stop()
    if code != 0:
        outcome.failures.append(f"the server exited {code}")
    outcome.check()
    return outcome


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stdio", type=int, default=CALLS, metavar="CALLS",
                        help=f"calls over stdio (default {CALLS})")
    parser.add_argument("--http", type=int, default=CALLS, metavar="CALLS",
                        help=f"calls over HTTP (default {CALLS})")
    options = parser.parse_args(argv)
    if min(options.stdio, options.http) < 1:
        parser.error("the counts must be positive")
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    outcomes = [soak_stdio(options.stdio), soak_http(options.http)]
    for outcome in outcomes:
        print("\n".join(outcome.report()), flush=True)
    failed = any(outcome.failures for outcome in outcomes)
    print("soak: FAILED" if failed else "soak: passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
