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
    CwdOption,
    EnvOption,
    HeaderOption,
    StrictOption,
    ToolsOption,
    mcp_options,
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
        from agentforge_cli.replay.session import SessionOptions
        from agentforge_cli.replay.transcripts.files.collect import STDIN, collect_transcripts

        if timeout is not None and not 0 < timeout < math.inf:
            raise UsageError(f"--timeout must be a positive number of seconds, got {timeout:g}")
        reach = mcp_options(header, env, cwd)
        strict, timeout = project_choices(strict, timeout)
        if update and STDIN in transcripts:
            raise UsageError("--update writes into the transcript file; standard input "
                             "cannot be updated")
        paths, empty_folders = collect_transcripts(transcripts)
        if empty_folders:
            raise CliError(f"no transcript found in {empty_folders[0]}",
                           hint="nothing was checked; a folder is searched for *.json, "
                                "*.jsonl, *.yaml and *.yml files (also .gz)")
        options = SessionOptions(format=transcript_format, match=match,
                                 allow_drift=allow_drift, allow_empty=allow_empty,
                                 update=update, describe=not json_output)

        def load() -> ToolSupply:
            from agentforge_cli.cli.render import skipped_tool
            from agentforge_cli.integrations.targets.loading import load_supply

            return load_supply(tools, logging=log, strict=strict, timeout=timeout,
                               mcp_options=reach, binding=binding, skip_problems=skipped_tool)

        single = len(transcripts) == 1 and paths == transcripts
        raise typer.Exit(_replay_session(paths, load, options, _Outputs(
            single=single, json=json_output, junit=junit, log=log)))


@dataclass(frozen=True, kw_only=True, slots=True)
class _Outputs:
    """What the command writes: with one transcript file, the single-transcript output."""

    single: bool
    json: bool
    junit: Path | None
    log: bool


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
    if outputs.json:
        writers.append(found.JsonWriter(single=single, match=options.match))
    if single:
        writers.append(found.SingleErrors())
    if not outputs.json:
        writers.append(found.TraceWriter(single=single, match=options.match,
                                         allow_drift=options.allow_drift,
                                         update=options.update,
                                         tools_header=lambda: session.tools().description))
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
    """Say when ``--update`` recorded a crash where a success was: it is now "expected"."""
    if not outcome.errors_written:
        return
    from agentforge_cli.cli import render

    broken = outcome.errors_written
    count = len(broken)
    render.warning(f"--update wrote {count} error result{'' if count == 1 else 's'} over a "
                   f"recorded success in {outcome.path}:\n  " + "\n  ".join(broken))


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
