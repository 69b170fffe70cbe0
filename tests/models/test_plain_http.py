"""The transport a plain ``http://`` model server is reached through (``http.client``
under the SDK's own client), driven through the official OpenAI SDK: kept-alive
connections, a connection the server closed, compressed and chunked answers, and every
failure the SDK must see as the HTTP library's own (so it retries what it retries)."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import pytest

from agentforge_cli.models.errors import ModelError
from agentforge_cli.models.model import open_model
from agentforge_cli.models.plain_http import plain_transport_class
from agentforge_cli.models.prompt import Prompt, Said
from agentforge_cli.models.registry import MODEL_CONNECTIONS

PROMPT = Prompt(None, (Said("user", "find 长路"),), [])
ANSWER = {"choices": [{"message": {"role": "assistant", "content": "found 长路"}}]}


class Server:
    """An HTTP/1.1 server that keeps connections alive unless told how to misbehave;
    ``seen`` holds ``(client port, headers, body)`` of each request."""

    def __init__(self, **behaviour: Any) -> None:
        self.behaviour = behaviour
        self.seen: list[tuple[int, list[tuple[str, str]], bytes]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                server.seen.append((self.client_address[1], self.headers.items(), body))
                server.answer(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda *_: None  # type: ignore[method-assign]  # a client gone
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        data = json.dumps(ANSWER).encode()
        if self.behaviour.get("sleep"):
            time.sleep(self.behaviour["sleep"])
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        if self.behaviour.get("gzip_chunked"):
            data = gzip.compress(data)
            handler.send_header("content-encoding", "gzip")
            handler.send_header("transfer-encoding", "chunked")
            handler.end_headers()
            for start in range(0, len(data), 7):
                piece = data[start:start + 7]
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            handler.wfile.write(b"0\r\n\r\n")
            return
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        if self.behaviour.get("cut_short"):  # half the body, then the connection ends
            handler.wfile.write(data[: len(data) // 2])
            handler.close_connection = True
            return
        handler.wfile.write(data)
        if self.behaviour.get("close_after"):  # closed without saying so
            handler.close_connection = True


@contextmanager
def serving(**behaviour: Any) -> Iterator[Server]:
    server = Server(**behaviour)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join(5)


def _ask(url: str, times: int = 1, pause: float = 0.0, **settings: Any) -> list[str]:
    model = open_model(MODEL_CONNECTIONS.get("openai"), "m", cassette=None, base_url=url,
                       **settings)
    try:
        texts = []
        for n in range(times):
            if n and pause:
                time.sleep(pause)
            texts.append(model.ask(PROMPT).text)
        return texts
    finally:
        model.close()


def _retries(server: Server) -> list[str]:
    return [dict((k.lower(), v) for k, v in headers)["x-stainless-retry-count"]
            for _, headers, _ in server.seen]


def test_requests_share_one_kept_alive_connection():
    with serving() as server:
        assert _ask(server.url, times=3) == ["found 长路"] * 3
    assert len({port for port, _, _ in server.seen}) == 1
    assert _retries(server) == ["0", "0", "0"]


def test_a_connection_the_server_closed_while_idle_is_replaced_without_a_retry():
    with serving(close_after=True) as server:
        assert _ask(server.url, times=3, pause=0.2) == ["found 长路"] * 3
    assert len({port for port, _, _ in server.seen}) == 3
    assert _retries(server) == ["0", "0", "0"]  # the SDK never saw a failure


def test_a_compressed_chunked_answer_is_read():
    with serving(gzip_chunked=True) as server:
        assert _ask(server.url, times=2) == ["found 长路"] * 2
    assert len({port for port, _, _ in server.seen}) == 1


def test_an_answer_cut_short_is_the_library_error_the_sdk_retries():
    with serving(cut_short=True) as server, pytest.raises(ModelError) as caught:
        _ask(server.url, max_retries=1, retry_delay=0.01)
    assert "APIConnectionError" in str(caught.value)
    assert _retries(server) == ["0", "1"]


def test_a_server_that_answers_too_late_is_a_timeout():
    with serving(sleep=1.0) as server, pytest.raises(ModelError) as caught:
        _ask(server.url, timeout=0.2, max_retries=0)
    assert "APITimeoutError" in str(caught.value)


def test_no_server_is_a_connection_error():
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with pytest.raises(ModelError) as caught:
        _ask(f"http://127.0.0.1:{port}/v1", max_retries=0)
    assert "APIConnectionError" in str(caught.value)


@pytest.mark.parametrize("content", [b'{"model":"m","messages":["\xe9\x95\xbf"]}', b""])
def test_the_request_on_the_wire_is_the_one_the_library_sends(content):
    """The same request, sent by the library's own transport and by this one, arrives
    with the same headers in the same order and the same body."""
    with serving() as server:
        client = httpx2.Client()
        request = client.build_request("POST", server.url + "/chat/completions",
                                       content=content, headers={"x-custom": "1"})
        for transport in (httpx2.HTTPTransport(), plain_transport_class(httpx2)()):
            request.stream = httpx2.ByteStream(content)
            answer = transport.handle_request(request)
            answer.read()
            assert answer.json() == ANSWER
            transport.close()
        client.close()
    (_, theirs, their_body), (_, ours, our_body) = server.seen
    assert ours == theirs
    assert our_body == their_body == content


def test_a_header_holding_a_line_break_is_refused_before_anything_is_sent():
    with serving() as server:
        request = httpx2.Request("POST", server.url + "/chat/completions", content=b"{}",
                                 headers={"x-note": "a\r\nX-Smuggled: 1"})
        with pytest.raises(httpx2.LocalProtocolError):
            plain_transport_class(httpx2)().handle_request(request)
    assert server.seen == []


@pytest.mark.parametrize(("name", "library"), [
    ("openai", "httpx2"), ("anthropic", "httpx2"), ("gemini", "httpx")])
def test_each_sdk_is_given_a_client_of_the_library_it_is_built_on(name, library):
    model = open_model(MODEL_CONNECTIONS.get(name), "m", cassette=None,
                       base_url="http://127.0.0.1:9")
    try:
        assert type(model._http).__module__.split(".")[0] == library
    finally:
        model.close()
