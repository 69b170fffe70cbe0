"""Help panels whose option names are never cut: ``--wrap-argument-errors`` in full at
80 columns.

Typer lays each option out in five columns (long name, short name, negative long name,
negative short name, type) before its help, and when the terminal is narrow rich shrinks
every column alike, names included (``--wrap-argument-er…``). Our commands and groups
draw their options and arguments panels with :func:`options_panel` instead: one column
holds the names and the value placeholder as click writes them (``--tools, -t TARGET``,
``--strict / --lenient``) and never wraps; the help takes the rest of the width. The
help text itself, the defaults and the ``[required]`` marks are typer's own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["HelpLayout", "options_panel", "our_panels"]


def _names(param: Any, ctx: Any) -> Any:
    """``--tools, -t TARGET``, ``--strict / --lenient``, or an argument's ``NAME``, as
    rich text in typer's styles."""
    from rich.text import Text
    from typer import rich_utils
    from typer.core import TyperArgument

    if isinstance(param, TyperArgument):
        return rich_utils.highlighter(str(param.metavar or (param.name or "").upper()))
    longest_first = sorted(param.opts, key=lambda opt: not opt.startswith("--"))
    shown = rich_utils.highlighter(", ".join(longest_first))
    if param.secondary_opts:
        shown.append(" / ")
        shown.append_text(rich_utils.negative_highlighter(", ".join(param.secondary_opts)))
    metavar = "" if param.is_flag else param.make_metavar(ctx=ctx)
    if metavar and "bool" not in metavar.lower():
        shown.append_text(Text(f" {metavar}", style=rich_utils.STYLE_TYPES))
    return shown


def options_panel(*, name: str, params: list[Any], ctx: Any, markup_mode: Any,
                  console: Any) -> None:
    """Print one panel of options or arguments (the signature of typer's own)."""
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text
    from typer import rich_utils

    if not params:
        return
    required = any(param.required for param in params)
    table = Table(highlight=True, show_header=False, expand=True, box=None,
                  padding=rich_utils.STYLE_OPTIONS_TABLE_PADDING,
                  pad_edge=rich_utils.STYLE_OPTIONS_TABLE_PAD_EDGE)
    if required:
        table.add_column(no_wrap=True)
    table.add_column(no_wrap=True)  # the names: never wrapped, never cut
    table.add_column(ratio=1)  # the help: the rest of the width
    for param in params:
        row: list[Any] = []
        if required:
            row.append(Text(rich_utils.REQUIRED_SHORT_STRING if param.required else "",
                            style=rich_utils.STYLE_REQUIRED_SHORT))
        row.append(_names(param, ctx))
        row.append(rich_utils._get_parameter_help(param=param, ctx=ctx,
                                                  markup_mode=markup_mode))
        table.add_row(*row)
    console.print(Panel(table, border_style=rich_utils.STYLE_OPTIONS_PANEL_BORDER,
                        title=name, title_align=rich_utils.ALIGN_OPTIONS_PANEL))


@contextlib.contextmanager
def our_panels() -> Iterator[None]:
    """While typer renders a help screen, its panels of options and arguments are drawn by
    :func:`options_panel` (only for the commands that ask, see :class:`HelpLayout`)."""
    from typer import rich_utils

    original = rich_utils._print_options_panel
    rich_utils._print_options_panel = options_panel
    try:
        yield
    finally:
        rich_utils._print_options_panel = original


class HelpLayout:
    """Mixed into a typer command or group class: its ``--help`` draws
    :func:`options_panel`."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with our_panels():
            super().format_help(ctx, formatter)  # type: ignore[misc]  # the typer class's
