""":class:`CommandInputError`: what a command was given cannot be used (a bad option
value, an unreadable arguments file); the command line reports it as a usage error."""

from __future__ import annotations

from agentforge_cli.errors import AgentForgeError

__all__ = ["CommandInputError"]


class CommandInputError(AgentForgeError, ValueError):
    """An option value or an input a command cannot use; nothing has run yet.

    Attributes:
        message: What is wrong, naming the option and the value.
        hint: How to fix it, or ``None``.
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
