"""The docs show every entry of the registries: each transcript format in docs/replay.md
(by its title, as replay names it), each provider format in the table of docs/checks.md
(by its name). A throwaway entry of each kind, registered here, is reported missing, so
the check cannot pass by looking at nothing."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import registry
from agentforge_cli.schema import providers

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "docs" / "replay.md"
CHECKS = ROOT / "docs" / "checks.md"
TABLE_ROW = re.compile(r"^\| `([\w-]+)` \|", re.M)


def formats_not_shown(text: str) -> list[str]:
    return [fmt.NAME for fmt in registry.FORMATS if fmt.TITLE not in text]


def providers_not_shown(text: str) -> list[str]:
    rows = set(TABLE_ROW.findall(text))
    return [name for name in providers.FORMATS if name not in rows]


def test_every_transcript_format_is_shown_in_the_replay_page():
    assert formats_not_shown(REPLAY.read_text(encoding="utf-8")) == []


def test_every_provider_format_has_a_row_in_the_checks_table():
    assert providers_not_shown(CHECKS.read_text(encoding="utf-8")) == []


def test_a_format_the_page_does_not_show_is_named(monkeypatch: pytest.MonkeyPatch):
    class Throwaway:
        NAME = "throwaway"
        TITLE = "throwaway transcripts nobody documented"

    monkeypatch.setattr(registry, "FORMATS", (*registry.FORMATS, Throwaway()))
    assert formats_not_shown(REPLAY.read_text(encoding="utf-8")) == ["throwaway"]


def test_a_provider_the_table_does_not_show_is_named(monkeypatch: pytest.MonkeyPatch):
    first = providers.REGISTRY[0]
    throwaway = dataclasses.replace(first, name="throwaway")
    monkeypatch.setattr(providers, "REGISTRY", (*providers.REGISTRY, throwaway))
    assert providers_not_shown(CHECKS.read_text(encoding="utf-8")) == ["throwaway"]
