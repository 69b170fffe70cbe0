"""The typer application behind the ``agentforge`` command."""

from __future__ import annotations

import typer

from agentforge_cli import __version__

app = typer.Typer(help="Check, call and replay LLM tools written in Python.",
                  no_args_is_help=True, add_completion=False)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"agentforge {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Show the version and exit."),
) -> None:
    """Check, call and replay LLM tools written in Python."""


def main() -> None:
    """Console-script entry point."""
    app()
