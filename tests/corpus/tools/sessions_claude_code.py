"""Claude Code's tools (``Read``, ``Write``, ``Edit``, ``Bash``, ``Glob``, ``Grep``,
``TodoWrite``) for the Claude Code session recordings: ``cc-rejection``, ``cc-forked``,
``cc-web-loglines`` and ``cc-stream-json``.

The file tools work on an in-memory project (``sessions_workspace.Workspace``), seeded
with what a session shows of the files it did not write, so what they answer is computed:
a read gives the file as earlier edits left it, an edit fails where its text is not in
the file, a glob or a grep lists what the session's writes put there. Each session's
recording words the file tools' answers its own way, so each has a class saying how.

A shell command's output comes from the machine it ran on (a test run, a commit's hash,
a file's size): ``Bash`` answers the output a session recorded for that exact command
(an error for one that failed), and for any other command says it is not run.

A call the user refused in Claude Code's permission prompt never reached the tool; its
recorded answer is Claude Code's refusal, which no tool gives, so run again it differs.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from execution_log import counted_tool
from pydantic import BaseModel
from sessions_workspace import Workspace


class Todo(BaseModel):
    """One entry of a TodoWrite list."""

    content: str
    status: Literal["pending", "in_progress", "completed"]
    activeForm: str  # Claude Code's own key


class ClaudeCodeTools:
    """Claude Code's tools over a session's in-memory project."""

    CWD: ClassVar[str] = "/"
    FILES: ClassVar[dict[str, str]] = {}
    """What the session shows of files it did not write, by path."""
    SHELL: ClassVar[dict[str, tuple[str, bool]]] = {}
    """Recorded shell output by exact command: (output, whether it failed)."""
    WRITTEN: ClassVar[str] = "File created successfully"
    EDITED: ClassVar[str] = "File updated successfully"
    TODOS_SAVED: ClassVar[str] = "Todos updated"

    def __init__(self) -> None:
        self.workspace = Workspace(self.FILES, cwd=self.CWD)
        self.todos: list[Todo] = []

    @counted_tool(name="Read")
    def read(self, file_path: str, offset: int | None = None,
             limit: int | None = None) -> str:
        """Read a file (from line ``offset``, at most ``limit`` lines)."""
        try:
            text = self.workspace.read(file_path)
        except FileNotFoundError:
            raise FileNotFoundError("File does not exist.") from None
        if offset is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = max((offset or 1) - 1, 0)
        return "".join(lines[start:start + limit if limit else None])

    @counted_tool(name="Write")
    def write(self, file_path: str, content: str) -> str:
        """Write a file, replacing any it replaces."""
        self.workspace.write(file_path, content)
        return self.WRITTEN

    @counted_tool(name="Edit")
    def edit(self, file_path: str, old_string: str, new_string: str,
             replace_all: bool = False) -> str:
        """Replace ``old_string`` in a file: it must occur once, or ``replace_all``."""
        try:
            found = self.workspace.count(file_path, old_string)
        except FileNotFoundError:
            raise FileNotFoundError("File does not exist.") from None
        if found == 0:
            raise ValueError(f"String to replace not found in file.\nString: {old_string}")
        if found > 1 and not replace_all:
            raise ValueError(f"Found {found} matches of the string to replace, but "
                             "replace_all is false.")
        self.workspace.replace(file_path, old_string, new_string)
        return self.EDITED

    @counted_tool(name="Bash")
    def bash(self, command: str, description: str | None = None,
             timeout: int | None = None) -> str:
        """Run a shell command: the output recorded for it, or not run."""
        if command not in self.SHELL:
            raise RuntimeError(f"(not run in a replay) {command}")
        output, failed = self.SHELL[command]
        if failed:
            raise RuntimeError(output)
        return output

    @counted_tool(name="Glob")
    def glob(self, pattern: str, path: str | None = None) -> str:
        """Files matching a glob pattern, one path a line."""
        found = self.workspace.glob(pattern, path)
        return "\n".join(found) if found else "No files found"

    @counted_tool(name="Grep")
    def grep(self, pattern: str, path: str | None = None,
             output_mode: Literal["content", "files_with_matches", "count"] =
             "files_with_matches") -> str:
        """Search file contents for a regular expression."""
        lines = self.workspace.grep(pattern, path)
        if not lines:
            return "No matches found"
        if output_mode == "content":
            return "\n".join(f"{file}:{number}:{line}" for file, number, line in lines)
        files = dict.fromkeys(file for file, _, _ in lines)
        if output_mode == "count":
            return "\n".join(f"{file}:{sum(1 for f, _, _ in lines if f == file)}"
                             for file in files)
        return "\n".join(files)

    @counted_tool(name="TodoWrite")
    def todo_write(self, todos: list[Todo]) -> str:
        """Replace the session's todo list."""
        self.todos = list(todos)
        return self.TODOS_SAVED


class RejectionSession(ClaudeCodeTools):
    """``cc-rejection``: the database module it reads; an edit and a test run the user
    refused (Claude Code's refusal is recorded, not the tool's answer)."""

    CWD = "/home/testuser/rejection-project"
    FILES: ClassVar[dict[str, str]] = {
        "src/db.py": "# db.py\nimport sqlite3\n\nclass Database:\n"
                     "    def __init__(self, path):\n"
                     "        self.conn = sqlite3.connect(path)\n\n"
                     "    def query(self, sql):\n"
                     "        return self.conn.execute(sql).fetchall()",
    }


class ForkedSession(ClaudeCodeTools):
    """``cc-forked``: two branches off one message, each writing its own file."""

    CWD = "/home/testuser/fork-project"


class WebSession(ClaudeCodeTools):
    """``cc-web-loglines``: a Claude Code web session. The tests file is never shown;
    of it the session shows only the line its last edit replaces."""

    CWD = "/project"
    WRITTEN = "File written successfully"
    EDITED = "File edited successfully"
    FILES: ClassVar[dict[str, str]] = {
        "tests/test_math.py": "    assert subtract(10, 5) == None\n",
    }
    SHELL: ClassVar[dict[str, tuple[str, bool]]] = {
        "python -m pytest tests/": (
            "===== test session starts =====\ncollected 2 items\n\n"
            "tests/test_math.py ..  [100%]\n\n===== 2 passed in 0.05s =====", False),
        "git add . && git commit -m 'Add math_utils with add function'": (
            "[main abc1234] Add math_utils with add function\n"
            " 1 file changed, 5 insertions(+)", False),
        "git push -u origin main": (
            "remote: \nremote: Create a pull request for 'main' on GitHub by visiting:\n"
            "remote:      https://github.com/example/project/pull/new/main\nremote: \n"
            "To github.com:example/project.git\n   def5678..abc1234  main -> main", False),
        "python -m pytest tests/ -v": (
            "Exit code 1\n===== FAILURES =====\n"
            "test_subtract - AssertionError: expected 5 but got None", True),
        "git add . && git commit -m 'Add subtract function and fix tests'": (
            "[main def5678] Add subtract function and fix tests\n"
            " 2 files changed, 10 insertions(+), 1 deletion(-)", False),
    }


_PYPROJECT = ("/Users/REDACTED/openinference/python/instrumentation/"
              "openinference-instrumentation-claude-agent-sdk/pyproject.toml")


class StreamJsonSession(ClaudeCodeTools):
    """``cc-stream-json``: one ``wc -c`` of a file on the recording's machine."""

    SHELL: ClassVar[dict[str, tuple[str, bool]]] = {
        f"wc -c '{_PYPROJECT}'": (f"    2440 {_PYPROJECT}", False),
    }
