"""Errors the command line reports as one message and an exit code.

``1`` the call failed, a replayed result differs or a check failed · ``2`` usage error ·
``3`` a target, transcript or snapshot cannot be loaded, or ``serve`` finds no MCP SDK.
Anything raised as one of these is shown without a traceback (``--debug`` shows it).
"""

from __future__ import annotations

import os

from agentforge_cli.errors import AgentForgeError

__all__ = ["EXIT_FAILED", "EXIT_LOAD", "EXIT_OK", "EXIT_USAGE", "CliError", "LoadError",
           "UsageError", "os_reason"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_LOAD = 3


class CliError(AgentForgeError):
    """A failure reported as ``error: <message>`` (and a hint) on standard error.

    Attributes:
        message: What went wrong, one or two lines.
        hint: How to fix it, or ``None``.
    """

    exit_code = EXIT_FAILED

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(CliError):
    """The command line is wrong: unknown tool, bad option value, no target given."""

    exit_code = EXIT_USAGE


class LoadError(CliError):
    """Something a command needs cannot be loaded: a snapshot, the MCP SDK.

    (Targets raise :class:`~agentforge_cli.errors.TargetError`, mapped to the same code.)
    """

    exit_code = EXIT_LOAD


def os_reason(exc: OSError) -> str:
    """Why a file operation failed, as a message clause: ``permission denied``, or the
    error's own sentence (one naming the file in the way is kept as written)."""
    reason = exc.strerror or str(exc)
    if exc.errno is not None and reason == os.strerror(exc.errno):
        return reason[:1].lower() + reason[1:]
    return reason
