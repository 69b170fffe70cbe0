"""The replay summary: calls per status and the verdict line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from agentforge_cli.cli.render.consoles import print_trimmed, safe_text, stdout_console
from agentforge_cli.cli.render.replay_trace import status_badges

if TYPE_CHECKING:
    from agentforge_cli.replay.report import CallStatus


def replay_summary(summary: dict[CallStatus, int], title: str, *, failed: bool,
                   updated: int | None = None, allow_drift: bool = False) -> None:
    """The summary table (calls per status) and a one-line verdict (a drifted call fails
    it unless ``allow_drift``, also after ``--update``)."""
    console = stdout_console()
    total = sum(summary.values())
    table = Table(show_edge=False, box=None, padding=(0, 2), pad_edge=False,
                  header_style="bold")
    table.add_column("status")
    table.add_column("calls", justify="right")
    for status, count in summary.items():
        style = status_badges()[status][1] if count else "dim"
        table.add_row(Text(status, style=style), Text(str(count), style=style))
    table.add_row(Text("total", style="bold"), Text(str(total), style="bold"))
    console.print()
    console.print(Text(safe_text(title), style="bold"), overflow="fold")
    print_trimmed(console, table)
    noun = "call" if total == 1 else "calls"
    from agentforge_cli.replay.report import CallStatus

    drifted = summary.get(CallStatus.DRIFTED, 0)
    mismatched = summary[CallStatus.MISMATCHED]
    drift = f"{drifted} of {total} {noun} drifted from today's tools (not run)"
    if updated is not None:
        console.print(Text(f"updated {updated} recorded result"
                           f"{'' if updated == 1 else 's'} in the transcript", style="bold"))
        if drifted:
            console.print(Text(f"{'' if allow_drift else '✗ '}{drift}",
                               style="bold" if allow_drift else "bold red"))
    elif failed and (mismatched or (drifted and not allow_drift)):
        differ = "differs" if mismatched == 1 else "differ"
        parts = [f"{mismatched} of {total} {noun} {differ} from the recording"
                 ] if mismatched else []
        if drifted and not allow_drift:
            parts.append(f"{drifted} drifted (not run)" if parts else drift)
        console.print(Text("✗ " + "; ".join(parts), style="bold red"))
    else:
        allowed = f" ({drifted} drifted, not run: allowed)" if drifted else ""
        console.print(Text(f"✓ {total} {noun} replayed, no result differs{allowed}",
                           style="bold green"))
