"""The typer application behind the ``agentforge`` command (kept thin).

Command groups live in their own modules (``tools_cmd``, ``check_cmd``, ``replay_cmd``,
``serve_cmd``); rich rendering lives in ``render``; errors become exit codes in ``guard``.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated

import typer

from agentforge_cli import __version__
from agentforge_cli.cli import check_cmd, replay_cmd, serve_cmd, tools_cmd
from agentforge_cli.cli.guard import set_debug

app = typer.Typer(help="Check, call, replay and serve LLM tools written in Python.",
                  no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False)
tools_cmd.app.command("check")(check_cmd.check)
tools_cmd.app.command("diff")(check_cmd.diff)
app.add_typer(tools_cmd.app, name="tools")
app.command("replay")(replay_cmd.replay)
app.command("serve")(serve_cmd.serve)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"agentforge {__version__}")
        raise typer.Exit()


def _safe_streams() -> None:
    """Unencodable output (lone surrogates, or any text on a narrow encoding) is written
    with backslash escapes instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


@app.callback()
def main_callback(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
    debug: Annotated[bool, typer.Option(
        "--debug", help="Show Python tracebacks for errors.")] = False,
) -> None:
    """Check, call, replay and serve LLM tools written in Python."""
    set_debug(debug)
    _safe_streams()


def main() -> None:
    """Console-script entry point."""
    app()
