"""The tools of SWE-agent's test trajectory (``sweagent-traj``): its file finder, viewer,
editor and shell, in a model of the test repository's container.

The repository ``/SWE-agent__test-repo`` is modelled by the one file the trajectory works
on, ``tests/missing_colon.py`` (its text as the trajectory shows it). Each tool answers as
SWE-agent's do: the command's output with the container's ``\\r\\n`` line ends, then the
state line SWE-agent appends (the open file, the current directory, the prompt). The
shell runs ``python3 FILE`` on a file of the model (with this Python, in a scratch
folder); any other command is not run. The editor's ``replace-all`` flag is named by
``P(name=...)``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated

from execution_log import counted_tool

from agentforge_cli import P

ROOT = "/SWE-agent__test-repo"
FILES = {
    "tests/missing_colon.py": (
        "#!/usr/bin/env python3\n\n\n"
        "def division(a: float, b: float) -> float\n"
        "    return a/b\n\n\n"
        'if __name__ == "__main__":\n'
        "    print(division(123, 15))\n"),
}
WINDOW = 100


class SweAgentTools:
    """SWE-agent's default tools over a fresh copy of the modelled repository."""

    def __init__(self) -> None:
        self.files = {f"{ROOT}/{name}": text for name, text in FILES.items()}
        self.open_file: str | None = None

    def _answer(self, output: str) -> str:
        """The output as the container's terminal gives it, and SWE-agent's state line."""
        shown = output.rstrip("\n").replace("\n", "\r\n")
        return (f"{shown}\n(Open file: {self.open_file or 'n/a'})\n"
                f"(Current directory: {ROOT})\nbash-$")

    def _window(self, path: str) -> str:
        lines = self.files[path].split("\n")
        numbered = [f"{number}:{line}" for number, line in enumerate(lines[:WINDOW], 1)]
        return "\n".join([f"[File: {path} ({len(lines)} lines total)]", *numbered])

    @counted_tool(name="find_file")
    def find_file(self, file_name: str, dir: str = ROOT) -> str:
        """Finds all files with the given name in dir (default: the repository)."""
        found = [path for path in self.files
                 if path.startswith(dir.rstrip("/") + "/") and path.endswith("/" + file_name)]
        if not found:
            return self._answer(f'No matches found for "{file_name}" in {dir}')
        return self._answer("\n".join([f'Found {len(found)} matches for "{file_name}" in '
                                       f"{dir}:", *found]))

    @counted_tool(name="open")
    def open(self, path: str, line_number: int | None = None) -> str:
        """Opens the file at the given path in the editor."""
        if path not in self.files:
            return self._answer(f"File {path} not found")
        self.open_file = path
        return self._answer(self._window(path))

    @counted_tool(name="edit")
    def edit(self, search: str, replace: str,
             replace_all: Annotated[bool, P(name="replace-all")] = False) -> str:
        """Replaces the first occurrence (or all) of search with replace in the open file."""
        if self.open_file is None:
            return self._answer("No file open. Use the open command first.")
        text = self.files[self.open_file]
        count = text.count(search) if replace_all else min(text.count(search), 1)
        if not count:
            return self._answer(f"No replacement was performed: {search!r} was not found "
                                "in the open file.")
        self.files[self.open_file] = text.replace(search, replace, -1 if replace_all else 1)
        return self._answer(
            f"Replaced {count} occurrences. Please review the changes and make sure they "
            "are correct\n(correct indentation, no duplicate lines, etc). Edit the file "
            "again if necessary.\n" + self._window(self.open_file))

    @counted_tool(name="bash")
    def bash(self, command: str) -> str:
        """Runs a shell command (only ``python3 FILE`` on a file of the repository)."""
        words = command.split()
        if len(words) != 2 or words[0] != "python3" or words[1] not in self.files:
            return self._answer(f"(not run in a replay) {command}")
        with tempfile.TemporaryDirectory(prefix="sweagent-") as scratch:
            script = Path(scratch) / Path(words[1]).name
            script.write_text(self.files[words[1]], encoding="utf-8")
            done = subprocess.run([sys.executable, str(script)], capture_output=True,
                                  text=True, timeout=30, check=False, cwd=scratch)
        return self._answer(done.stdout + done.stderr)
