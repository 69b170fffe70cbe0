"""The table of MCP clients in docs/checks.md is the registry's: generated from it, each
rule with its source and date. A client added to the registry, and not to the page, fails
here, so the page cannot drift."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from agentforge_cli.schema.clients import REGISTRY, ClientRule, Source
from agentforge_cli.schema.clients.table import clients_markdown

CHECKS = Path(__file__).resolve().parents[2] / "docs" / "checks.md"
BLOCK = re.compile(r"<!-- clients:start -->\n(.*?)<!-- clients:end -->", re.S)


def page_table() -> str:
    found = BLOCK.search(CHECKS.read_text(encoding="utf-8"))
    assert found is not None, "the clients table of docs/checks.md is gone"
    return found.group(1)


def test_the_page_shows_the_registry() -> None:
    assert page_table() == clients_markdown(), (
        "regenerate the block with agentforge_cli.schema.clients.table.clients_markdown()")


def test_every_rule_of_every_client_has_a_row_with_its_source() -> None:
    text = page_table()
    for client in REGISTRY:
        assert f"`{client.name}`" in text
        for rule in client.rules:
            assert f"`{client.name}:{rule.kind}` | <{rule.source.url}> | " \
                   f"{rule.source.checked} |" in text


def test_a_client_missing_from_the_page_is_noticed() -> None:
    extra = dataclasses.replace(REGISTRY[0], name="newcomer", rules=(ClientRule(
        kind="tool-count", level="error", limit=3, consequence="refused",
        source=Source(url="https://example.org/limits", checked="2026-12-06")),))
    assert clients_markdown((*REGISTRY, extra)) != page_table()
    assert "| `newcomer:tool-count` | <https://example.org/limits> | 2026-12-06 |" in (
        clients_markdown((*REGISTRY, extra)))
