"""Atomic writes go through a symbolic link: the target is replaced, the link stays."""

from __future__ import annotations

import os

from agentforge_cli.core.observe.fileio import atomic_writer, write_text_atomic


def test_a_link_is_written_through_to_its_target(tmp_path):
    target = tmp_path / "real" / "file.json"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(os.path.relpath(target, tmp_path))
    write_text_atomic(link, "new")
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real"]


def test_a_chain_of_links_reaches_the_last_target(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("old", encoding="utf-8")
    (tmp_path / "one").symlink_to(target)
    (tmp_path / "two").symlink_to(tmp_path / "one")
    with atomic_writer(tmp_path / "two") as stream:
        stream.write("new")
    assert (tmp_path / "two").is_symlink() and (tmp_path / "one").is_symlink()
    assert target.read_text(encoding="utf-8") == "new"


def test_a_dangling_link_creates_its_target(tmp_path):
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "made" / "file.txt")
    write_text_atomic(link, "new")
    assert link.is_symlink()
    assert (tmp_path / "made" / "file.txt").read_text(encoding="utf-8") == "new"
