"""Resources, resource templates and prompts in snapshot files and ``tools diff``: written
only when there are some, read back, absent from older snapshots (which still load and
compare), and each change classified as a client that uses them sees it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.findings import BREAKING, INFO, WARNING
from agentforge_cli.schema.snapshots import (
    SnapshotError,
    check_snapshot,
    diff_snapshots,
    dumps_snapshot,
    read_snapshot,
    write_snapshot,
)
from agentforge_cli.schema.surface import McpSurface, diff_surfaces

ECHO = ToolSpecification(name="echo", description="Says it back",
                         parameters={"type": "object", "properties": {}})
LISTED: dict[str, list[dict[str, Any]]] = {
    "resources": [{"uri": "memo://greeting", "name": "greeting", "mimeType": "text/plain"},
                  {"uri": "memo://farewell", "name": "farewell"}],
    "resourceTemplates": [{"uriTemplate": "memo://notes/{topic}", "name": "note"}],
    "prompts": [{"name": "review", "description": "Reviews code",
                 "arguments": [{"name": "code", "required": True},
                               {"name": "language", "required": False}]},
                {"name": "hello"}],
}


def _surface(**changes: Any) -> McpSurface:
    listed = {key: [dict(item) for item in items] for key, items in LISTED.items()}
    listed.update(changes)
    return McpSurface.from_lists(listed)


def _rules(findings: list[Any]) -> list[tuple[str, str, str, str]]:
    return [(f.level, f.rule, f.tool, f.parameter) for f in findings]


def test_the_sections_are_written_keyed_and_read_back(tmp_path: Path) -> None:
    path = write_snapshot([ECHO], tmp_path / "s.json", _surface())
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["resources"]["memo://greeting"] == {"name": "greeting",
                                                   "mimeType": "text/plain"}
    assert data["resourceTemplates"] == {"memo://notes/{topic}": {"name": "note"}}
    assert data["prompts"]["hello"] == {}
    specs, surface = read_snapshot(path)
    assert [s.name for s in specs] == ["echo"]
    assert surface == _surface()
    assert diff_snapshots(path, path) == []


def test_tools_alone_write_the_same_bytes_as_before() -> None:
    assert dumps_snapshot([ECHO], McpSurface()) == dumps_snapshot([ECHO])
    assert set(json.loads(dumps_snapshot([ECHO], _surface(prompts=[])))) == {
        "version", "tools", "resources", "resourceTemplates"}


def test_an_older_snapshot_without_the_sections_loads_and_compares(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"version": 1, "tools": {"echo": {"description": "Says it "
                                                                               "back"}}}))
    new = write_snapshot([ECHO], tmp_path / "new.json", _surface())
    assert read_snapshot(old)[1] == McpSurface()
    findings = diff_snapshots(old, new)
    assert {f.level for f in findings} == {INFO}  # everything was added
    assert [f.rule for f in findings] == ["resource-added", "resource-added",
                                          "template-added", "prompt-added", "prompt-added"]
    removed = diff_snapshots(new, old)
    assert {f.level for f in removed} == {BREAKING}
    assert len(removed) == 5


def test_a_list_of_tools_cannot_hold_them_so_they_are_not_compared(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps([{"name": "echo", "description": "Says it back"}]))
    assert read_snapshot(path)[1] is None
    snapshot = write_snapshot([ECHO], tmp_path / "s.json", _surface())
    assert diff_snapshots(snapshot, path) == diff_snapshots(path, snapshot) == []
    assert check_snapshot([ECHO], path, surface=_surface()) == []


def test_removals_and_argument_changes_are_breaking_additions_compatible() -> None:
    new = _surface(
        resources=[{"uri": "memo://greeting", "name": "greeting", "mimeType": "text/markdown"},
                   {"uri": "memo://new", "name": "new"}],
        resourceTemplates=[],
        prompts=[{"name": "review", "description": "Reviews code",
                  "arguments": [{"name": "code", "required": True},
                                {"name": "style", "required": True},
                                {"name": "tone"}]},
                 {"name": "hello", "arguments": [{"name": "who", "required": False}]},
                 {"name": "bye"}])
    assert _rules(diff_surfaces(_surface(), new)) == [
        (WARNING, "resource-mime-changed", "resource memo://greeting", ""),
        (BREAKING, "resource-removed", "resource memo://farewell", ""),
        (INFO, "resource-added", "resource memo://new", ""),
        (BREAKING, "template-removed", "template memo://notes/{topic}", ""),
        (BREAKING, "prompt-argument-removed", "prompt review", "language"),
        (BREAKING, "prompt-required-argument-added", "prompt review", "style"),
        (INFO, "prompt-argument-added", "prompt review", "tone"),
        (INFO, "prompt-argument-added", "prompt hello", "who"),
        (INFO, "prompt-added", "prompt bye", ""),
    ]


def test_an_argument_made_required_is_breaking_and_the_reverse_is_not() -> None:
    required = _surface(prompts=[{"name": "review", "description": "Reviews code",
                                  "arguments": [{"name": "code", "required": True},
                                                {"name": "language", "required": True}]}])
    before = _surface(prompts=[LISTED["prompts"][0]])
    [made] = diff_surfaces(before, required)
    assert (made.level, made.rule, made.parameter) == (BREAKING, "prompt-argument-required",
                                                       "language")
    assert made.message == ('prompt "review", argument "language": the optional argument '
                            "is now required; a prompts/get without it is refused")
    assert diff_surfaces(required, before) == []


def test_a_changed_description_is_a_warning() -> None:
    new = _surface(prompts=[{**LISTED["prompts"][0], "description": "Reads code"},
                            LISTED["prompts"][1]])
    [changed] = diff_surfaces(_surface(), new)
    assert (changed.level, changed.rule) == (WARNING, "prompt-description-changed")
    assert '"Reviews code" to "Reads code"' in changed.message


def test_check_snapshot_compares_the_surface_only_when_given(tmp_path: Path) -> None:
    path = write_snapshot([ECHO], tmp_path / "s.json", _surface())
    assert check_snapshot([ECHO], path) == []  # the tools alone, as before
    gone = check_snapshot([ECHO], path, surface=_surface(prompts=[]))
    assert [f.rule for f in gone] == ["prompt-removed", "prompt-removed"]
    [written] = check_snapshot([ECHO], path, update=True, surface=_surface(prompts=[]))
    assert written.rule == "snapshot-updated"
    assert "prompts" not in json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("section", [[], {"x": 1}, "text"])
def test_a_malformed_section_is_refused_naming_it(tmp_path: Path, section: Any) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"version": 1, "tools": {}, "prompts": section}))
    with pytest.raises(SnapshotError, match='"prompts" must be an object of objects keyed by '
                                            "name"):
        read_snapshot(path)


def test_two_servers_listing_one_prompt_name_are_refused() -> None:
    with pytest.raises(SnapshotError, match='two prompts are named "hello"'):
        McpSurface.from_lists({"prompts": [{"name": "hello"}, {"name": "hello"}]})
