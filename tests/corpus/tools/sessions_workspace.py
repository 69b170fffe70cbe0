"""An in-memory project folder for the coding-agent session tools (``sessions_*.py``).

The sessions' file tools (read, write, edit, glob, grep) work on a folder this replay
cannot have, so they work on this one instead: a mapping of paths to text, seeded with
what the session shows of the files it did not write (a file it reads, a line it edits).
Each session's tools own a workspace of their own, so an edit is seen by the calls after
it and by no other session.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping


class Workspace:
    """Files by absolute path (or by the path a session gives, when it gives relative
    ones); relative paths are taken from ``cwd``."""

    def __init__(self, files: Mapping[str, str] | None = None, cwd: str = "/") -> None:
        self.cwd = cwd
        self._files: dict[str, str] = {}
        for path, text in (files or {}).items():
            self._files[self.path(path)] = text

    def path(self, name: str) -> str:
        return posixpath.normpath(posixpath.join(self.cwd, name))

    def exists(self, name: str) -> bool:
        return self.path(name) in self._files

    def read(self, name: str) -> str:
        """The file's text; FileNotFoundError for a file the workspace lacks."""
        try:
            return self._files[self.path(name)]
        except KeyError:
            raise FileNotFoundError(name) from None

    def write(self, name: str, text: str) -> bool:
        """Write a file; True when it is new."""
        path = self.path(name)
        new = path not in self._files
        self._files[path] = text
        return new

    def append(self, name: str, text: str) -> None:
        path = self.path(name)
        self._files[path] = self._files.get(path, "") + text

    def remove(self, name: str) -> None:
        try:
            del self._files[self.path(name)]
        except KeyError:
            raise FileNotFoundError(name) from None

    def count(self, name: str, old: str) -> int:
        """How many times ``old`` occurs in the file."""
        return self.read(name).count(old) if old else 0

    def replace(self, name: str, old: str, new: str) -> None:
        """Replace every occurrence of ``old`` (the caller has checked how many)."""
        self._files[self.path(name)] = self.read(name).replace(old, new)

    def glob(self, pattern: str, under: str | None = None) -> list[str]:
        """Files under a folder whose path relative to it fits a glob pattern (``**/``
        any folders, ``*`` and ``?`` within one name), sorted by path."""
        root = self.path(under) if under else self.cwd
        matcher = re.compile(glob_regex(pattern))
        found = []
        for path in sorted(self._files):
            relative = posixpath.relpath(path, root)
            if not relative.startswith("../") and matcher.fullmatch(relative):
                found.append(path)
        return found

    def grep(self, pattern: str, under: str | None = None) -> list[tuple[str, int, str]]:
        """Lines matching a regular expression, as (path, line number, line), files
        sorted by path."""
        root = self.path(under) if under else self.cwd
        regex = re.compile(pattern)
        found = []
        for path in sorted(self._files):
            if path != root and not path.startswith(root.rstrip("/") + "/"):
                continue
            for number, line in enumerate(self._files[path].splitlines(), 1):
                if regex.search(line):
                    found.append((path, number, line))
        return found


def glob_regex(pattern: str) -> str:
    """A glob pattern as a regular expression over ``/``-separated relative paths."""
    out = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return "".join(out)
