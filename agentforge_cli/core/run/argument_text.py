"""The argument string of one call as a person gives it: the text itself, ``-`` for
standard input, ``@FILE`` for a file's; read only up to the argument limit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from agentforge_cli.core.bind.arguments import DEFAULT_MAX_ARGUMENT_CHARS
from agentforge_cli.errors import CommandInputError

__all__ = ["read_argument_text"]


def read_argument_text(value: str, stdin: TextIO | None = None) -> str:
    """The argument text ``value`` stands for (``stdin`` defaults to ``sys.stdin``).

    Raises:
        CommandInputError: The file cannot be read or is not UTF-8, or the text is
            longer than :data:`~agentforge_cli.core.bind.arguments.DEFAULT_MAX_ARGUMENT_CHARS`.
    """
    if value == "-":
        text = _read_limited(sys.stdin if stdin is None else stdin)
        return _within_limit(text, "the arguments on standard input")
    if value.startswith("@"):
        path = Path(value[1:])
        try:
            with path.open(encoding="utf-8") as stream:
                text = _read_limited(stream)
        except OSError as exc:
            raise CommandInputError(f"cannot read the arguments file {str(path)!r}: "
                                    f"{exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise CommandInputError(f"the arguments file {str(path)!r} is not UTF-8 "
                                    "text") from exc
        return _within_limit(text, f"the arguments file {str(path)!r}")
    return value


def _read_limited(stream: TextIO) -> str:
    """At most one character more than the argument limit."""
    return stream.read(DEFAULT_MAX_ARGUMENT_CHARS + 1)


def _within_limit(text: str, what: str) -> str:
    if len(text) > DEFAULT_MAX_ARGUMENT_CHARS:
        raise CommandInputError(f"{what} are more than the limit of "
                                f"{DEFAULT_MAX_ARGUMENT_CHARS} characters")
    return text
