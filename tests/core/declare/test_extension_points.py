"""``ExtensionPoint``: entries in declared order (``before``), ``register()``, entry points
read at first use, and what it refuses: a repeated name, a cycle, a broken plugin."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentforge_cli.core.declare import extension_points
from agentforge_cli.core.declare.extension_points import ExtensionError, ExtensionPoint

ROOT = Path(__file__).resolve().parents[3]


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
    monkeypatch.setattr(extension_points, "_may_extend", lambda: True)
    extension_points._installed_entry_points.cache_clear()
    try:
        assert any(ep.value.startswith("agentforge_cli.")
                   for ep in extension_points.entry_points_of("pytest11"))
        extension_points.entry_points_of("console_scripts")
        assert scans == [{}]
    finally:
        extension_points._installed_entry_points.cache_clear()


def _on_path(monkeypatch, folder) -> None:
    monkeypatch.setattr(sys, "path", [str(folder)])


def _distribution(folder, name: str, entry_points: str | None) -> None:
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Name: {name}\nVersion: 1.0\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)


def test_a_distribution_with_an_agentforge_group_is_seen(tmp_path, monkeypatch):
    _distribution(tmp_path, "plain", None)
    _distribution(tmp_path, "scripts", "[console_scripts]\nx = x:main\n")
    _on_path(monkeypatch, tmp_path)
    assert extension_points._may_extend() is False
    _distribution(tmp_path, "acme", "[console_scripts]\ny = y:main\n\n"
                  "[agentforge.providers]\nacme = acme:PROVIDER\n")
    assert extension_points._may_extend() is True


@pytest.mark.parametrize("odd", ["archive.zip", "old.egg"])
def test_a_path_it_cannot_look_into_counts_as_extending(tmp_path, monkeypatch, odd):
    if odd.endswith(".zip"):
        (tmp_path / odd).write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip archive
        monkeypatch.setattr(sys, "path", [str(tmp_path / odd)])
    else:
        (tmp_path / odd).mkdir()
        _on_path(monkeypatch, tmp_path)
    assert extension_points._may_extend() is True


def test_another_finder_of_distributions_counts_as_extending(tmp_path, monkeypatch):
    class Finder:
        @staticmethod
        def find_distributions(context=None):
            return iter(())

    _on_path(monkeypatch, tmp_path)
    assert extension_points._may_extend() is False
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    assert extension_points._may_extend() is True


def test_without_a_plugin_the_metadata_is_never_read():
    """Here no installed package extends agentforge: loading and exporting tools (every
    registry asked) never imports ``importlib.metadata``."""
    code = ("import sys\n"
            "from agentforge_cli import build_local_tools\n"
            "from agentforge_cli.schema.providers import export_tools\n"
            "from agentforge_cli.integrations.frameworks import ADAPTERS\n"
            "import sample_tools.crm as crm\n"
            "table = build_local_tools([crm.CrmTools()])\n"
            "export_tools(list(table), 'openai')\n"
            "list(ADAPTERS)\n"
            "print('importlib.metadata' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
