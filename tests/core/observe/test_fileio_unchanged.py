"""``atomic_writer(unchanged=...)``: the replacement is refused, and the file left as the
other program made it, when it changed after it was read."""

from __future__ import annotations

import errno
import os

import pytest

from agentforge_cli.core.observe.fileio import atomic_writer, file_stamp


def changes(path):
    """What another program does to ``path`` meanwhile, and the reason the refusal gives."""
    other = path.with_name("other")

    def append() -> None:
        with path.open("a") as stream:
            stream.write("more\n")

    return {
        "appended": (append, "it went from 4 to 9 bytes"),
        "replaced": (lambda: (other.write_text("new\n"), os.replace(other, path)),
                     "it was replaced by another file"),
        "removed": (path.unlink, "it was removed"),
    }


@pytest.mark.parametrize("change", ["appended", "replaced", "removed"])
def test_a_change_meanwhile_refuses_the_replacement(tmp_path, change):
    path = tmp_path / "t.jsonl"
    path.write_text("old\n")
    stamp = file_stamp(path)
    act, reason = changes(path)[change]
    with pytest.raises(OSError) as info, atomic_writer(path, unchanged=stamp) as stream:
        stream.write("rewritten\n")
        act()
    assert info.value.errno == errno.EBUSY
    assert f"it changed while it was read ({reason})" in info.value.strerror
    after = {p.name for p in tmp_path.iterdir()}
    assert after == (set() if change == "removed" else {"t.jsonl"})  # no temporary file
    if change == "appended":
        assert path.read_text() == "old\nmore\n"


def test_an_unchanged_file_is_replaced(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("old\n")
    with atomic_writer(path, unchanged=file_stamp(path)) as stream:
        stream.write("rewritten\n")
    assert path.read_text() == "rewritten\n"
