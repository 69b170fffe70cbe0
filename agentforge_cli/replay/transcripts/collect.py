"""Which transcript files a list of paths names: files as given, folders searched.

A folder is searched recursively for :data:`SUFFIXES` (each also compressed, ``.gz``), in
sorted order, hidden files and folders left out. ``-`` (standard input) is kept as is.
YAML files are VCR cassettes.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["STDIN", "SUFFIXES", "StdinCopy", "collect_transcripts"]

SUFFIXES = (".json", ".jsonl", ".yaml", ".yml")
"""The file endings collected from a folder (and each with ``.gz``)."""
STDIN = "-"
"""The path that means standard input."""


class StdinCopy(type(Path())):  # type: ignore[misc]
    """The temporary file holding standard input's transcript, shown as ``-`` in every
    message and report while the file system sees the real path."""

    def __str__(self) -> str:
        return STDIN

    def __fspath__(self) -> str:
        return super().__str__()


def _is_transcript(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(SUFFIXES) and not path.name.startswith(".")


def _search(folder: Path) -> list[Path]:
    found = []
    for path in sorted(folder.rglob("*")):
        hidden = any(part.startswith(".") for part in path.relative_to(folder).parts)
        if not hidden and path.is_file() and _is_transcript(path):
            found.append(path)
    return found


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
