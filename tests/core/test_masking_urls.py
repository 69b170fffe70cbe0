"""Secrets that reach agentforge from outside a tool's arguments stay out of its
messages: a target URL's credentials, the values given to a server (``--env``,
``--header``) when its standard error is quoted, and a server's own HTTP reason phrase."""

from __future__ import annotations

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agentforge_cli.core.masking import mask_url, mask_values

AGENTFORGE = Path(sys.executable).with_name("agentforge")


@pytest.mark.parametrize(("url", "shown"), [
    ("https://ann:hunter2@example.com/mcp", "https://***@example.com/mcp"),
    ("https://tok3n@example.com/mcp", "https://***@example.com/mcp"),
    ("http://127.0.0.1:8000/mcp?api_key=abc123&team=7",
     "http://127.0.0.1:8000/mcp?api_key=***&team=7"),
    ("https://example.com/sse?key=k1&sig=s2&access_token=t3&code=c4",
     "https://example.com/sse?key=***&sig=***&access_token=***&code=***"),
    ("https://example.com/mcp?tokens_used=5&max_tokens=9",
     "https://example.com/mcp?tokens_used=5&max_tokens=9"),
    ("https://example.com/mcp", "https://example.com/mcp"),
    ("mcp:python server.py --token x", "mcp:python server.py --token x"),
])
def test_a_urls_credentials_are_masked(url, shown):
    assert mask_url(url) == shown


def test_given_values_are_masked_wherever_they_appear():
    text = "starting with token s3cr3t-token and key ab; s3cr3t-token again"
    assert mask_values(text, ["s3cr3t-token", "ab", ""]) == (
        "starting with token *** and key ab; *** again")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def test_a_servers_stderr_is_quoted_without_what_it_was_given(tmp_path):
    server = tmp_path / "leaky.py"
    server.write_text("import os, sys\nprint('token is', os.environ['API_TOKEN'], "
                      "file=sys.stderr)\nsys.exit(1)\n", encoding="utf-8")
    done = run("tools", "list", f"mcp:{sys.executable} {server}", "--env",
               "API_TOKEN=s3cr3t-token-123")
    assert done.returncode == 3
    assert "token is ***" in done.stderr
    assert "s3cr3t-token-123" not in done.stderr + done.stdout


def test_a_target_urls_credentials_never_reach_the_message():
    url = "http://ann:hunter2@127.0.0.1:9/mcp?api_key=abc123"  # port 9: nothing listens
    done = run("tools", "list", url)
    assert done.returncode == 3, done.stderr
    assert "hunter2" not in done.stderr and "abc123" not in done.stderr
    assert "http://***@127.0.0.1:9/mcp?api_key=***" in done.stderr


class _Refusing(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.send_response(401, "Bearer leaked-token-xyz")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


def test_a_servers_reason_phrase_is_not_repeated():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        done = run("tools", "list", f"http://127.0.0.1:{server.server_port}/mcp")
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 3
    assert "HTTP 401 Unauthorized" in done.stderr
    assert "leaked-token-xyz" not in done.stderr


def test_a_url_that_cannot_be_parsed_still_has_its_credentials_masked():
    assert mask_url("http://ann:hunter2@[::1/mcp") == "http://***@[::1/mcp"
    assert mask_url("http://[::1/mcp") == "http://[::1/mcp"
