"""``agentforge replay``: re-run a recorded conversation's tool calls against today's code.

Prints the conversation's trace with each call marked ``matched`` / ``mismatched`` (with
a diff) / ``unrecorded`` / ``drifted`` (not run), then a summary. Exit 1 when a result
differs (unless ``--update`` wrote today's results into the transcript), when a call
drifted (unless ``--allow-drift``) or when no tool call is found (unless
``--allow-empty``), 2 when no known format reads the transcript, 3 when it cannot be read.

Several transcripts (files, folders searched recursively, ``-`` for standard input) are
replayed one after the other into one report: a section per transcript, then the total;
a transcript that cannot be read is reported and the next one runs, and the exit code
is the worst of theirs. One file keeps the single-transcript output.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentforge_cli.cli.errors import (
    EXIT_FAILED,
    EXIT_LOAD,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    UsageError,
    os_reason,
)
from agentforge_cli.cli.guard import failure, guarded
from agentforge_cli.cli.settings import BindingOption, StrictOption, project_choices
from agentforge_cli.cli.target_options import CwdOption, EnvOption, HeaderOption, mcp_options
from agentforge_cli.cli.tools_cmd import ToolsOption
from agentforge_cli.cli.usage import TEXT
from agentforge_cli.replay.compare import MatchMode
from agentforge_cli.replay.report import CallStatus
from agentforge_cli.replay.transcripts import registry

if TYPE_CHECKING:
    from agentforge_cli.integrations.targets.loading import ToolSupply
    from agentforge_cli.replay.transcripts import Transcript

def format_choices() -> tuple[str, ...]:
    """``--format`` of ``replay``: ``auto`` or a transcript format registered by the time
    the option is read (a format registered after the command was defined counts)."""
    return ("auto", *registry.format_names())


def _format_name(value: str) -> str:
    name = value.casefold()
    choices = format_choices()
    if name not in choices:
        raise typer.BadParameter(f"{value!r} is not one of "
                                 + ", ".join(map(repr, choices)) + ".")
    return name


def _complete_format_names(incomplete: str) -> list[str]:
    return [name for name in format_choices() if name.startswith(incomplete.casefold())]


@dataclass(kw_only=True, slots=True)
class _Options:
    """What every transcript of one ``replay`` command is replayed with."""

    format: str
    match: MatchMode
    json_output: bool
    junit: bool
    update: bool
    log: bool
    allow_empty: bool
    allow_drift: bool = False
    tools_header: str | None = None
    """The trace's ``tools:`` line (what is made afresh, what is shared), until printed."""
    runs: list[Any] | None = None
    """Each transcript's :class:`~agentforge_cli.cli.step_summary.ReplayRun`, when the
    GitHub job summary is written; else ``None``."""


@dataclass(kw_only=True, slots=True)
class _Outcome:
    """One transcript's replay: its summary and how it ended."""

    summary: dict[CallStatus, int]
    failed: bool = False
    drift_failed: bool = False
    """A call drifted (and drift is not allowed): ``--update`` cannot mend that."""
    updated: int | None = None
    empty: str | None = None
    """The "no tool calls" message, when that fails the transcript."""
    unwritten: str | None = None
    """Why ``--update`` could not write the transcript back (exit 2)."""
    failing: list[tuple[str, str, str]] = field(default_factory=list)
    """The first mismatched and drifted calls (place, tool, status), for the job summary."""


