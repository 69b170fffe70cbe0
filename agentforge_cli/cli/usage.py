"""Help screens in the usual notation: ``NAME``, ``[NAME]``, ``TARGET...``, ``[TARGET]...``.

Typer writes a required argument as ``{NAME}``, several values as ``[TARGET]``, adds a
``<str>`` type column to every argument and keeps the docstring's line breaks inside a
paragraph (so an 80-column terminal shows a one-word line). Commands registered with
``cls=Command`` build their usage line from each argument's metavar, whether it is
required and whether it takes several values, and let each paragraph of their help wrap
to the terminal; an argument declared with ``click_type=TEXT`` shows no type. Their
options panels (and those of :class:`Group`) keep every option name whole
(``help_layout``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from typer import core as typer_core
from typer.core import TyperArgument, TyperCommand, TyperGroup

from agentforge_cli.cli.help_layout import HelpLayout

# the click typer runs on: vendored as typer._click in recent typer, click itself before
_click: Any = getattr(typer_core, "_click", None)
if _click is None:
    _click = typer_core.click  # type: ignore[attr-defined]  # in older typer only

__all__ = ["TEXT", "Command", "Group", "later", "make_help", "unwrap", "usage_piece"]


class _Text(_click.types.StringParamType):  # type: ignore[misc]  # click's, found at runtime
    """A string argument whose help row shows no ``<str>``: its metavar says it all."""

    def get_metavar(self, param: Any, ctx: Any) -> str:
        return ""


TEXT = _Text()


def usage_piece(argument: Any) -> str:
    """``NAME``, ``[NAME]``, ``NAME...`` or ``[NAME]...``."""
    name = argument.metavar or (argument.name or "").upper()
    shown = name if argument.required else f"[{name}]"
    return shown + ("..." if argument.nargs != 1 else "")


_LATER: dict[str, Callable[[], str]] = {}


def later(make: Callable[[], str]) -> str:
    """A help text made only when help is shown (or completion offers the option), for a
    text that names what a registry holds: a command that runs imports no registry for
    its help. Given as ``help=`` to an option of a :class:`Command`."""
    key = f"\0help {len(_LATER)}"
    _LATER[key] = make
    return key


def make_help(params: Iterable[Any]) -> None:
    """Each parameter's help given by :func:`later`, made now (help screens and
    completion do it; so does anything else that reads ``param.help``)."""
    for param in params:
        make = _LATER.get(getattr(param, "help", None) or "")
        if make is not None:
            param.help = make()


def unwrap(text: str) -> str:
    """Each paragraph on one line (a ``\\b`` paragraph, typer's "keep as is", stays)."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split())
                       for p in paragraphs)


class Command(HelpLayout, TyperCommand):
    """A typer command whose usage line reads ``[OPTIONS] NAME [TARGET]...``, whose
    help paragraphs wrap to the terminal and whose option names are never cut
    (:mod:`~agentforge_cli.cli.help_layout`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help:
            self.help = unwrap(self.help)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        make_help(self.params)
        super().format_help(ctx, formatter)

    def shell_complete(self, ctx: Any, incomplete: str) -> list[Any]:
        make_help(self.params)
        return super().shell_complete(ctx, incomplete)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        pieces += [usage_piece(p) for p in self.get_params(ctx)
                   if isinstance(p, TyperArgument)]
        return pieces


class Group(HelpLayout, TyperGroup):
    """A typer group whose option names are never cut in its help."""
