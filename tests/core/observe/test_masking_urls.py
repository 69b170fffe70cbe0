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

from agentforge_cli.core.observe.masking import (
    is_secret_value,
    mask_command,
    mask_target,
    mask_url,
    mask_values,
    secret_values,
)

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
    ("https://bucket.s3.amazonaws.com/o?X-Amz-Credential=AK%2F1&X-Amz-Signature=f00d&n=1",
     "https://bucket.s3.amazonaws.com/o?X-Amz-Credential=***&X-Amz-Signature=***&n=1"),
    ("https://storage.googleapis.com/b/o?X-Goog-Signature=beef&X-Goog-Expires=60",
     "https://storage.googleapis.com/b/o?X-Goog-Signature=***&X-Goog-Expires=60"),
    ("https://app.example/callback#access_token=t0k3n&token_type=bearer&state=7",
     "https://app.example/callback#access_token=***&token_type=bearer&state=7"),
    ("https://example.com/mcp?team=7;api_key=abc123;page=2",
     "https://example.com/mcp?team=7;api_key=***;page=2"),
    ("HTTP://ann:hunter2@EXAMPLE.com/mcp?Token=abc", "HTTP://***@EXAMPLE.com/mcp?Token=***"),
    ("Https://example.com/mcp?x=1#sig=zz", "Https://example.com/mcp?x=1#sig=***"),
    ("https://example.com/a?b&c=d%20e&password=", "https://example.com/a?b&c=d%20e&password=***"),
])
def test_a_urls_credentials_are_masked(url, shown):
    assert mask_url(url) == shown


def test_given_values_are_masked_wherever_they_appear():
    text = "starting with token s3cr3t-token and key ab; s3cr3t-token again"
    assert mask_values(text, ["s3cr3t-token", "ab", ""]) == (
        "starting with token *** and key ab; *** again")


@pytest.mark.parametrize(("value", "secret"), [
    ("s3cr3t-token", True), ("sk-abcdefgh", True), ("hunter22", True),
    ("correcthorsebatterystaple", True),
    ("1", False), ("true", False), ("abc1234", False),  # short
    ("2025-06-18", False), ("1234567890", False), ("10.0.0.100", False),  # no letter
    ("production", False), ("localhost", False), ("  DISABLED  ", False),  # common words
])
def test_only_long_uncommon_values_are_hunted_down(value, secret):
    assert is_secret_value(value) is secret
    assert (mask_values(f"<{value}>", [value]) == "<***>") is secret


def test_the_values_masked_are_those_of_secret_names_and_of_headers():
    env = {"DEBUG": "1", "LOG_LEVEL": "verbose-debugging", "API_TOKEN": "s3cr3t-123",
           "DB_PASSWORD": "short", "GITHUB_TOKEN": "2025-06-18"}
    headers = {"Authorization": "Bearer abcdefgh123", "X-Team": "12", "X-Trace": "t-9f8e7d6c"}
    assert set(secret_values(env, headers)) == {"s3cr3t-123", "Bearer abcdefgh123",
                                                "abcdefgh123", "t-9f8e7d6c"}
    # a version the protocol itself writes survives an --env value equal to it
    assert mask_values('{"protocolVersion":"2025-06-18","id":1}',
                       secret_values({"DEBUG": "1", "RELEASE_TOKEN": "2025-06-18"})) == (
        '{"protocolVersion":"2025-06-18","id":1}')


@pytest.mark.parametrize(("words", "shown"), [
    (["server.py", "--token", "abc123"], ["server.py", "--token", "***"]),
    (["server.py", "--api-key=abc123", "-v"], ["server.py", "--api-key=***", "-v"]),
    (["s", "--password", "--verbose", "x"], ["s", "--password", "--verbose", "x"]),
    (["s", "--AUTH_TOKEN", "a", "b"], ["s", "--AUTH_TOKEN", "***", "b"]),
    (["s", "--max-tokens", "9", "https://u:p@h/x"], ["s", "--max-tokens", "9", "https://***@h/x"]),
    (["s", "--", "--token"], ["s", "--", "--token"]),
])
def test_a_command_lines_secrets_are_masked(words, shown):
    assert mask_command(words) == shown
    assert mask_target("mcp:" + " ".join(words)) == "mcp:" + " ".join(shown)


def test_a_command_that_cannot_start_does_not_show_its_secret_arguments(tmp_path):
    missing = tmp_path / "no-such-server"
    done = run("tools", "list", f"mcp:{missing} --token abc123xyz --api-key=zz9zz9zz")
    assert done.returncode == 3, done.stderr
    assert "abc123xyz" not in done.stderr and "zz9zz9zz" not in done.stderr
    assert "--token ***" in done.stderr and "--api-key=***" in done.stderr


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