def replay(
    transcripts: Annotated[list[str], typer.Argument(
        metavar="TRANSCRIPT", click_type=TEXT,
        help=f"Recorded conversations: {registry.join_titles()}. "
        "Also folders of them (searched recursively for *.json, *.jsonl, *.yaml and "
        "*.yml, also .gz), "
        "or - for standard input.", show_default=False)],
    tools: ToolsOption = None,
    transcript_format: Annotated[str, typer.Option(
        "--format", "-f", metavar="FORMAT", callback=_format_name,
        autocompletion=_complete_format_names,
        help=f"The transcript's format: {', '.join(registry.format_names())}; auto (the "
             "default) detects it.", show_default=False)] = "auto",
    match: Annotated[MatchMode, typer.Option(
        "--match", metavar="exact|json|status",
        help="How results are compared: exact (JSON results as JSON values), json (also "
             "JSON encoded in a JSON string), status (only success against error).",
        case_sensitive=False)] = MatchMode.EXACT,
    json_output: Annotated[bool, typer.Option(
        "--json", help='Print {"summary", "calls"} as JSON instead of the trace.')] = False,
    junit: Annotated[Path | None, typer.Option(
        "--junit", metavar="FILE", help="Also write a JUnit XML report (a suite per "
                                        "transcript, a testcase per call).",
        dir_okay=False)] = None,
    update: Annotated[bool, typer.Option(
        "--update", help="Write today's results into the transcript (atomically): "
                         "differing results are replaced, missing ones added.")] = False,
    log: Annotated[bool, typer.Option(
        "--log", help="Show each execution's request/response on stderr.")] = False,
    strict: StrictOption = None,
    binding: BindingOption = "native",
    allow_empty: Annotated[bool, typer.Option(
        "--allow-empty", help="Pass a transcript in which no tool call is found (by "
                              "default that fails: nothing was checked).")] = False,
    allow_drift: Annotated[bool, typer.Option(
        "--allow-drift", help="Report calls whose recorded arguments no longer fit "
                              "today's tools (drifted: not run) without failing.")] = False,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="SECONDS",
        help="Fail a call still running after this long (an MCP target's call, and its "
             "start-up: exit 3).")] = None,
    header: HeaderOption = None, env: EnvOption = None, cwd: CwdOption = None,
) -> None:
    """Replay transcripts' tool calls and compare each result with the recorded one."""
    with guarded():
        from agentforge_cli.cli import step_summary
        from agentforge_cli.replay.transcripts.files.collect import STDIN, collect_transcripts

        if timeout is not None and not 0 < timeout < math.inf:
            raise UsageError(f"--timeout must be a positive number of seconds, got {timeout:g}")
        reach = mcp_options(header, env, cwd)
        strict, timeout = project_choices(strict, timeout)
        options = _Options(format=transcript_format, match=match,
                           json_output=json_output, junit=junit is not None, update=update,
                           log=log, allow_empty=allow_empty, allow_drift=allow_drift,
                           runs=[] if step_summary.wanted() else None)
        if update and STDIN in transcripts:
            raise UsageError("--update writes into the transcript file; standard input "
                             "cannot be updated")
        paths, empty_folders = collect_transcripts(transcripts)
        if empty_folders:
            raise CliError(f"no transcript found in {empty_folders[0]}",
                           hint="nothing was checked; a folder is searched for *.json, "
                                "*.jsonl, *.yaml and *.yml files (also .gz)")
        single = len(transcripts) == 1 and paths == transcripts
        code = EXIT_FAILED  # until the replay says otherwise
        try:
            code = _replay_paths(paths, single, tools, options, junit, reach, strict, timeout,
                                 binding)
        finally:
            if options.runs:  # something was replayed
                step_summary.replay(options.runs, failed=code != EXIT_OK)
        raise typer.Exit(code)


def _replay_paths(paths: list[str], single: bool, tools: list[str] | None,
                  options: _Options, junit: Path | None, reach: Any, strict: bool | None,
                  timeout: float | None, binding: str) -> int:
    """Replay the collected transcripts; the exit code."""
    from agentforge_cli.cli.render import skipped_tool
    from agentforge_cli.integrations.targets.loading import load_supply

    log = options.log
    if single:
        with _stdin_spooled(paths[0]) as path:
            opened = _open(path, options)
            supply = load_supply(tools, logging=log, strict=strict, timeout=timeout,
                                 mcp_options=reach, binding=binding,
                                 skip_problems=skipped_tool)
            options.tools_header = supply.description
            return _replay_single(opened, supply, options, junit)
    supply = load_supply(tools, logging=log, strict=strict, timeout=timeout,
                         mcp_options=reach, binding=binding, skip_problems=skipped_tool)
    options.tools_header = supply.description
    return _replay_many(paths, supply, options, junit)


