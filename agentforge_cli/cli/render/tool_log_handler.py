"""The handler that draws the logging decorator's request and response blocks on standard
error (``--log``); imported by :func:`~agentforge_cli.cli.render.tool_log.tool_logging`
only when a command logs, so a start without ``--log`` does not load ``logging``."""

from __future__ import annotations

import logging
from typing import Protocol, cast

from rich.console import Console
from rich.text import Text

from agentforge_cli.cli.render.consoles import safe_text, stderr_console


class _ToolRecord(Protocol):
    """The fields the logging decorator adds to a request or response record."""

    tool_name: str
    tool_arguments: str
    memory_id: object
    tool_result: object
    duration_ms: float


class ToolLogHandler(logging.Handler):
    """Renders the logging decorator's records (logger ``agentforge.tools``) on stderr,
    as ``=== tool request ===`` / ``=== tool response ===`` blocks."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            console = stderr_console()
            event = getattr(record, "tool_event", None)
            fields = cast("_ToolRecord", record)  # logging's ``extra``: no stub knows them
            if event == "request":
                rows = [("tool", fields.tool_name), ("arguments", fields.tool_arguments),
                        ("memory id", str(fields.memory_id))]
                call_id = getattr(record, "tool_call_id", None)
                if call_id is not None:
                    rows.append(("call id", str(call_id)))
                self._block(console, "tool request", rows, "cyan")
            elif event in ("response", "error"):
                failed = bool(getattr(record, "tool_is_error", False))
                rows = [("tool", fields.tool_name),
                        ("error" if failed else "result", str(fields.tool_result)),
                        ("duration", f"{fields.duration_ms:.1f} ms")]
                self._block(console, "tool response", rows, "red" if failed else "green",
                            close=True)
            else:
                console.print(Text(safe_text(record.getMessage()), style="dim"))
        except Exception:
            self.handleError(record)

    @staticmethod
    def _block(console: Console, title: str, rows: list[tuple[str, str]], style: str,
               close: bool = False) -> None:
        console.print(Text(f"=== {title} ===", style=f"bold {style}"))
        # values run on (the terminal wraps them softly): a JSON result stays copyable
        width = max(len(key) for key, _ in rows) + 2
        for key, value in rows:
            line = Text(f"{key}:".ljust(width), style="dim")
            line.append(safe_text(value).replace("\n", "\n" + " " * width))
            line.rstrip()
            console.print(line, soft_wrap=True)
        if close:
            console.print(Text("=" * (len(title) + 8), style=f"bold {style}"))
