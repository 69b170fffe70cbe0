"""``tools check --client`` on an MCP server's tools (``faulty_server.py clients``),
through ``agentforge`` run as a subprocess: the server's dotted names, its top-level
``anyOf`` and its draft-07 ``outputSchema`` are reported for the clients they break."""

from __future__ import annotations

import json

from test_mcp_faults import FAULTY, agentforge


def client_findings(*clients: str) -> set[tuple[str, str, str]]:
    done = agentforge("tools", "check", "--json", f"{FAULTY} clients",
                      *(f"--client={client}" for client in clients))
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert document["tools"] == 4 and document["clients"] == list(clients)
    return {(f["tool"], f["rule"], f["level"]) for f in document["findings"]
            if f["rule"].partition(":")[0] in clients}


def test_a_servers_tools_are_checked_for_each_client() -> None:
    assert client_findings("claude-code", "codex", "gemini-cli") == {
        ("pick", "claude-code:input-root", "error"),
        ("report", "claude-code:output-dialect", "error"),
        ("a.b", "claude-code:name-collision", "error"),
        ("a_b", "claude-code:name-collision", "error"),
        ("a.b", "codex:name", "error"),
    }


def test_the_output_schema_of_a_server_tool_is_read() -> None:
    assert client_findings("claude-desktop") == {
        ("a.b", "claude-desktop:name", "error"),
        ("report", "claude-desktop:output-dialect", "error"),
    }
