"""The tool of openinference's Claude Agent SDK test (``oi-claude-agent-sdk``): Claude
Code's ``Bash``.

Replay never runs a recorded shell command. The one command of the test, ``wc -c FILE``,
is answered as macOS ``wc`` answers it (the count right-aligned in eight columns, then
the name), from a table of the sizes the files had on the recording machine; any other
command says what it would have run.
"""

from __future__ import annotations

import shlex

from execution_log import counted_tool

RECORDED_SIZES = {
    "/Users/REDACTED/openinference/python/instrumentation/"
    "openinference-instrumentation-claude-agent-sdk/pyproject.toml": 2440,
}
"""path -> size in bytes, on the machine that recorded the session."""


class ClaudeSdkShellTools:
    """Claude Code's shell tool."""

    @counted_tool(name="Bash")
    def bash(self, command: str, description: str = "", timeout: int | None = None,
             run_in_background: bool = False) -> str:
        """Run a shell command: ``wc -c`` of a known file from the table, else not run."""
        words = shlex.split(command)
        if len(words) == 3 and words[:2] == ["wc", "-c"] and words[2] in RECORDED_SIZES:
            return f" {RECORDED_SIZES[words[2]]:7d} {words[2]}"
        return f"(not run in a replay) {command}"
