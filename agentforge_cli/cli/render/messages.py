"""Errors, warnings and tracebacks on standard error."""

from __future__ import annotations

from rich.text import Text

from agentforge_cli.cli.output import write
from agentforge_cli.cli.render.consoles import safe_text, stderr_console


def error(message: str, hint: str | None = None) -> None:
    """``error: <message>`` (and an indented hint) on standard error."""
    console = stderr_console()
    lines = safe_text(message).splitlines() or [""]
    text = Text()
    text.append("error: ", style="bold red")
    text.append(lines[0])
    for line in lines[1:]:
        text.append("\n" + line)
    console.print(text, soft_wrap=True)
    if hint:
        for line in safe_text(hint).splitlines():
            console.print(Text("  " + line, style="dim"), soft_wrap=True)


def warning(message: str) -> None:
    """``warning: <message>`` on standard error (continuation lines as written)."""
    text = Text()
    text.append("warning: ", style="yellow")
    text.append(safe_text(message))
    stderr_console().print(text, soft_wrap=True)


def skipped_tool(problem: str) -> None:
    """A tool left out because it cannot be defined (the others load): a warning."""
    warning(f"a tool is left out, it cannot be defined: {problem}")


def debug_traceback(exc: BaseException) -> None:
    """The full traceback of ``exc`` (and its causes) on standard error (``--debug``)."""
    import traceback

    write(safe_text("".join(traceback.format_exception(exc)).rstrip()), stderr=True)