def _open(path: Path, options: _Options) -> Transcript:
    from agentforge_cli.replay.transcripts import open_transcript

    return open_transcript(path, options.format)


def _replay_file(opened: Transcript, supply: ToolSupply, options: _Options, *,
                 json_report: Any, junit_report: Any) -> _Outcome:
    """Replay one opened transcript into the trace (printed as it goes) and the reports.

    Raises:
        TranscriptError: At a malformed record (the calls before it have run).
    """
    from agentforge_cli.cli import render
    from agentforge_cli.cli.step_summary import LIMIT
    from agentforge_cli.replay.report import CallReport
    from agentforge_cli.replay.runner import Replayer
    from agentforge_cli.replay.transcripts.model import ConversationStart

    total = _long_transcript_size(opened, options.log, trace=not options.json_output)
    # each conversation of each transcript on tools of its own, when they can be made afresh
    replayer = Replayer(supply.service, fresh=supply.fresh, describe=not options.json_output,
                        match=options.match, allow_drift=options.allow_drift)
    trace = None if options.json_output else render.TracePrinter()
    updates: dict[int, tuple[str, bool]] = {}
    broken: list[str] = []  # today's errors written over recorded successes
    # both are no-ops without a log or a bar: skipped then (a folder of short transcripts)
    log_shown = render.tool_logging(True) if options.log else contextlib.nullcontext()
    bar = render.progress(total, True, opened.progress) if total else contextlib.nullcontext()
    json_only = (json_report is not None and junit_report is None and not options.update
                 and not total and options.runs is None)
    failing: list[tuple[str, str, str]] = []
    with log_shown, bar as tick:
        if json_only:  # only each call's JSON entry is needed: matched calls skip the rest
            json_report.add_lines(replayer.json_lines(opened.events()))
        else:
            for entry in replayer.run(opened.events(), tick):
                if trace is not None:
                    if type(entry) is ConversationStart:  # one file, several conversations
                        _say_tools(options)
                    trace.add(entry)
                if not isinstance(entry, CallReport):
                    continue
                if options.runs is not None and entry.status in _FAILING_STATUSES and len(
                        failing) < LIMIT:
                    failing.append((entry.where, entry.name, entry.status))
                if json_report is not None:
                    json_report.add(entry)
                if junit_report is not None:
                    junit_report.add(entry)
                if options.update and entry.needs_update and (
                        entry.actual is not None and entry.is_error is not None):  # it ran
                    updates[entry.index] = (entry.actual, entry.is_error)
                    if entry.is_error and entry.expected_is_error is False:
                        broken.append(f"{entry.id or entry.where} {entry.name}: "
                                      f"{_first_line(entry.actual or '')}")
    if trace is not None:
        trace.finish()
    outcome = _Outcome(summary=replayer.summary, failed=replayer.failed,
                       drift_failed=replayer.drift_failed, failing=failing)
    if options.update:
        _write_updates(opened, updates, broken, outcome)
        if outcome.unwritten is not None and junit_report is not None:
            junit_report.fail_suite("cannot write the transcript", outcome.unwritten)
    if not any(replayer.summary.values()) and not options.allow_empty:
        outcome.empty = f"no tool calls found in {opened.path} (read as {opened.format})"
        if junit_report is not None:
            junit_report.fail_suite("no tool calls", outcome.empty)
    return outcome


def _write_updates(opened: Transcript, updates: dict[int, tuple[str, bool]],
                   broken: list[str], outcome: _Outcome) -> None:
    """Write today's results into the transcript; a file that cannot be written is noted
    in ``outcome`` (the other transcripts still run)."""
    try:
        outcome.updated = opened.write_results(updates)
    except OSError as exc:
        outcome.unwritten = f"cannot write transcript {opened.path}: {os_reason(exc)}"
        return
    _warn_errors_written(opened, broken)


