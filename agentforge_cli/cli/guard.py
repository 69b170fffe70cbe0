"""Turning failures into one message and an exit code; ``--debug`` shows tracebacks.

Every command body runs inside :func:`guarded`. Expected failures (bad input, a target
or transcript that cannot be loaded) print ``error: ...`` and exit with their code;
anything unexpected prints a one-line message pointing at ``--debug`` (exit 1).

While the body runs, what the user's code prints goes to standard error and the
product's output to the real standard output
(:func:`~agentforge_cli.cli.output.stdout_to_stderr`). ``serve`` also claims the file
descriptors for its protocol (``integrations/mcp/server/stdio.py``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import typer

from agentforge_cli.cli.errors import EXIT_FAILED, EXIT_LOAD, EXIT_USAGE, CliError
from agentforge_cli.cli.output import stdout_to_stderr

__all__ = ["debug_enabled", "failure", "guarded", "set_debug"]

_DEBUG_ENV = "AGENTFORGE_DEBUG"
_state = {"debug": False}


def set_debug(enabled: bool) -> None:
    """Record the global ``--debug`` flag for this invocation."""
    _state["debug"] = enabled


def debug_enabled() -> bool:
    """``--debug`` was given (or ``AGENTFORGE_DEBUG`` is set to a true value)."""
    return _state["debug"] or os.environ.get(_DEBUG_ENV, "").lower() in ("1", "true", "yes")


def _fail(message: str, hint: str | None, code: int, exc: BaseException) -> typer.Exit:
    from agentforge_cli.cli import render

    if debug_enabled():
        render.debug_traceback(exc)
    render.error(message, hint)
    return typer.Exit(code)


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """Run a command body: user output to stderr, errors to messages and exit codes."""
    with stdout_to_stderr(), _mapped_errors():
        yield


def failure(exc: BaseException) -> tuple[str, str | None, int] | None:
    """The message, hint and exit code of an expected failure, ``None`` for any other:
    the one place an error becomes an exit code (``replay`` uses it per transcript)."""
    from agentforge_cli.errors import (
        AgentForgeError,
        CommandInputError,
        TargetConfigError,
        TargetError,
        ToolDefinitionError,
    )
    from agentforge_cli.replay.transcripts.errors import TranscriptError, TranscriptFormatError

    if isinstance(exc, CliError):
        return exc.message, exc.hint, exc.exit_code
    if isinstance(exc, CommandInputError):
        return exc.message, exc.hint, EXIT_USAGE
    if isinstance(exc, TargetConfigError):
        return exc.message, exc.hint, EXIT_USAGE
    if isinstance(exc, TargetError):
        return exc.message, exc.hint, EXIT_LOAD
    if isinstance(exc, TranscriptFormatError):  # no format reads it: name one, or convert
        return f"cannot read transcript {exc}", None, EXIT_USAGE
    if isinstance(exc, TranscriptError):
        return f"cannot read transcript {exc}", None, EXIT_LOAD
    if isinstance(exc, ToolDefinitionError):
        return str(exc), None, EXIT_LOAD
    if isinstance(exc, AgentForgeError):
        return f"{type(exc).__name__}: {exc}", None, EXIT_FAILED
    return None


@contextlib.contextmanager
def _mapped_errors() -> Iterator[None]:
    """Map errors to messages and exit codes."""
    try:
        yield
    except (typer.Exit, typer.Abort):
        raise
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except BrokenPipeError:
        raise typer.Exit(EXIT_FAILED) from None
    except Exception as exc:
        known = failure(exc)
        if known is not None:
            raise _fail(*known, exc) from None
        if debug_enabled():
            raise
        raise _fail(f"unexpected {type(exc).__name__}: {exc}",
                    "run again with --debug to see the traceback", EXIT_FAILED,
                    exc) from None
