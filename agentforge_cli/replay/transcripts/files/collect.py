"""Which transcript files a list of paths names: files as given, folders searched.

A folder is searched recursively for :data:`SUFFIXES` (each also compressed, ``.gz``), in
sorted order, hidden files and folders left out. ``-`` (standard input) is kept as is.
YAML files are VCR cassettes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

__all__ = ["STDIN", "SUFFIXES", "StdinCopy", "collect_transcripts"]

SUFFIXES = (".json", ".jsonl", ".yaml", ".yml")
"""The file endings collected from a folder (and each with ``.gz``)."""
STDIN = "-"
"""The path that means standard input."""


if TYPE_CHECKING:
    _PlatformPath = Path
else:
    _PlatformPath = type(Path())  # PosixPath or WindowsPath: Path itself cannot be subclassed


class StdinCopy(_PlatformPath):
    """The temporary file holding standard input's transcript, shown as ``-`` in every
    message and report while the file system sees the real path."""

    def __str__(self) -> str:
        return STDIN

    def __fspath__(self) -> str:
        return super().__str__()


def _is_transcript(path: Path) -> bool:
    return _is_transcript_name(path.name)


def _is_transcript_name(name: str) -> bool:
    return name.lower().removesuffix(".gz").endswith(SUFFIXES) and not name.startswith(".")


def _search(folder: Path) -> list[Path]:
    """The transcripts under the folder as ``sorted(folder.rglob("*"))`` lists them, hidden
    ones left out. Walked with :func:`os.scandir` (a hidden folder is not entered), which
    costs a fraction of ``rglob`` with a ``Path`` and a ``stat`` a file."""
    found: list[Path] = []
    _walk(folder, found)
    found.sort()  # the order of sorted paths, whatever the walk's (already sorted here)
    return found


def _walk(folder: Path, found: list[Path]) -> None:
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=_name)
    except PermissionError:  # as rglob: an unreadable folder holds nothing
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():  # rglob lists a link but never searches in it
            path = folder / entry.name
            if path.is_file() and _is_transcript(path):
                found.append(path)
        elif entry.is_dir(follow_symlinks=False):
            _walk(folder / entry.name, found)
        elif entry.is_file(follow_symlinks=False) and _is_transcript_name(entry.name):
            found.append(folder / entry.name)


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def collect_transcripts(paths: list[str]) -> tuple[list[str], list[str]]:
    """The transcripts ``paths`` name, in order, each once; and the folders among
    ``paths`` that hold none (an empty folder is never a pass: the caller fails on it).

    A path that is no folder is kept as given (opening it tells what is wrong with it).
    """
    collected: list[str] = []
    seen: set[str] = set()
    empty: list[str] = []
    for given in paths:
        path = Path(given)
        if given != STDIN and path.is_dir():
            found = [str(p) for p in _search(path)]
            if not found:
                empty.append(given)
        else:
            found = [given]
        for item in found:
            if item not in seen:
                seen.add(item)
                collected.append(item)
    return collected, empty
