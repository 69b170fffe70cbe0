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
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentforge_cli.cli.errors import EXIT_FAILED, EXIT_OK, CliError, UsageError
from agentforge_cli.cli.guard import guarded
from agentforge_cli.cli.options import (
    BindingOption,
    HtmlOption,
    McpReach,
    StrictOption,
    ToolsOption,
    mcp_reach_options,
    project_choices,
)
from agentforge_cli.cli.usage import TEXT
from agentforge_cli.replay.compare import MatchMode
from agentforge_cli.replay.transcripts import registry
from agentforge_cli.replay.transcripts.place import WHOLE_FILE

if TYPE_CHECKING:
    from agentforge_cli.cli.replay_writers import StepSummaryWriter, Writer
    from agentforge_cli.integrations.targets.loading import ToolSupply
    from agentforge_cli.replay.report import Entry
    from agentforge_cli.replay.session import (
        EntrySink,
        ReplaySession,
        SessionOptions,
        TranscriptOutcome,
        Watch,
    )
    from agentforge_cli.replay.transcripts import Transcript
    from agentforge_cli.replay.transcripts.writing.migration import Migration

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


@mcp_reach_options
def replay(
    context: typer.Context,
    transcripts: Annotated[list[str], typer.Argument(
        metavar="TRANSCRIPT", click_type=TEXT,
        help=f"Recorded conversations: {registry.join_titles()}. "
        f"Also folders of them (searched recursively for {registry.join_file_names()}, "
        "also .gz), or - for standard input.", show_default=False)],
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
    scrub: Annotated[list[str] | None, typer.Option(
        "--scrub", metavar="SCRUBBER", click_type=TEXT, show_default=False,
        help="A volatile part of every tool's results, scrubbed from the recorded and "
             "today's result before they are compared: a JSON path ($.created_at, $..id, "
             "$.items[*].updated), re:PATTERN, or timestamps, uuids, hex-ids, durations; "
             "repeatable. Adds to \\[tool.agentforge.replay] and @tool(volatile=...).")] = None,
    json_output: Annotated[bool, typer.Option(
        "--json", help='Print {"summary", "calls"} as JSON instead of the trace.')] = False,
    junit: Annotated[Path | None, typer.Option(
        "--junit", metavar="FILE", help="Also write a JUnit XML report (a suite per "
                                        "transcript, a testcase per call).",
        dir_okay=False)] = None,
    html: HtmlOption = None,
    update: Annotated[bool, typer.Option(
        "--update", help="Write today's results into the transcript (atomically): "
                         "differing results are replaced, missing ones added.")] = False,
    rename_tool: Annotated[list[str] | None, typer.Option(
        "--rename-tool", metavar="OLD=NEW",
        help="With --update: rename the tool OLD to NEW in every recorded call, before "
             "it runs (repeatable).", show_default=False)] = None,
    rename_arg: Annotated[list[str] | None, typer.Option(
        "--rename-arg", metavar="TOOL.OLD=NEW",
        help="With --update: rename TOOL's argument OLD to NEW in every recorded call "
             "(TOOL as named today; repeatable).", show_default=False)] = None,
    drop_arg: Annotated[list[str] | None, typer.Option(
        "--drop-arg", metavar="TOOL.NAME",
        help="With --update: remove TOOL's argument NAME from every recorded call "
             "(repeatable).", show_default=False)] = None,
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
    *, reach: McpReach,
) -> None:
    """Replay transcripts' tool calls and compare each result with the recorded one."""
    with guarded():
        from agentforge_cli.replay.session import SessionOptions
        from agentforge_cli.replay.transcripts.files.collect import STDIN, collect_transcripts

        if timeout is not None and not 0 < timeout < math.inf:
            raise UsageError(f"--timeout must be a positive number of seconds, got {timeout:g}")
        servers = reach.options()
        strict, timeout = project_choices(strict, timeout)
        if update and STDIN in transcripts:
            raise UsageError("--update writes into the transcript file; standard input "
                             "cannot be updated")
        paths, empty_folders = collect_transcripts(transcripts)
        if empty_folders:
            raise CliError(f"no transcript found in {empty_folders[0]}",
                           hint="nothing was checked; a folder is searched for "
                                f"{registry.join_file_names()} files (also .gz)")
        options = SessionOptions(format=transcript_format, match=match,
                                 allow_drift=allow_drift, allow_empty=allow_empty,
                                 update=update, describe=not json_output,
                                 scrub=_scrubbers(scrub, match),
                                 migration=_migration(rename_tool, rename_arg, drop_arg,
                                                      update=update))

        def load() -> ToolSupply:
            from agentforge_cli.cli.render import skipped_tool
            from agentforge_cli.integrations.targets.loading import load_supply

            return load_supply(tools, logging=log, strict=strict, timeout=timeout,
                               mcp_options=servers, binding=binding, skip_problems=skipped_tool)

        single = len(transcripts) == 1 and paths == transcripts
        raise typer.Exit(_replay_session(paths, load, options, _Outputs(
            single=single, json=json_output, junit=junit,
            html=None if html is None else Path(html), log=log,
            command_line=_command_line(context))))


