"""Which transcript files a list of paths names: files as given, folders searched.

A folder is searched recursively for the files the registered formats read, asked of
the registry (:func:`~agentforge_cli.replay.transcripts.registry.file_names`: ``*.json``,
``*.jsonl``, VCR cassettes' ``*.yaml``, Inspect's ``*.eval``, MCP and call logs'
``*.log``; each also compressed, ``.gz``), in sorted order, hidden files and folders left
out. A JSON or JSONL name is enough; a name only a format that reads its files itself
claims (an ``.eval``, a ``.log``) is collected when that format also recognises the file
(:attr:`~agentforge_cli.replay.transcripts.format.FileReading.opens`), so an application's
own ``.log`` beside the transcripts is left alone. ``-`` (standard input) is kept as is.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

__all__ = ["STDIN", "StdinCopy", "TranscriptFiles", "collect_transcripts"]

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


def _matcher(patterns: Iterable[str]) -> Callable[[str], re.Match[str] | None]:
    """Matches a lower-case name against shell ``patterns`` (never, for none)."""
    joined = "|".join(fnmatch.translate(pattern.lower()) for pattern in patterns)
    return re.compile(joined or "(?!)").match


class TranscriptFiles:
    """Which files a folder search collects, as the registered formats say (read once):
    ``files(folder, name)``."""

    def __init__(self) -> None:
        from agentforge_cli.replay.transcripts import registry

        formats = registry.transcript_formats()
        self._by_name = _matcher(name for fmt in formats if fmt.files is None
                                 for name in fmt.names)
        self._sniffed = [(_matcher(fmt.names), fmt.files) for fmt in formats
                         if fmt.files is not None]

    def __call__(self, folder: Path, name: str) -> bool:
        """Whether ``folder / name`` is collected: not hidden, and named as a format's
        files are (without case, without ``.gz``), and recognised by that format when it
        reads its files itself."""
        if name.startswith("."):
            return False
        bare = name.lower().removesuffix(".gz")
        if self._by_name(bare):
            return True
        readers = [files for match, files in self._sniffed if match(bare)]
        if not readers:
            return False
        path = folder / name
        head = _head(path)
        return any(files.opens(path, head) for files in readers)


def _head(path: Path) -> str:
    """The file's first line, as a format is asked about it (``""`` when it is not text
    or cannot be read)."""
    from agentforge_cli.replay.transcripts.errors import TranscriptError
    from agentforge_cli.replay.transcripts.files.limits import read_head

    try:
        return read_head(path) or ""
    except (TranscriptError, OSError, ValueError):
        return ""


def _search(folder: Path, wanted: Callable[[Path, str], bool]) -> list[Path]:
    """The transcripts under the folder as ``sorted(folder.rglob("*"))`` lists them, hidden
    ones left out. Walked with :func:`os.scandir` (a hidden folder is not entered), which
    costs a fraction of ``rglob`` with a ``Path`` and a ``stat`` a file."""
    found: list[Path] = []
    _walk(folder, found, wanted)
    found.sort()  # the order of sorted paths, whatever the walk's (already sorted here)
    return found


def _walk(folder: Path, found: list[Path], wanted: Callable[[Path, str], bool]) -> None:
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
            if path.is_file() and wanted(folder, entry.name):
                found.append(path)
        elif entry.is_dir(follow_symlinks=False):
            _walk(folder / entry.name, found, wanted)
        elif entry.is_file(follow_symlinks=False) and wanted(folder, entry.name):
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
    wanted: TranscriptFiles | None = None
    for given in paths:
        path = Path(given)
        if given != STDIN and path.is_dir():
            wanted = wanted or TranscriptFiles()
            found = [str(p) for p in _search(path, wanted)]
            if not found:
                empty.append(given)
        else:
            found = [given]
        for item in found:
            if item not in seen:
                seen.add(item)
                collected.append(item)
    return collected, empty
