"""Snapshot files: stable, diff-friendly, atomic writes; clear errors on bad files."""

from __future__ import annotations

import json

import pytest
from provider_testing import obj, raw

from agentforge_cli.core.observe.fileio import atomic_writer, write_text_atomic
from agentforge_cli.errors import AgentForgeError
from agentforge_cli.schema.snapshots import (
    SNAPSHOT_VERSION,
    SnapshotError,
    SnapshotMissingError,
    check_snapshot,
    diff_snapshots,
    dumps_snapshot,
    load_snapshot,
    parse_snapshot,
    write_snapshot,
)


def test_write_then_load_round_trips(tmp_path, sample_specs):
    path = write_snapshot(sample_specs, tmp_path / "tools.json")
    loaded = load_snapshot(path)
    assert {s.name: s.to_dict() for s in loaded} == {s.name: s.to_dict() for s in sample_specs}


def test_the_file_is_stable_sorted_and_readable(tmp_path, sample_specs):
    first = write_snapshot(sample_specs, tmp_path / "a.json").read_bytes()
    second = write_snapshot(list(reversed(sample_specs)), tmp_path / "b.json").read_bytes()
    assert first == second
    text = first.decode("utf-8")
    assert text.endswith("}\n") and "\r" not in text
    assert "按客户名查询客户信息" in text  # not \u-escaped
    assert text.splitlines()[1] == '  "tools": {'
    data = json.loads(text)
    assert data["version"] == SNAPSHOT_VERSION
    assert list(data["tools"]) == sorted(data["tools"])
    assert json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n" == text


def test_write_creates_directories_and_leaves_no_temporary_file(tmp_path, sample_specs):
    path = tmp_path / "deep" / "er" / "tools.json"
    write_snapshot(sample_specs, path)
    write_snapshot(sample_specs[:1], path)
    assert [p.name for p in path.parent.iterdir()] == ["tools.json"]
    assert len(load_snapshot(path)) == 1


def test_every_atomic_write_creates_missing_directories(tmp_path):
    target = tmp_path / "reports" / "nightly" / "r.xml"
    write_text_atomic(target, "<x/>")
    with atomic_writer(tmp_path / "out" / "a.txt") as stream:
        stream.write("a")
    assert target.read_text() == "<x/>"
    assert (tmp_path / "out" / "a.txt").read_text() == "a"


def test_a_file_in_the_way_of_a_directory_is_named(tmp_path, sample_specs):
    (tmp_path / "reports").write_text("not a directory")
    with pytest.raises(NotADirectoryError) as caught:
        write_snapshot(sample_specs, tmp_path / "reports" / "sub" / "tools.json")
    assert caught.value.strerror == f"{tmp_path / 'reports'} is a file, not a directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


def test_a_failed_write_keeps_the_old_file(tmp_path, sample_specs):
    path = write_snapshot(sample_specs, tmp_path / "tools.json")
    before = path.read_bytes()
    broken = raw("bad", obj({"x": {"type": "number", "maximum": float("nan")}}))
    with pytest.raises(ValueError):
        write_snapshot([broken], path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["tools.json"]


def test_missing_file(tmp_path):
    with pytest.raises(SnapshotMissingError) as info:
        load_snapshot(tmp_path / "nope.json")
    assert isinstance(info.value, SnapshotError) and isinstance(info.value, AgentForgeError)
    assert "nope.json" in str(info.value) and "--update-snapshot" in str(info.value)


@pytest.mark.parametrize(("content", "message"), [
    ('{"version": 1, "tools": {', "not valid JSON at line 1, column"),
    ("[1, 2]", "entry 0 has no tool name"),
    ('{"tools": []}', "not an agentforge snapshot"),
    ('"text"', "not an agentforge snapshot"),
    ('{"version": 99, "tools": {}}', "newer than this agentforge reads"),
    ('{"version": 1, "tools": {"a": []}}', 'tool "a" is not an object'),
    ('{"version": 1, "tools": {"a": {"parameters": 3}}}', "parameters must be a JSON object"),
    ('{"version": 1, "tools": {"a": {"description": 3}}}', "description must be a string"),
    ('[{"name": "a"}, {"name": "a"}]', 'the tool "a" appears twice'),
])
def test_malformed_files_are_refused_clearly(tmp_path, content, message):
    path = tmp_path / "tools.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SnapshotError) as info:
        load_snapshot(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_a_tools_list_json_array_loads_as_a_snapshot(sample_specs):
    rows = json.loads(json.dumps([s.to_dict() for s in sample_specs]))
    assert parse_snapshot(rows) == sample_specs


def test_duplicate_names_cannot_be_written():
    with pytest.raises(SnapshotError, match='two tools are named "a"'):
        dumps_snapshot([raw("a", obj({})), raw("a", obj({}))])


def test_check_snapshot_updates_only_when_needed(tmp_path, sample_specs):
    path = tmp_path / "tools.json"
    first = check_snapshot(sample_specs, path, update=True)
    assert [(f.rule, f.level) for f in first] == [("snapshot-updated", "info")]
    stamp = path.stat().st_mtime_ns
    assert check_snapshot(sample_specs, path, update=True) == []
    assert path.stat().st_mtime_ns == stamp
    assert check_snapshot(sample_specs, path) == []
    with pytest.raises(SnapshotMissingError):
        check_snapshot(sample_specs, tmp_path / "other.json")


def test_diff_snapshots_between_two_files(tmp_path, sample_specs):
    old = write_snapshot(sample_specs, tmp_path / "old.json")
    new = write_snapshot(sample_specs[1:], tmp_path / "new.json")
    findings = diff_snapshots(old, new)
    assert [(f.tool, f.level, f.rule) for f in findings] == [
        (sample_specs[0].name, "breaking", "tool-removed")]
    assert diff_snapshots(new, old)[0].rule == "tool-added"
