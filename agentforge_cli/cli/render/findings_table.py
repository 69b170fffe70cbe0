"""``tools check`` / ``tools diff``: the findings table and its verdict."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from agentforge_cli.cli.render.consoles import (
    print_trimmed,
    print_wrapped,
    safe_text,
    stdout_console,
)

_LEVEL_STYLES = {"breaking": "bold red", "error": "red", "warning": "yellow", "info": "dim"}
WIDE_FINDINGS = 120
"""Terminal width from which the findings table gives the rule a column of its own."""


def findings(rows: Sequence[dict[str, str]], verdict: str, *, failed: bool,
             details: str | None = None, silenced: Sequence[str] = ()) -> None:
    """The findings table (level, tool, parameter, rule, message), a verdict line, a dim
    line of details (what was checked) and a line per silenced rule (what it silenced,
    and who asked).

    ``level``, ``tool`` and ``parameter`` open every row, so the first line of a finding
    always names all three; the message wraps under its own column. Below
    :data:`WIDE_FINDINGS` columns the rule is shown after the message, in brackets.
    """
    console = stdout_console()
    wide = console.width >= WIDE_FINDINGS
    if rows:
        from rich.table import Table  # on use: a cold start need not load it
        table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False,
                      header_style="bold")
        table.add_column("level", no_wrap=True)
        table.add_column("tool", overflow="fold")
        table.add_column("parameter", overflow="fold")
        if wide:
            table.add_column("rule", no_wrap=True, style="dim")
        table.add_column("message", overflow="fold")
        for row in rows:
            message = Text(safe_text(row["message"]))
            if not wide:
                message.append(f" [{safe_text(row['rule'])}]", style="dim")
            cells = [Text(row["level"], style=_LEVEL_STYLES.get(row["level"], "")),
                     Text(safe_text(row["tool"], one_line=True)),
                     Text(safe_text(row["parameter"], one_line=True))]
            if wide:
                cells.append(Text(safe_text(row["rule"])))
            table.add_row(*cells, message)
        print_trimmed(console, table)
        console.print()
    print_wrapped(console, Text(safe_text(verdict), style="bold red" if failed
                                 else "bold green"))
    if details:
        print_wrapped(console, Text(safe_text(details), style="dim"), indent=2)
    for line in silenced:
        print_wrapped(console, Text(safe_text(line), style="dim"), indent=2)
