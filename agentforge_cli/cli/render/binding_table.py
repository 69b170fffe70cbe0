"""``tools call --explain``: how each argument was bound."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from agentforge_cli.cli.render.consoles import print_trimmed, safe_text, stderr_console


def explain(rows: Sequence[dict[str, str]], *, error_text: str | None = None) -> None:
    """Per parameter: the raw value, the coerced value and the rule (standard error)."""
    console = stderr_console()
    from rich.table import Table  # on use: a cold start need not load it
    table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False,
                  header_style="bold")
    table.add_column("parameter", style="green", no_wrap=True)
    table.add_column("raw", overflow="fold")
    table.add_column("coerced", overflow="fold")
    table.add_column("rule", overflow="fold", style="dim")
    for row in rows:
        table.add_row(*(safe_text(row[key]) for key in ("parameter", "raw", "coerced", "rule")))
    console.print(Text("how the arguments were bound:", style="bold"))
    print_trimmed(console, table)
    if error_text:
        console.print(Text("binding failed: " + safe_text(error_text), style="red"))