_FAILING_STATUSES = frozenset({CallStatus.MISMATCHED, CallStatus.DRIFTED})
"""The calls the job summary lists."""


def _summarize(options: _Options, transcript: str, outcome: _Outcome | None = None,
               error: str | None = None) -> None:
    """Keep one transcript's counts and failing calls for the job summary, if written."""
    if options.runs is None:
        return
    from agentforge_cli.cli.step_summary import ReplayRun

    options.runs.append(ReplayRun(transcript=transcript, error=error,
                                  counts=outcome.summary if outcome else {},
                                  failing=outcome.failing if outcome else []))


def _first_line(text: str, limit: int = 120) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _warn_errors_written(opened: Transcript, broken: list[str]) -> None:
    """Say when ``--update`` recorded a crash where a success was: it is now "expected"."""
    if not broken:
        return
    from agentforge_cli.cli import render

    count = len(broken)
    render.warning(f"--update wrote {count} error result{'' if count == 1 else 's'} over a "
                   f"recorded success in {opened.path}:\n  " + "\n  ".join(broken))


_NEXT_STEP = ("next: read the diff above; if today's results are the right ones, accept "
              "them with --update")


def _say_next_step(mismatched: int, options: _Options) -> None:
    """After a trace that failed on differing results: what to do about it (stderr)."""
    if mismatched and not options.update and not options.json_output:
        from agentforge_cli.cli.output import write

        write(_NEXT_STEP, stderr=True)


def _json_extra(opened: Transcript, options: _Options, outcome: _Outcome) -> dict[str, Any]:
    extra: dict[str, Any] = {"transcript": str(opened.path), "format": opened.format,
                             "match": options.match}
    if outcome.updated is not None:
        extra["updated"] = outcome.updated
    return extra


def _title(opened: Transcript, options: _Options) -> str:
    shown = opened.format if options.match == MatchMode.EXACT else (
        f"{opened.format}, match {options.match}")
    return f"{opened.path} ({shown})"


_EMPTY_HINT = ("nothing was checked; pass --allow-empty if the transcript is meant to have "
               "no tool calls")


def _replay_single(opened: Transcript, supply: ToolSupply, options: _Options,
                   junit: Path | None) -> int:
    from agentforge_cli.cli import output, render
    from agentforge_cli.cli.replay_outputs import JsonReport, JUnitReport

    json_report = JsonReport() if options.json_output else None
    junit_report = (JUnitReport(str(opened.path), allow_drift=options.allow_drift)
                    if junit is not None else None)
    try:
        outcome = _replay_file(opened, supply, options, json_report=json_report,
                               junit_report=junit_report)
        _summarize(options, str(opened.path), outcome, outcome.empty)
        if junit is not None and junit_report is not None:
            _write_junit(junit, [junit_report])
        if json_report is not None:
            json_report.write(lambda text: render.write(text, end=""), outcome.summary,
                              _json_extra(opened, options, outcome),
                              stream=output.product_stream())
    finally:  # the spooled reports are released whatever happened (closing twice is a no-op)
        for report in (json_report, junit_report):
            if report is not None:
                report.close()
    if outcome.unwritten is not None:
        raise UsageError(outcome.unwritten)
    if outcome.empty is not None:
        raise CliError(outcome.empty, hint=_EMPTY_HINT)
    if not options.json_output:
        render.replay_summary(outcome.summary, _title(opened, options),
                              failed=outcome.failed, updated=outcome.updated,
                              allow_drift=options.allow_drift)
        _say_next_step(outcome.summary.get(CallStatus.MISMATCHED, 0), options)
    return EXIT_FAILED if _fails(outcome, options) else EXIT_OK


