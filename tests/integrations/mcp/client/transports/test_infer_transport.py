"""Which transport a target gets: ``mcp:`` commands over stdio, URLs over streamable HTTP
or, at a path ending in ``/sse`` or after a POST refused with 400/404/405, HTTP+SSE."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentforge_cli.integrations.mcp.client.connection import McpConnection
from agentforge_cli.integrations.mcp.client.transports.inference import (
    infer_transport,
    is_mcp_target,
)
from agentforge_cli.integrations.mcp.client.transports.sse import SSE
from agentforge_cli.integrations.mcp.client.transports.stdio import STDIO
from agentforge_cli.integrations.mcp.client.transports.streamable_http import STREAMABLE_HTTP

COMMAND = "mcp:python -m mcp_server_time"


@pytest.mark.parametrize("spec, transport", [
    (COMMAND, STDIO),
    ("mcp:./server --url http://example.com/sse", STDIO),
    ("http://127.0.0.1:8000/mcp", STREAMABLE_HTTP),
    ("https://example.com/", STREAMABLE_HTTP),
    ("https://example.com", STREAMABLE_HTTP),
    ("http://example.com/events", STREAMABLE_HTTP),
    ("http://example.com/ssefeed", STREAMABLE_HTTP),
    ("http://example.com/sse/mcp", STREAMABLE_HTTP),
    ("http://example.com/mcp?via=/sse", STREAMABLE_HTTP),
    ("http://example.com/sse", SSE),
    ("https://example.com/sse/", SSE),
    ("http://user:secret@example.com:9000/api/sse?team=a", SSE),
])
def test_each_form_of_target_gets_its_transport(spec: str, transport: object) -> None:
    assert infer_transport(spec) is transport


@pytest.mark.parametrize("status", [400, 404, 405])
def test_a_url_whose_post_is_refused_so_is_tried_over_sse(status: int) -> None:
    assert infer_transport("http://example.com/mcp", status) is SSE


@pytest.mark.parametrize("status", [401, 403, 406, 415, 500, 503])
def test_other_refusals_stand(status: int) -> None:
    assert infer_transport("http://example.com/mcp", status) is STREAMABLE_HTTP


@pytest.mark.parametrize("status", [400, 401, 404, 405, 500])
def test_sse_and_stdio_have_nothing_to_fall_back_to(status: int) -> None:
    assert infer_transport("http://example.com/sse", status) is SSE
    assert infer_transport(COMMAND, status) is STDIO


def test_the_transports_are_named_as_the_protocol_names_them() -> None:
    assert [t.name for t in (STDIO, STREAMABLE_HTTP, SSE)] == [
        "stdio", "streamable HTTP", "HTTP+SSE"]


def test_a_connection_starts_on_the_inferred_transport(tmp_path: Path) -> None:
    for spec in (COMMAND, "http://example.com/mcp", "http://example.com/sse"):
        connection = McpConnection(spec, [], cwd=tmp_path, timeout=1.0)
        assert connection.transport is infer_transport(spec)


@pytest.mark.parametrize("spec, named", [
    (COMMAND, True), ("http://example.com/mcp", True), ("https://example.com", True),
    ("tools.py", False), ("sample_tools.crm:TOOLS", False), ("ftp://example.com", False),
    ("MCP:python server.py", False), ("mcp", False),
])
def test_is_mcp_target_tells_servers_from_other_targets(spec: str, named: bool) -> None:
    assert is_mcp_target(spec) is named
