"""The global options (the top-level callback's: ``--debug``, ``--version``) are accepted
after any sub-command too, defined once."""

from __future__ import annotations

import inspect
from typing import Annotated

import pytest
import typer
from cli_support import CRM, command_paths
from typer.testing import CliRunner

from agentforge_cli import __version__
from agentforge_cli.cli.app import main_callback
from agentforge_cli.cli.global_options import RootGroup

SUB_COMMANDS = [path for path in command_paths() if path]

# each global option, and a failure that shows whether --debug took effect
FAILING = {
    ("tools", "list"): ("sample_tools.nope",),
    ("tools", "check"): ("sample_tools.nope",),
    ("tools", "call"): ("queryCustomer", "-t", "sample_tools.nope"),
    ("tools", "fuzz"): ("sample_tools.nope",),
    ("replay",): ("-t", CRM, "missing.jsonl"),
    ("serve",): ("sample_tools.nope",),
}


@pytest.mark.parametrize("path", SUB_COMMANDS, ids=" ".join)
def test_version_after_any_sub_command(cli, path):
    result = cli(*path, "--version")
    assert (result.exit_code, result.stdout) == (0, f"agentforge {__version__}\n")


@pytest.mark.parametrize("path", list(FAILING), ids=" ".join)
@pytest.mark.parametrize("where", ["end", "after the sub-command"])
def test_debug_after_a_sub_command_shows_the_traceback(cli, path, where):
    arguments = FAILING[path]
    words = ([*path, *arguments, "--debug"] if where == "end"
             else [*path, "--debug", *arguments])
    result = cli(*words)
    assert result.exit_code in (2, 3), result.output
    assert "Traceback (most recent call last)" in result.stderr
    assert result.stderr.count("error: ") == 1
    quiet = cli(*path, *arguments)
    assert "Traceback" not in quiet.stderr


def test_debug_between_a_group_and_its_command(cli):
    result = cli("tools", "--debug", "list", "sample_tools.nope")
    assert result.exit_code == 3
    assert "Traceback (most recent call last)" in result.stderr
    # the global options are the callback's, and this file tests each of them
    assert list(inspect.signature(main_callback).parameters) == ["version", "debug"]


def test_an_option_value_or_what_follows_double_dash_is_not_taken_as_global(cli):
    # --format takes the next word as its value, even one spelled like a global option
    as_value = cli("tools", "list", CRM, "--format", "--version")
    assert as_value.exit_code == 2
    assert "--version" in as_value.stderr and "agentforge " not in as_value.stdout
    # after --, every word is an argument
    after_dashes = cli("tools", "call", "queryCustomer", "-t", CRM, "--", "--version")
    assert after_dashes.stdout != f"agentforge {__version__}\n"
    assert after_dashes.exit_code != 0
    # a global option given where click reads it anyway still works
    assert cli("--version", "tools", "list", CRM).stdout == f"agentforge {__version__}\n"
    hoisted = cli("tools", "list", CRM, "--format", "json", "--version")
    assert hoisted.stdout == f"agentforge {__version__}\n"


def test_a_sub_commands_own_option_of_the_same_name_wins():
    """Built with typer itself: a command that declares its own --debug gets it."""
    seen: dict[str, bool] = {}
    app = typer.Typer(cls=RootGroup, add_completion=False)

    @app.callback()
    def root(debug: Annotated[bool, typer.Option("--debug")] = False) -> None:
        seen["root"] = debug

    @app.command()
    def own(debug: Annotated[bool, typer.Option("--debug")] = False) -> None:
        seen["own"] = debug

    @app.command()
    def other(name: str = "") -> None:
        seen["other"] = True

    runner = CliRunner()
    assert runner.invoke(app, ["own", "--debug"]).exit_code == 0
    assert seen == {"root": False, "own": True}
    seen.clear()
    assert runner.invoke(app, ["other", "--name", "x", "--debug"]).exit_code == 0
    assert seen == {"root": True, "other": True}