def _migration(rename_tool: list[str] | None, rename_arg: list[str] | None,
               drop_arg: list[str] | None, *, update: bool) -> Migration | None:
    """The migration the options spell, ``None`` without one.

    Raises:
        UsageError: A rule that does not read, or a migration without ``--update``.
    """
    from agentforge_cli.replay.transcripts.writing.migration import Migration

    try:
        migration = Migration.parse(rename_tool or (), rename_arg or (), drop_arg or ())
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not migration:
        return None
    if not update:
        raise UsageError(f"{migration.options()[0].split()[0]} rewrites the recorded calls: "
                         "it needs --update",
                         hint="add --update (the transcript is rewritten atomically; a "
                              "version-controlled file shows the change as a diff)")
    return migration


def _command_line(context: typer.Context) -> tuple[str, ...] | None:
    """The arguments after ``agentforge``, as given (``None`` when not known)."""
    from agentforge_cli.cli.global_options import COMMAND_LINE

    found = context.meta.get(COMMAND_LINE)
    return tuple(found) if found is not None else None


def _scrubbers(given: list[str] | None, match: MatchMode) -> Any:
    """``--scrub``'s scrubbers added to the project's (``[tool.agentforge.replay]``).

    Raises:
        UsageError: ``--scrub`` with ``--match status``, which compares no text.
        CommandInputError: A ``--scrub`` that is not a scrubber.
    """
    from agentforge_cli.integrations.targets.loading import find_settings

    project = find_settings().scrub
    if not given:
        return project
    if match == MatchMode.STATUS:
        raise UsageError("--scrub has no effect with --match status, which compares no "
                         "result text", hint="drop one of them: --match status compares "
                         "only success against error")
    from agentforge_cli.replay.scrubbing import with_given

    return with_given(project, given)


@dataclass(frozen=True, kw_only=True, slots=True)
class _Outputs:
    """What the command writes: with one transcript file, the single-transcript output."""

    single: bool
    json: bool
    junit: Path | None
    log: bool
    html: Path | None = None
    command_line: tuple[str, ...] | None = None
    """The command as given, repeated by advice that suggests running it again."""


def _replay_session(paths: list[str], load: Callable[[], ToolSupply],
                    options: SessionOptions, outputs: _Outputs) -> int:
    """Replay ``paths`` as one session, each outcome handed to the writers; the exit code
    (the worst of the transcripts')."""
    from agentforge_cli.cli import replay_writers, step_summary
    from agentforge_cli.replay.session import ReplaySession

    session = ReplaySession(paths, load, options, spool=_stdin_spooled)
    if not outputs.single:  # the tools are loaded before the first transcript is read
        session.tools()
    steps = replay_writers.StepSummaryWriter() if step_summary.wanted() else None
    writers = _writers(session, options, outputs, steps)
    code = EXIT_FAILED  # until the replay says otherwise
    try:
        for writer in writers:
            writer.start()
        code = EXIT_OK
        for outcome in session.outcomes(_watching(writers, outputs)):
            if outputs.single and outcome.unreadable is not None and not any(
                    outcome.summary.values()):  # nothing ran: the error alone is the output
                code = EXIT_FAILED
                raise outcome.unreadable
            _warn_errors_written(outcome)
            for writer in writers:
                writer.outcome(outcome)
            code = max(code, replay_writers.exit_code(outcome))
        final, code = code, EXIT_FAILED  # until every report is written
        for writer in writers:
            writer.finish(session.total)
        code = final
    finally:
        for writer in writers:
            writer.close()
        if steps is not None:
            steps.write(failed=code != EXIT_OK)
    return code