def _fails(outcome: _Outcome, options: _Options) -> bool:
    """A result differs (unless ``--update`` wrote today's), or a call drifted."""
    return outcome.drift_failed or (outcome.failed and not options.update)


def _replay_many(paths: list[str], supply: ToolSupply, options: _Options,
                 junit: Path | None) -> int:
    """Replay every transcript, a section each, then the total. A transcript that cannot
    be read is reported (on stderr, in the JSON and JUnit reports) and the next one runs;
    the exit code is the worst of the transcripts'."""
    with contextlib.ExitStack() as reports:  # every spooled report is released at the end
        return _replay_each(paths, supply, options, junit, reports)


def _replay_each(paths: list[str], supply: ToolSupply, options: _Options, junit: Path | None,
                 reports: contextlib.ExitStack) -> int:
    from agentforge_cli.cli import render
    from agentforge_cli.cli.replay_outputs import JsonReport, JUnitReport
    from agentforge_cli.errors import TranscriptError
    from agentforge_cli.replay.report import STATUSES

    def emit(text: str) -> None:
        render.write(text.replace("\n", "\n    "), end="")

    total = dict.fromkeys(STATUSES, 0)
    suites: list[Any] = []
    code = EXIT_OK
    failed_files = 0
    if options.json_output:
        render.write('{\n  "files": [', end="")
    else:
        _say_tools(options)
    for number, given in enumerate(paths):
        json_report = JsonReport() if options.json_output else None
        junit_report = (JUnitReport(given, allow_drift=options.allow_drift)
                        if options.junit else None)
        for report in (json_report, junit_report):
            if report is not None:
                reports.callback(report.close)
        if junit_report is not None:
            suites.append(junit_report)
        if json_report is not None:
            render.write(",\n    " if number else "\n    ", end="")
        try:
            with _stdin_spooled(given) as path:
                opened = _open(path, options)
                outcome = _replay_file(opened, supply, options, json_report=json_report,
                                       junit_report=junit_report)
        except TranscriptError as exc:  # the next transcript still runs
            message, _, file_code = failure(exc) or (str(exc), None, EXIT_LOAD)
            code, failed_files = max(code, file_code), failed_files + 1
            _summarize(options, given, error=message)
            if not options.json_output:
                render.error(message)
            if junit_report is not None:
                junit_report.fail_suite("cannot read the transcript", message)
            if json_report is not None:
                json_report.close()
                emit(json.dumps({"transcript": given, "error": message}, ensure_ascii=False))
            continue
        for status, count in outcome.summary.items():
            total[status] = total.get(status, 0) + count
        _summarize(options, str(opened.path), outcome, outcome.empty)
        if json_report is not None:
            extra = _json_extra(opened, options, outcome)
            if outcome.unwritten or outcome.empty:
                extra["error"] = outcome.unwritten or outcome.empty
            json_report.write(emit, outcome.summary, extra, end="")
        if outcome.unwritten is not None:
            if not options.json_output:
                render.error(outcome.unwritten)
            code, failed_files = max(code, EXIT_USAGE), failed_files + 1
            continue
        if outcome.empty is not None:
            if not options.json_output:
                render.error(outcome.empty, hint=_EMPTY_HINT)
            code, failed_files = max(code, EXIT_FAILED), failed_files + 1
            continue
        if _fails(outcome, options):
            code, failed_files = max(code, EXIT_FAILED), failed_files + 1
        if not options.json_output:
            render.replay_summary(outcome.summary, _title(opened, options),
                                  failed=outcome.failed, updated=outcome.updated,
                                  allow_drift=options.allow_drift)
    if junit is not None:
        _write_junit(junit, suites)
    if options.json_output:
        render.write('\n  ],\n  "summary": ' + json.dumps(total) + ',\n  "transcripts": '
                     + str(len(paths)) + ',\n  "failed_transcripts": ' + str(failed_files)
                     + ',\n  "match": ' + json.dumps(options.match) + "\n}\n", end="")
    else:
        noun = "transcript" if len(paths) == 1 else "transcripts"
        title = f"all {len(paths)} {noun}" + (f", {failed_files} failed" if failed_files
                                               else "")
        drift_fails = total.get(CallStatus.DRIFTED, 0) > 0 and not options.allow_drift
        render.replay_summary(total, title, allow_drift=options.allow_drift,
                              failed=(total[CallStatus.MISMATCHED] > 0 and not options.update)
                              or drift_fails)
        _say_next_step(total.get(CallStatus.MISMATCHED, 0), options)
    return code


