"""MCP servers that speak only the older HTTP+SSE transport (``sse_server.py``, the SDK's
own SSE server, started by the test on loopback and stopped by it): a URL ending in
``/sse`` is spoken to over SSE; any other URL whose POST is refused is tried over SSE
too; a path where nothing is served says so, naming both transports.
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Iterator

import pytest
from mcp_client_support import HERE, ROOT, announced_url
from test_mcp_faults import agentforge


@pytest.fixture(scope="module", params=["/sse", "/events"])
def sse_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The event stream's URL of an SSE-only server: at ``/sse`` (known by its path) or
    at ``/events`` (found after the POST is refused)."""
    with announced_url([sys.executable, str(HERE / "sse_server.py"), request.param], ROOT,
                       stop=signal.SIGTERM) as url:
        yield url


def test_list_and_call_over_sse(sse_url: str) -> None:
    listed = agentforge("tools", "list", "--format", "json", sse_url)
    assert listed.returncode == 0, listed.stderr
    assert [row["name"] for row in json.loads(listed.stdout)] == ["echo", "add"]
    called = agentforge("tools", "call", "add", '{"a": 2, "b": 3}', "-t", sse_url)
    assert (called.returncode, called.stdout) == (0, "5\n"), called.stderr
    echoed = agentforge("tools", "call", "echo", '{"text": "über"}', "-t", sse_url)
    assert (echoed.returncode, echoed.stdout) == (0, "über\n"), echoed.stderr


def test_a_path_with_nothing_names_both_transports(sse_url: str) -> None:
    nowhere = sse_url.rsplit("/", 1)[0] + "/mcp"
    done = agentforge("tools", "list", nowhere)
    assert done.returncode == 3
    first, hint = done.stderr.splitlines()[:2]
    assert first.startswith(f"error: MCP server {nowhere} did not answer: HTTP 404 Not Found")
    assert "/mcp" in hint and "/sse" in hint and "HTTP+SSE" in hint
