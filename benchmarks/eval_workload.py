"""``agentforge eval``'s own overhead per decision, beside the model's response time.

A loopback OpenAI-compatible server answers every chat completion after ``LATENCY``
seconds with the call the transcript recorded; eval asks it at each decision of a
generated transcript, one request at a time, through the official SDK and a fresh
cassette (every request is sent and kept, as in a first run). The server runs in a
process of its own, as a model's server does (in eval's process its threads would take
the GIL from eval's).

The model's response time is what any client waits for it: right after each eval run,
a bare ``http.client`` connection sends the same requests (the bodies the cassette kept)
to the same server, one at a time. Eval's overhead per decision is its wall time per
decision minus that bare client's per request; the server also times each request from
its request line read to its answer written, which the row shows beside it.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

LATENCY = 0.05
DECISIONS = 40
TARGET = 0.05  # the harness adds at most 5 % to the model's time

_ANSWER = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
           "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
               "role": "assistant", "content": None, "tool_calls": [{
                   "id": "call_0", "type": "function", "function": {
                       "name": "queryCustomer",
                       "arguments": json.dumps({"name": "长路", "limit": 5})}}]}}],
           "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}


def _serve() -> None:
    """(The server's process.) Print the port, then answer until killed; ``GET`` answers
    the seconds spent on each ``POST`` since the last ``GET``."""
    timings: list[float] = []
    answer = json.dumps(_ANSWER).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real server does
        disable_nagle_algorithm = True  # headers and body sent apart: no 40 ms ACK wait
        started = 0.0

        def log_message(self, *args: Any) -> None:
            pass

        def parse_request(self) -> bool:  # called once the request line is read
            self.started = time.perf_counter()
            return super().parse_request()

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            json.loads(body)
            time.sleep(LATENCY)
            self._send(answer)
            timings.append(time.perf_counter() - self.started)

        def do_GET(self) -> None:
            self._send(json.dumps(timings).encode())
            timings.clear()

        def _send(self, data: bytes) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever()


class _SlowModel:
    """The server's process."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, __file__, "--serve"],
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def seconds(self) -> list[float]:
        """The time spent on each request since the last call."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback
        with opener.open(self.base_url, timeout=10) as response:
            spent: list[float] = json.loads(response.read())
        return spent

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(5)


def _transcript(path: Path) -> None:
    """A conversation of ``DECISIONS`` decisions, each a call and its result."""
    lines = [{"type": "user", "content": '查一下客户"长路"的信息'}]
    for n in range(DECISIONS):
        lines += [
            {"type": "tool_call", "id": f"call_{n}", "name": "queryCustomer",
             "arguments": json.dumps({"name": "长路", "limit": 5})},
            {"type": "tool_result", "id": f"call_{n}", "content": "customer:长路,limit:5",
             "is_error": False},
            {"type": "user", "content": f"again, time {n}"}]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                    encoding="utf-8")


def _run(server: _SlowModel, transcript: Path, cassette: Path) -> float:
    """Seconds one eval of the transcript takes, from opening the model to the scores."""
    from agentforge_cli.integrations.targets.loading import load_service
    from agentforge_cli.models.eval.run import EvalOptions, evaluate
    from agentforge_cli.models.model import open_model
    from agentforge_cli.models.registry import parse_model

    service = load_service(["sample_tools.crm:CrmTools"])
    connection, name = parse_model("openai:bench")
    started = time.perf_counter()
    model = open_model(connection, name, cassette=cassette, base_url=server.base_url)
    try:
        scores = evaluate([str(transcript)], service, model, EvalOptions(concurrency=1))
    finally:
        model.close()
    seconds = time.perf_counter() - started
    agreed = sum(decision.agreed for decision in scores[0].decisions)
    assert agreed == DECISIONS, f"{agreed} of {DECISIONS} decisions agreed"
    return seconds


def _bare(server: _SlowModel, cassette: Path) -> float:
    """Seconds a bare keep-alive ``http.client`` connection takes to send the requests the
    cassette kept, one at a time, and read each answer."""
    import yaml

    kept = yaml.safe_load(cassette.read_text(encoding="utf-8"))["interactions"]
    bodies = [interaction["request"]["body"].encode() for interaction in kept]
    assert len(bodies) == DECISIONS
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        started = time.perf_counter()
        for body in bodies:
            connection.request("POST", "/v1/chat/completions", body=body,
                               headers={"content-type": "application/json"})
            with connection.getresponse() as response:
                response.read()
        return time.perf_counter() - started
    finally:
        connection.close()


def eval_overhead_row(row: Callable[..., None], runs: int = 3) -> None:
    server = _SlowModel()
    try:
        with tempfile.TemporaryDirectory() as folder:
            transcript = Path(folder) / "long.jsonl"
            _transcript(transcript)
            best: tuple[float, float, float] | None = None  # overhead, bare, served
            for run in range(runs + 1):  # the first run warms the imports up
                cassette = Path(folder) / f"cassette-{run}.yaml"
                server.seconds()
                wall = _run(server, transcript, cassette)
                served = sum(server.seconds()) / DECISIONS
                bare = _bare(server, cassette) / DECISIONS
                server.seconds()
                overhead = wall / DECISIONS - bare
                if run and (best is None or overhead < best[0]):
                    best = (overhead, bare, served)
    finally:
        server.stop()
    assert best is not None
    overhead, bare, served = best
    row(f"eval, per decision ({DECISIONS} decisions, one at a time)",
        f"{overhead * 1000:.2f} ms added",
        f"a bare http.client, the same requests: {bare * 1000:.1f} ms "
        f"(the server's own time {served * 1000:.1f} ms)",
        (overhead + bare) / bare, f"adds <= {TARGET:.0%}", overhead / bare <= TARGET)


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    _serve()
