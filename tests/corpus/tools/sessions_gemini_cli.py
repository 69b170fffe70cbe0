"""Gemini CLI's file tools (``read_file``, ``edit_file``) for the Gemini CLI session
recordings ``geminicli-golden`` and ``geminicli-toolerror``, over an in-memory project
(``sessions_workspace.Workspace``).

Each session's class seeds the project with the file as it was before the session
touched it, taken from what the session shows: ``package.json`` as it is read, and
``config.json`` as its read shows it with the one edit made before that read undone. So
the edits, the edit that fails (its text is not in the file) and the read that shows
the first edit are all computed. Answers are worded as the recordings' tool words them.
"""

from __future__ import annotations

from typing import ClassVar

from execution_log import counted_tool
from sessions_workspace import Workspace


class GeminiCliTools:
    """Gemini CLI's file tools over a session's in-memory project."""

    FILES: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self.workspace = Workspace(self.FILES)

    @counted_tool(name="read_file")
    def read_file(self, file_path: str) -> str:
        """Read a file of the project."""
        try:
            return self.workspace.read(file_path)
        except FileNotFoundError:
            raise FileNotFoundError(f"File not found: {file_path}") from None

    @counted_tool(name="edit_file")
    def edit_file(self, file_path: str, old_string: str, new_string: str) -> str:
        """Replace the one occurrence of ``old_string`` in a file."""
        try:
            found = self.workspace.count(file_path, old_string)
        except FileNotFoundError:
            raise FileNotFoundError(f"File not found: {file_path}") from None
        if found != 1:
            raise ValueError(f"Failed to edit, {found} occurrences found for old_string")
        self.workspace.replace(file_path, old_string, new_string)
        return "Edit successful"


class GoldenSession(GeminiCliTools):
    """``geminicli-golden``: one read of ``package.json``."""

    FILES: ClassVar[dict[str, str]] = {
        "package.json": '{"name": "test-project", "version": "1.0.0"}',
    }


class ToolErrorSession(GeminiCliTools):
    """``geminicli-toolerror``: ``config.json`` before its port was changed to 9000."""

    FILES: ClassVar[dict[str, str]] = {
        "config.json": '{"port": 8080, "host": "127.0.0.1", "debug": true}',
    }
