"""``ExtensionPoint``: entries in declared order (``before``), ``register()``, entry points
read at first use, and what it refuses: a repeated name, a cycle, a broken plugin."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass

import pytest

from agentforge_cli.core.declare import extension_points
from agentforge_cli.core.declare.extension_points import ExtensionError, ExtensionPoint


@dataclass(frozen=True)
class Thing:
    name: str
    before: tuple[str, ...] = ()


def names(point: ExtensionPoint[Thing]) -> list[str]:
    return [entry.name for entry in point]


@pytest.fixture
def no_plugins(monkeypatch):
    monkeypatch.setattr(extension_points, "entry_points_of", lambda group: [])


def test_entries_keep_their_order_unless_one_must_come_earlier(no_plugins):
    point = ExtensionPoint("thing", "test.things",
                           [Thing("a"), Thing("b"), Thing("c", before=("a",)), Thing("d")])
    assert names(point) == ["c", "a", "b", "d"]
    assert point.get("c") == Thing("c", before=("a",))
    assert point.get("zzz") is None
    assert point.names() == ("c", "a", "b", "d")


def test_before_naming_an_absent_entry_is_ignored(no_plugins):
    point = ExtensionPoint("thing", "test.things", [Thing("a"), Thing("b", before=("x",))])
    assert names(point) == ["a", "b"]


def test_register_adds_after_the_given_entries_and_resorts(no_plugins):
    point = ExtensionPoint("thing", "test.things", [Thing("a"), Thing("b")])
    assert names(point) == ["a", "b"]
    assert point.register(Thing("z", before=("b",))) == Thing("z", before=("b",))
    assert names(point) == ["a", "z", "b"]


def test_a_repeated_name_is_refused(no_plugins):
    point = ExtensionPoint("thing", "test.things", [Thing("a"), Thing("a")])
    with pytest.raises(ExtensionError, match="two things are named 'a'"):
        point.entries()


def test_a_cycle_is_refused_and_named(no_plugins):
    point = ExtensionPoint("thing", "test.things",
                           [Thing("a", before=("b",)), Thing("b", before=("a",))])
    with pytest.raises(ExtensionError, match=r"cycle: a -> b -> a"):
        point.entries()


def test_an_entry_without_a_name_is_refused():
    point: ExtensionPoint[Thing] = ExtensionPoint("thing", "test.things")
    with pytest.raises(TypeError, match="needs a name"):
        point.register(object())  # type: ignore[arg-type]  # the refusal under test


def test_entry_points_add_entries_and_a_broken_one_is_skipped(tmp_path, monkeypatch,
                                                              capsys):
    (tmp_path / "thing_plugin.py").write_text(
        "from dataclasses import dataclass\n"
        "@dataclass(frozen=True)\n"
        "class T:\n"
        "    name: str\n"
        "    before: tuple = ()\n"
        "ONE = T('plugged', before=('a',))\n"
        "MANY = [T('x'), T('y')]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    group = "test.things"
    points = [importlib.metadata.EntryPoint("one", "thing_plugin:ONE", group),
              importlib.metadata.EntryPoint("many", "thing_plugin:MANY", group),
              importlib.metadata.EntryPoint("zbroken", "thing_plugin_missing:X", group)]
    asked: list[str] = []

    def entry_points(group: str):
        asked.append(group)
        return points

    monkeypatch.setattr(extension_points, "entry_points_of", entry_points)
    point = ExtensionPoint("thing", group, [Thing("a")])
    assert asked == []  # nothing read until first use
    # the package's own first, then entry points by name; "plugged" goes before "a"
    assert names(point) == ["plugged", "a", "x", "y"]
    assert asked == [group]
    err = capsys.readouterr().err
    assert "skipped the thing of entry point 'zbroken'" in err
    assert "ModuleNotFoundError" in err
    names(point)
    assert asked == [group]  # read once


def test_a_lookup_the_own_entries_answer_reads_no_entry_point(monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(extension_points, "entry_points_of",
                        lambda group: asked.append(group) or [])
    point = ExtensionPoint("thing", "test.things", [Thing("a"), Thing("b")])
    assert point.get("b") == Thing("b")
    assert asked == []
    assert point.get("zzz") is None  # not among the own entries: the plugins may have it
    assert asked == ["test.things"]


def test_the_installed_entry_points_are_scanned_once_for_every_group(monkeypatch):
    scans: list[object] = []
    real = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda **kw: scans.append(kw) or real(**kw))
    extension_points._installed_entry_points.cache_clear()
    try:
        assert any(ep.value.startswith("agentforge_cli.")
                   for ep in extension_points.entry_points_of("pytest11"))
        extension_points.entry_points_of("console_scripts")
        assert scans == [{}]
    finally:
        extension_points._installed_entry_points.cache_clear()