def _say_tools(options: _Options) -> None:
    """Print the trace's ``tools:`` line, once: only where several conversations run."""
    from agentforge_cli.cli import render

    if options.tools_header:
        render.write(render.safe_text(f"tools: {options.tools_header}"))
    options.tools_header = None


def _stdin_spooled(given: str) -> contextlib.AbstractContextManager[Path]:
    """The transcript's path; for ``-``, standard input copied to a temporary file first
    (a transcript is read more than once: to detect its format, then to replay it)."""
    from agentforge_cli.replay.transcripts.files.collect import STDIN

    # a plain path needs no generator: this is entered once per transcript of a folder
    return _spool_stdin() if given == STDIN else contextlib.nullcontext(Path(given))


@contextlib.contextmanager
def _spool_stdin() -> Iterator[Path]:
    """Standard input in a temporary file, up to the transcript size limit; the file is
    removed when the block ends, also on SIGTERM."""
    import sys
    import tempfile

    from agentforge_cli.replay.transcripts.files.collect import StdinCopy

    with tempfile.TemporaryDirectory(prefix="agentforge-replay-") as folder, \
            _removed_on_sigterm(folder):
        path = StdinCopy(folder, "stdin")
        with path.open("wb") as stream:
            _copy_limited(sys.stdin.buffer, stream, path)
        yield path


def _copy_limited(source: Any, target: Any, path: Path) -> None:
    """Copy ``source`` to ``target``; refuse input over the transcript size limit."""
    from agentforge_cli.errors import TranscriptError
    from agentforge_cli.replay.transcripts.files.limits import MAX_DOCUMENT_BYTES

    copied = 0
    while chunk := source.read(1 << 20):
        copied += len(chunk)
        if copied > MAX_DOCUMENT_BYTES:
            raise TranscriptError(path, "", f"standard input is more than the "
                                  f"{MAX_DOCUMENT_BYTES} byte limit of a transcript")
        target.write(chunk)


@contextlib.contextmanager
def _removed_on_sigterm(folder: str) -> Iterator[None]:
    """Within the block, SIGTERM removes ``folder`` and then ends the process as the
    default handler would (nothing is raised into running code: a tool could take an
    exception for its own). Only where that default handler is in place (or the shared
    one of :mod:`~agentforge_cli.core.run.sigterm`, which ends the process the same way)."""
    import shutil

    from agentforge_cli.core.run.sigterm import before_sigterm, forget

    def remove() -> None:
        shutil.rmtree(folder, ignore_errors=True)

    before_sigterm(remove)
    try:
        yield
    finally:
        forget(remove)


def _long_transcript_size(opened: Transcript, log: bool, *, trace: bool) -> int:
    """Records to show progress over: 0 (no bar) unless a bar can be drawn on stderr
    (:func:`render.progress_possible`), the transcript is long and no log is being
    printed there."""
    from agentforge_cli.cli import render

    if log or not render.progress_possible(trace=trace):
        return 0
    size = opened.count_records()
    return size if size >= render.LONG_TRANSCRIPT else 0


def _write_junit(path: Path, reports: list[Any]) -> None:
    from agentforge_cli.cli.replay_outputs import write_junit

    try:
        write_junit(path, reports)
    except OSError as exc:
        raise UsageError(f"cannot write the JUnit report {str(path)!r}: "
                         f"{exc.strerror or exc}") from exc
