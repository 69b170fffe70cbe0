"""The docs show every entry of the registries: each transcript format in docs/replay.md
(by its title, as replay names it) and in the README's list of formats (by its title, in
detection order), each provider format in the table of docs/checks.md (by its name), each
type a rule of the type registry matches exactly in the types table of
docs/declaring-tools.md.
A throwaway entry of each kind, registered here, is reported missing, so the check cannot
pass by looking at nothing."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.core.define.handlers import registry as types
from agentforge_cli.core.define.handlers import scalars
from agentforge_cli.core.define.handlers.type_rule import TypeRule
from agentforge_cli.replay.transcripts import registry
from agentforge_cli.schema import providers

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "docs" / "replay.md"
README = ROOT / "README.md"
README_LIST = re.compile(r"which of these formats a file is in:\s(.*?):\n\n", re.S)
CHECKS = ROOT / "docs" / "checks.md"
DECLARING = ROOT / "docs" / "declaring-tools.md"
TYPES_TABLE = re.compile(r"^\| kind \| types \|\n(?:\|.*\n)+", re.M)
TABLE_ROW = re.compile(r"^\| `([\w-]+)` \|", re.M)


def formats_not_shown(text: str) -> list[str]:
    return [fmt.name for fmt in registry.transcript_formats() if fmt.title not in text]


def formats_not_listed(readme: str) -> list[str]:
    """The formats the README's list leaves out, or names out of detection order."""
    found = README_LIST.search(readme)
    assert found is not None, "the README's sentence listing the formats is gone"
    listed, missing, at = " ".join(found.group(1).split()), [], 0
    for fmt in registry.transcript_formats():
        place = listed.find(fmt.title, at)
        if place < 0:
            missing.append(fmt.name)
        else:
            at = place + len(fmt.title)
    return missing


def providers_not_shown(text: str) -> list[str]:
    rows = set(TABLE_ROW.findall(text))
    return [name for name in providers.LIST_FORMATS if name not in rows]


def types_not_shown(text: str) -> list[str]:
    """The types matched exactly that the types table does not name (as ``Name`` or
    ``module.Name``)."""
    found = TYPES_TABLE.search(text)
    assert found is not None, "the types table of docs/declaring-tools.md is gone"
    names = [types.type_label(annotation) for annotation in types.exact_types()]
    return [name for name in names
            if not re.search(rf"`(?:[\w.]+\.)?{re.escape(name)}`", found.group())]


def _registered(monkeypatch: pytest.MonkeyPatch, formats: list[Any]) -> None:
    """The transcript format registry holds ``formats`` until the test ends."""
    monkeypatch.setattr(registry, "TRANSCRIPT_FORMATS", ExtensionPoint(
        "transcript format", "agentforge.transcript_formats", formats))


def test_every_transcript_format_is_shown_in_the_replay_page():
    assert formats_not_shown(REPLAY.read_text(encoding="utf-8")) == []


def test_the_readme_lists_every_transcript_format_in_detection_order():
    assert formats_not_listed(README.read_text(encoding="utf-8")) == []


def test_every_provider_format_has_a_row_in_the_checks_table():
    assert providers_not_shown(CHECKS.read_text(encoding="utf-8")) == []


def test_a_format_the_page_does_not_show_is_named(monkeypatch: pytest.MonkeyPatch):
    throwaway = dataclasses.replace(registry.transcript_formats()[0], name="throwaway",
                                    title="throwaway transcripts nobody documented",
                                    before=())
    _registered(monkeypatch, [*registry.transcript_formats(), throwaway])
    assert formats_not_shown(REPLAY.read_text(encoding="utf-8")) == ["throwaway"]
    assert formats_not_listed(README.read_text(encoding="utf-8")) == ["throwaway"]


def test_a_format_the_readme_lists_out_of_order_is_named(monkeypatch: pytest.MonkeyPatch):
    first, *rest = registry.transcript_formats()
    _registered(monkeypatch, [*rest, dataclasses.replace(first, before=())])
    assert formats_not_listed(README.read_text(encoding="utf-8")) == [first.name]


def test_a_provider_the_table_does_not_show_is_named(monkeypatch: pytest.MonkeyPatch):
    first, *rest = providers.REGISTRY
    throwaway = dataclasses.replace(first, name="throwaway")
    monkeypatch.setattr(providers, "REGISTRY", ExtensionPoint(
        "provider", "agentforge.providers", (first, *rest, throwaway)))
    assert providers_not_shown(CHECKS.read_text(encoding="utf-8")) == ["throwaway"]


def test_every_type_of_the_type_registry_is_in_the_types_table():
    assert types_not_shown(DECLARING.read_text(encoding="utf-8")) == []


def test_a_type_the_table_does_not_show_is_named(monkeypatch: pytest.MonkeyPatch):
    class Throwaway:
        """A type nobody documented."""

    registry = ExtensionPoint("type handler", types.TYPE_HANDLERS.group,
                              types.TYPE_HANDLERS.entries())
    registry.register(TypeRule(name="throwaway", exact={Throwaway: scalars.str_handler}))
    monkeypatch.setattr(types, "TYPE_HANDLERS", registry)
    assert types_not_shown(DECLARING.read_text(encoding="utf-8")) == [
        types.type_label(Throwaway)]
