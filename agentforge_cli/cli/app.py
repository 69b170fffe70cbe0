"""The typer application behind the ``agentforge`` command (kept thin).

Command groups live in their own modules (``tools_cmd``, ``check_cmd``, ``fuzz_cmd``,
``audit_cmd``, ``resources_cmd``, ``prompts_cmd``, ``replay_cmd``, ``eval_cmd``,
``chat_cmd``, ``serve_cmd``, ``record_cmd``, ``report_cmd``, ``auth_cmd``, ``init_cmd``);
rich rendering lives in ``render``; errors become exit codes in ``guard``.

A command group is imported only when the command line asks for it (``agentforge tools
...`` never imports the replay machinery): the start-up time of one command does not
grow with the others. ``app`` (for tests and embedding) holds every group.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Annotated

import typer

from agentforge_cli import __version__
from agentforge_cli.cli.guard import set_debug

__all__ = ["GROUPS", "build_app", "main"]


_TOOLS_EXTRAS = {"check": ("check_cmd", "check"), "diff": ("check_cmd", "diff"),
                 "fuzz": ("fuzz_cmd", "fuzz"), "audit": ("audit_cmd", "audit")}
"""The ``tools`` sub-commands that live in modules of their own: name -> (module, function)."""
_BUILT_IN = ("list", "call")  # defined in tools_cmd itself
_registered: set[str] = set()


def _tools_group(sub: str | None = None) -> typer.Typer:
    """``agentforge tools``: list and call, plus check, diff, fuzz and audit, each module
    imported only when it can be asked for (``tools list`` imports none of them; help, a
    misspelt name and completion import all)."""
    import importlib

    from agentforge_cli.cli import tools_cmd
    from agentforge_cli.cli.usage import Command

    wanted = () if sub in _BUILT_IN else (sub,) if sub in _TOOLS_EXTRAS else _TOOLS_EXTRAS
    for name in wanted:
        if name not in _registered:
            module, function = _TOOLS_EXTRAS[name]
            command = getattr(importlib.import_module(f"agentforge_cli.cli.{module}"), function)
            tools_cmd.app.command(name, cls=Command)(command)
            _registered.add(name)
    return tools_cmd.app


def _add_tools(root: typer.Typer, sub: str | None = None) -> None:
    root.add_typer(_tools_group(sub), name="tools")


def _add_replay(root: typer.Typer) -> None:
    from agentforge_cli.cli import replay_cmd
    from agentforge_cli.cli.usage import Command

    root.command("replay", cls=Command)(replay_cmd.replay)


def _add_serve(root: typer.Typer) -> None:
    from agentforge_cli.cli import serve_cmd
    from agentforge_cli.cli.usage import Command

    root.command("serve", cls=Command)(serve_cmd.serve)


def _add_record(root: typer.Typer) -> None:
    from agentforge_cli.cli import record_cmd
    from agentforge_cli.cli.usage import Command

    root.command("record", cls=Command)(record_cmd.record)


def _add_init(root: typer.Typer) -> None:
    from agentforge_cli.cli import init_cmd
    from agentforge_cli.cli.usage import Command

    root.command("init", cls=Command)(init_cmd.init)


def _add_report(root: typer.Typer) -> None:
    from agentforge_cli.cli import report_cmd
    from agentforge_cli.cli.usage import Command

    root.command("report", cls=Command)(report_cmd.report)


def _add_auth(root: typer.Typer) -> None:
    from agentforge_cli.cli import auth_cmd

    root.add_typer(auth_cmd.app, name="auth")


def _add_eval(root: typer.Typer) -> None:
    from agentforge_cli.cli import eval_cmd
    from agentforge_cli.cli.usage import Command

    root.command("eval", cls=Command)(eval_cmd.eval_command)


def _add_resources(root: typer.Typer) -> None:
    from agentforge_cli.cli import resources_cmd

    root.add_typer(resources_cmd.app, name="resources")


def _add_prompts(root: typer.Typer) -> None:
    from agentforge_cli.cli import prompts_cmd

    root.add_typer(prompts_cmd.app, name="prompts")


def _add_chat(root: typer.Typer) -> None:
    from agentforge_cli.cli import chat_cmd
    from agentforge_cli.cli.usage import Command

    root.command("chat", cls=Command)(chat_cmd.chat_command)


GROUPS = {"tools": _add_tools, "resources": _add_resources, "prompts": _add_prompts,
          "replay": _add_replay, "eval": _add_eval, "chat": _add_chat, "serve": _add_serve,
          "record": _add_record, "report": _add_report, "auth": _add_auth, "init": _add_init}
"""The command groups, in the order ``--help`` lists them."""


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


def main_callback(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
    debug: Annotated[bool, typer.Option(
        "--debug", help="Show Python tracebacks for errors.")] = False,
) -> None:
    """Check, call, replay and serve LLM tools written in Python.

    Its options are the global ones: accepted anywhere on the command line, after a
    sub-command too (``global_options``).
    """
    set_debug(debug)
    _safe_streams()


def build_app(groups: tuple[str, ...] | None = None, sub: str | None = None) -> typer.Typer:
    """The application with the named command groups (all of them by default); ``sub``,
    the sub-command asked of ``tools``, spares the others' imports."""
    from agentforge_cli.cli.global_options import RootGroup

    root = typer.Typer(help="Check, call, replay and serve LLM tools written in Python.",
                       no_args_is_help=True, add_completion=True,
                       pretty_exceptions_enable=False, cls=RootGroup)
    root.callback()(main_callback)
    for name, add in GROUPS.items():
        if groups is None or name in groups:
            if name == "tools":
                _add_tools(root, sub)
            else:
                add(root)
    return root


def _requested(argv: list[str]) -> tuple[tuple[str, ...] | None, str | None]:
    """The one group a command line names, or ``None`` (help, completion: all groups), and
    the sub-command it names after it."""
    if any(key.endswith("_COMPLETE") for key in os.environ):
        return None, None
    words = [arg for arg in argv if not arg.startswith("-")]
    if not words or words[0] not in GROUPS:
        return None, None
    return (words[0],), (words[1] if len(words) > 1 else None)


def __getattr__(name: str) -> typer.Typer:
    if name == "app":  # every group, built once on first use
        app = globals()["app"] = build_app()
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _working_directory_off_path() -> None:
    """Take off the import path the working directory Python put first (``python -m``,
    ``python -c``): no module in the folder a command runs from is imported in place of a
    library. A target naming a module there still finds it (``importing.on_path``)."""
    if getattr(sys.flags, "safe_path", False) or not sys.path:
        return
    if os.path.abspath(sys.path[0] or ".") == os.getcwd():
        del sys.path[0]


def main() -> None:
    """Console-script entry point."""
    _working_directory_off_path()
    groups, sub = _requested(sys.argv[1:])
    build_app(groups, sub)()