def _writers(session: ReplaySession[ToolSupply], options: SessionOptions, outputs: _Outputs,
             steps: StepSummaryWriter | None) -> list[Writer]:
    """The command's outputs, in the order they are written at the end."""
    from agentforge_cli.cli import replay_writers as found

    single = outputs.single
    writers: list[Writer] = [] if steps is None else [steps]
    if outputs.junit is not None:
        writers.append(found.JUnitWriter(outputs.junit, single=single,
                                         allow_drift=options.allow_drift))
    if outputs.html is not None:
        writers.append(found.HtmlWriter(outputs.html, single=single, match=options.match))
    if outputs.json:
        writers.append(found.JsonWriter(single=single, match=options.match))
    from agentforge_cli.cli import annotations

    if annotations.wanted():
        writers.append(found.AnnotationWriter(allow_drift=options.allow_drift))
    if single:
        writers.append(found.SingleErrors())
    if not outputs.json:
        writers.append(found.TraceWriter(single=single, match=options.match,
                                         allow_drift=options.allow_drift,
                                         update=options.update,
                                         tools_header=lambda: session.tools().description,
                                         command_line=outputs.command_line))
    return writers


def _watching(writers: list[Writer], outputs: _Outputs) -> Watch:
    """What watches each transcript: every writer's sink, the tool log (``--log``) and a
    progress bar (a long transcript, when one can be drawn)."""

    @contextlib.contextmanager
    def watch(given: str, opened: Transcript) -> Iterator[tuple[EntrySink | None, Any]]:
        from agentforge_cli.cli import render

        with contextlib.ExitStack() as stack:  # the trace is finished after the bar is gone
            sinks = [sink for writer in writers
                     if (sink := stack.enter_context(writer.watch(given, opened))) is not None]
            if outputs.log:
                stack.enter_context(render.tool_logging(True))
            size = _long_transcript_size(opened, outputs.log, trace=not outputs.json)
            tick = stack.enter_context(render.progress(size, True, opened.progress)
                                       ) if size else None
            yield _fanned_out(sinks), tick

    return watch


def _fanned_out(sinks: list[EntrySink]) -> EntrySink | None:
    """One sink giving each entry to every one of ``sinks``."""
    if len(sinks) <= 1:
        return sinks[0] if sinks else None

    def every(entry: Entry) -> None:
        for sink in sinks:
            sink(entry)

    return every


def _warn_errors_written(outcome: TranscriptOutcome) -> None:
    """Say when ``--update`` recorded a crash where a success was: it is now "expected"
    (and, where the format has no error flag, reads as a success)."""
    if not outcome.errors_written:
        return
    from agentforge_cli.cli import render

    unmarked = set(outcome.errors_unmarked)
    marked = [said for said in outcome.errors_written if said not in unmarked]
    if marked:
        count = len(marked)
        render.warning(f"--update wrote {count} error result{'' if count == 1 else 's'} "
                       f"over a recorded success in {outcome.path}:\n  "
                       + "\n  ".join(marked))
    if unmarked:
        count = len(outcome.errors_unmarked)
        render.warning(f"--update wrote {count} error result{'' if count == 1 else 's'} "
                       f"over a recorded success in {outcome.path}, and its format has no "
                       "error flag: the transcript now records "
                       f"{'it' if count == 1 else 'them'} as a success:\n  "
                       + "\n  ".join(outcome.errors_unmarked))


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
    from agentforge_cli.replay.transcripts.errors import TranscriptError
    from agentforge_cli.replay.transcripts.files.limits import MAX_DOCUMENT_BYTES

    copied = 0
    while chunk := source.read(1 << 20):
        copied += len(chunk)
        if copied > MAX_DOCUMENT_BYTES:
            raise TranscriptError(path, WHOLE_FILE, f"standard input is more than the "
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
