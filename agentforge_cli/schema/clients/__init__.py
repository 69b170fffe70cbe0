"""MCP clients: what each one does to a tool set that the JSON Schema alone allows.

Each client is a declared :class:`~agentforge_cli.schema.clients.base.Client` (in
:mod:`~agentforge_cli.schema.clients.catalog`), and :data:`REGISTRY` lists them. ``tools
check --client NAME`` runs a client's rules over the whole tool set, and the lint rules
of the providers behind it.
"""

from __future__ import annotations

from agentforge_cli.schema.clients.base import RULE_KINDS, Client, ClientRule, Source
from agentforge_cli.schema.clients.catalog import (
    CHATGPT,
    CLAUDE_API_STRICT,
    CLAUDE_CODE,
    CLAUDE_DESKTOP,
    CODEX,
    CURSOR,
    GEMINI_CLI,
    VSCODE,
)
from agentforge_cli.schema.clients.rules import client_findings

__all__ = ["REGISTRY", "RULE_KINDS", "Client", "ClientRule", "Source", "client_findings",
           "client_names", "get_client"]

REGISTRY: tuple[Client, ...] = (
    CLAUDE_DESKTOP, CLAUDE_CODE, CODEX, GEMINI_CLI, CURSOR, VSCODE, CHATGPT,
    CLAUDE_API_STRICT,
)
"""Every client agentforge knows, in the order the command line lists them."""


def client_names() -> tuple[str, ...]:
    """The names ``--client`` takes."""
    return tuple(client.name for client in REGISTRY)


def get_client(name: str) -> Client:
    """The registered client of that name (case and spaces ignored).

    Raises:
        ValueError: For an unknown client, naming the known ones.
    """
    wanted = name.strip().lower()
    for client in REGISTRY:
        if client.name == wanted:
            return client
    raise ValueError(f"unknown client {name!r}; choose one of: {', '.join(client_names())}")
