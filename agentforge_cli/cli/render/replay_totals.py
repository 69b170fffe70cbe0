"""The replay summary: calls per status and the verdict line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from agentforge_cli.cli.render.consoles import print_trimmed, safe_text, stdout_console
from agentforge_cli.cli.render.replay_trace import status_badges

if TYPE_CHECKING:
    from rich.table import Table

    from agentforge_cli.replay.report import CallStatus


def replay_summary(summary: dict[CallStatus, int], title: str, *, failed: bool,
                   updated: int | None = None, allow_drift: bool = False,
                   migrated: int | None = None, unmarked: int = 0) -> None:
    """The summary table (calls per status) and a one-line verdict (a drifted call fails
    it unless ``allow_drift``, also after ``--update``); after ``--update``, the calls
    ``migrated`` and the error results written ``unmarked`` (no error flag) too."""
    console = stdout_console()
    console.print()
    console.print(Text(safe_text(title), style="bold"), overflow="fold")
    print_trimmed(console, _status_table(summary))
    lines = _verdict(summary, failed=failed, updated=updated, allow_drift=allow_drift)
    if updated is not None:
        lines[1:1] = _update_notes(migrated, unmarked)
    for line in lines:
        console.print(line)


def _status_table(summary: dict[CallStatus, int]) -> Table:
    from rich.table import Table  # on use: a cold start need not load it
    table = Table(show_edge=False, box=None, padding=(0, 2), pad_edge=False,
                  header_style="bold")
    table.add_column("status")
    table.add_column("calls", justify="right")
    for status, count in summary.items():
        style = status_badges()[status][1] if count else "dim"
        table.add_row(Text(status, style=style), Text(str(count), style=style))
    total = str(sum(summary.values()))
    table.add_row(Text("total", style="bold"), Text(total, style="bold"))
    return table


def _verdict(summary: dict[CallStatus, int], *, failed: bool, updated: int | None,
             allow_drift: bool) -> list[Text]:
    """The verdict's lines: what ``--update`` wrote, else what failed, else the pass."""
    from agentforge_cli.replay.report import CallStatus

    total = sum(summary.values())
    drifted = summary.get(CallStatus.DRIFTED, 0)
    mismatched = summary[CallStatus.MISMATCHED]
    drift = f"{drifted} of {total} {_calls(total)} drifted from today's tools (not run)"
    drift_fails = bool(drifted) and not allow_drift
    if updated is not None:
        return _after_update(updated, drift if drifted else None, drift_fails)
    if failed and (mismatched or drift_fails):
        parts = [f"{mismatched} of {total} {_calls(total)} "
                 f"{'differs' if mismatched == 1 else 'differ'} from the recording"
                 ] if mismatched else []
        if drift_fails:
            parts.append(f"{drifted} drifted (not run)" if parts else drift)
        return [Text("✗ " + "; ".join(parts), style="bold red")]
    allowed = f" ({drifted} drifted, not run: allowed)" if drifted else ""
    return [Text(f"✓ {total} {_calls(total)} replayed, no result differs{allowed}",
                 style="bold green")]


def _after_update(updated: int, drift: str | None, drift_fails: bool) -> list[Text]:
    lines = [Text(f"updated {updated} recorded result{'' if updated == 1 else 's'} "
                  "in the transcript", style="bold")]
    if drift is not None:
        lines.append(Text(f"✗ {drift}", style="bold red") if drift_fails
                     else Text(drift, style="bold"))
    return lines


def _update_notes(migrated: int | None, unmarked: int) -> list[Text]:
    """What an update did besides results: the calls it migrated, the errors it could
    not mark as errors."""
    lines = []
    if migrated is not None:
        lines.append(Text(f"migrated {migrated} recorded {_calls(migrated)} in the "
                          "transcript", style="bold"))
    if unmarked:
        one = unmarked == 1
        lines.append(Text(f"{unmarked} error {'result' if one else 'results'} written as "
                          f"{'a plain result' if one else 'plain results'} (the format has "
                          "no error flag)", style="bold yellow"))
    return lines


def _calls(count: int) -> str:
    return "call" if count == 1 else "calls"
