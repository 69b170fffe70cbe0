"""The tools the recorded session calls on the reference MCP git server
(``mcp-server-git``), with the server's names and parameters.

The session ran against a clone that is not here, so no result can be reproduced: each
tool answers a fixed sentence naming what it was asked. The case is replayed with
``--match status``: what it checks is that every call binds (``max_count`` sent as the
string ``"2"`` among them) and succeeds, and the one recorded error shows as the
difference it is.
"""

from __future__ import annotations

from execution_log import counted_tool


class GitTools:
    """git_status, git_log and git_show over a repository path."""

    @counted_tool(name="git_status")
    def git_status(self, repo_path: str) -> str:
        """Shows the working tree status."""
        return f"status of {repo_path}: no repository here"

    @counted_tool(name="git_log")
    def git_log(self, repo_path: str, max_count: int = 10,
                start_timestamp: str | None = None, end_timestamp: str | None = None) -> str:
        """Shows the commit logs."""
        return f"last {max_count} commits of {repo_path}: no repository here"

    @counted_tool(name="git_show")
    def git_show(self, repo_path: str, revision: str) -> str:
        """Shows the contents of a commit."""
        return f"{revision} in {repo_path}: no repository here"
