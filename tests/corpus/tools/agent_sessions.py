"""The tools of the hand-written agent-session shapes (a Claude Code session, a Codex CLI
rollout): a coding agent's shell. Replay never runs a recorded shell command; these say
what they would have run, so each call is executed (and counted) once and its recorded
output does not match.
"""

from __future__ import annotations

from execution_log import counted_tool


class AgentShellTools:
    """A coding agent's shell tools, as the sessions name them."""

    @counted_tool(name="Bash")
    def bash(self, command: str) -> str:
        """Run a shell command (Claude Code's tool): not run in a replay."""
        return f"(not run in a replay) {command}"

    @counted_tool(name="shell")
    def shell(self, cmd: str) -> str:
        """Run a shell command (Codex's tool): not run in a replay."""
        return f"(not run in a replay) {cmd}"
