"""``agentforge replay``: re-run a recorded conversation's tool calls against today's code.

Prints the conversation's trace with each call marked ``matched`` / ``mismatched`` (with
a diff) / ``unrecorded``, then a summary. Exit 1 when a result differs (unless
``--update`` wrote today's results into the transcript) or when no tool call is found
(unless ``--allow-empty``), 2 when no known format reads the transcript, 3 when it cannot
be read.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from agentforge_cli.cli.errors import EXIT_FAILED, EXIT_OK, CliError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.tools_cmd import ToolsOption
from agentforge_cli.replay.transcripts import registry

FormatName = StrEnum("FormatName", [(name, name) for name in ("auto", *registry.format_names())])
"""``--format`` of ``replay``: ``auto`` or a registered transcript format (read from the
registry when the command is defined, so a format registered there is accepted here)."""


def replay(
    transcript: Annotated[str, typer.Argument(
        metavar="TRANSCRIPT", help=f"The recorded conversation: {registry.join_titles()}.",
        show_default=False)],
    tools: ToolsOption = None,
    transcript_format: Annotated[FormatName, typer.Option(
        "--format", "-f", help="The transcript's format; auto detects it.",
        case_sensitive=False)] = FormatName.auto,
    json_output: Annotated[bool, typer.Option(
        "--json", help='Print {"summary", "calls"} as JSON instead of the trace.')] = False,
    junit: Annotated[Path | None, typer.Option(
        "--junit", metavar="FILE", help="Also write a JUnit XML report (one testcase per "
                                        "call).", dir_okay=False)] = None,
    update: Annotated[bool, typer.Option(
        "--update", help="Write today's results into the transcript (atomically): "
                         "differing results are replaced, missing ones added.")] = False,
    log: Annotated[bool, typer.Option(
        "--log", help="Show each execution's request/response on stderr.")] = False,
    strict: Annotated[bool, typer.Option(
        "--strict", help="Replay with strict argument binding.")] = False,
    allow_empty: Annotated[bool, typer.Option(
        "--allow-empty", help="Pass a transcript in which no tool call is found (by "
                              "default that fails: nothing was checked).")] = False,
) -> None:
    """Replay a transcript's tool calls and compare each result with the recorded one."""
    with guarded(), _unknown_format_is_usage():
        from agentforge_cli.cli import render
        from agentforge_cli.cli.reports import JsonReport, JUnitReport
        from agentforge_cli.integrations.targets import load_service
        from agentforge_cli.replay.report import CallReport
        from agentforge_cli.replay.runner import Replayer
        from agentforge_cli.replay.transcripts import open_transcript

        if junit is not None and not junit.parent.is_dir():
            raise UsageError(f"cannot write the JUnit report: no directory "
                             f"{str(junit.parent)!r}")
        opened = open_transcript(transcript, transcript_format.value)
        service = load_service(tools, logging=log, strict=strict)
        total = _long_transcript_size(opened, log, trace=not json_output)

        replayer = Replayer(service, describe=not json_output)
        trace = None if json_output else render.TracePrinter()
        json_report = JsonReport() if json_output else None
        junit_report = JUnitReport(str(opened.path)) if junit is not None else None
        updates: dict[int, tuple[str, bool]] = {}
        with render.tool_logging(log), render.progress(total, total > 0) as tick:
            for entry in replayer.run(opened.events(), tick):
                if trace is not None:
                    trace.add(entry)
                if not isinstance(entry, CallReport):
                    continue
                if json_report is not None:
                    json_report.add(entry)
                if junit_report is not None:
                    junit_report.add(entry)
                if update and entry.needs_update:
                    updates[entry.index] = (entry.actual, entry.is_error)
        updated = opened.write_results(updates) if update else None
        empty = None
        if not any(replayer.summary.values()) and not allow_empty:
            empty = f"no tool calls found in {opened.path} (read as {opened.format})"
        if junit_report is not None:
            if empty is not None:
                junit_report.fail_suite("no tool calls", empty)
            _write_junit(junit, junit_report)
        if json_report is not None:
            extra = {"transcript": str(opened.path), "format": opened.format}
            if updated is not None:
                extra["updated"] = updated
            json_report.write(lambda text: render.write(text, end=""), replayer.summary,
                              extra)
        if trace is not None:
            trace.finish()
        if empty is not None:
            raise CliError(empty, hint="nothing was checked; pass --allow-empty if the "
                                       "transcript is meant to have no tool calls")
        if trace is not None:
            render.replay_summary(replayer.summary, f"{opened.path} ({opened.format})",
                                  failed=replayer.failed, updated=updated)
        raise typer.Exit(EXIT_FAILED if replayer.failed and not update else EXIT_OK)


@contextlib.contextmanager
def _unknown_format_is_usage() -> Iterator[None]:
    """A transcript no known format reads is a usage error (exit 2): name its format or
    convert it."""
    from agentforge_cli.errors import TranscriptFormatError

    try:
        yield
    except TranscriptFormatError as exc:
        raise UsageError(f"cannot read transcript {exc}") from None


def _long_transcript_size(opened: object, log: bool, *, trace: bool) -> int:
    """Records to show progress over: 0 (no bar) unless a bar can be drawn on stderr
    (:func:`render.progress_possible`), the transcript is long and no log is being
    printed there."""
    from agentforge_cli.cli import render

    if log or not render.progress_possible(trace=trace):
        return 0
    size = opened.count_records()
    return size if size >= render.LONG_TRANSCRIPT else 0


def _write_junit(path: Path, report: object) -> None:
    try:
        report.write(path)
    except OSError as exc:
        raise UsageError(f"cannot write the JUnit report {str(path)!r}: "
                         f"{exc.strerror or exc}") from exc
