"""The options every command that loads a target takes to reach MCP servers.

``--header KEY:VALUE`` (``http(s)://`` targets), ``--env KEY=VALUE`` and ``--cwd DIR``
(``mcp:`` targets). A command declares them on one line::

    header: HeaderOption = None, env: EnvOption = None, cwd: CwdOption = None,

and passes ``mcp_options=mcp_options(header, env, cwd)`` to ``load_service``. Header and
environment values may be secrets: no message, help screen or default ever shows one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from agentforge_cli.cli.errors import UsageError

__all__ = ["CwdOption", "EnvOption", "HeaderOption", "mcp_options"]

HeaderOption = Annotated[
    list[str] | None,
    typer.Option("--header", "-H", metavar="KEY:VALUE", show_default=False,
                 help="An HTTP header for http(s):// MCP targets, e.g. 'Authorization: "
                      "Bearer ...'; repeatable. Wins over $AGENTFORGE_MCP_HEADERS per "
                      "header. Never printed."),
]

EnvOption = Annotated[
    list[str] | None,
    typer.Option("--env", metavar="KEY=VALUE", show_default=False,
                 help="An environment variable for mcp: targets, added to yours; "
                      "repeatable. Never printed."),
]

CwdOption = Annotated[
    str | None,
    typer.Option("--cwd", metavar="DIR", show_default=False,
                 help="The directory mcp: targets run in (default: the current directory, "
                      "or that of the pyproject.toml naming them)."),
]

_BREAKS = ("\r", "\n", "\0")


def _pairs(values: list[str] | None, separator: str, option: str, form: str
           ) -> dict[str, str]:
    """``KEY<separator>VALUE`` strings as a dict; a malformed one is a usage error that
    names its key at most, never its value."""
    pairs: dict[str, str] = {}
    for index, text in enumerate(values or (), start=1):
        key, found, value = text.partition(separator)
        key = key.strip()
        if not found or not key:
            problem = f"has no '{separator}'" if not found else f"has no name before '{separator}'"
            raise UsageError(f"{option} takes {form}; value {index} of {option} {problem} "
                             "(the value is not shown: it may be a secret)",
                             hint=f"write {option} {form}")
        if any(char in key for char in (*_BREAKS, " ", "\t")):
            raise UsageError(f"{option}: the name {key!r} holds a space or a control "
                             "character")
        if any(char in value for char in _BREAKS):
            raise UsageError(f"{option} {key}: the value holds a line break or a NUL "
                             "character (the value is not shown)")
        pairs[key] = value.strip() if separator == ":" else value
    return pairs


def mcp_options(header: list[str] | None, env: list[str] | None, cwd: str | None, *,
                on_skipped: Any = None) -> Any:
    """The ``McpOptions`` of the options given (and ``on_skipped``, which receives each
    unusable tool of a server), or ``None`` when none is.

    Raises:
        UsageError: A malformed ``--header``/``--env`` or a ``--cwd`` that is not a
            directory (exit 2).
    """
    if not (header or env or cwd or on_skipped):
        return None
    headers = _pairs(header, ":", "--header", "KEY:VALUE")
    variables = _pairs(env, "=", "--env", "KEY=VALUE")
    directory = None
    if cwd is not None:
        directory = Path(cwd).expanduser().resolve()
        if not directory.is_dir():
            raise UsageError(f"--cwd {cwd}: no such directory",
                             hint="give the directory mcp: servers should run in")
    from agentforge_cli.integrations.mcp.client.options import McpOptions

    return McpOptions(headers=headers, env=variables, cwd=directory, on_skipped=on_skipped)
