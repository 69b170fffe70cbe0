"""What ``replay`` writes of a replay session, one writer per output: the trace, ``--json``,
``--junit``, ``--html`` and the GitHub job summary, each handed the session's outcome values.

Every writer may watch each transcript as it replays (:meth:`Writer.watch`: a context
giving what takes its entries), then is handed its outcome (:meth:`Writer.outcome`), and
the session's total at the end (:meth:`Writer.finish`). With one transcript file the
trace and ``--json`` keep the single-transcript output, and the transcript's failure is
the command's error (:class:`SingleErrors`); with several, each failure is reported in
its section and the next transcript runs. A transcript found unreadable after some of
its calls ran is reported with those calls in every output (the trace shows them, the
``--json`` document lists them beside its ``error``, the JUnit suite holds them).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from agentforge_cli.cli.errors import EXIT_FAILED, EXIT_LOAD, EXIT_OK, EXIT_USAGE, os_reason
from agentforge_cli.replay.compare import MatchMode
from agentforge_cli.replay.report import CallReport, CallStatus

if TYPE_CHECKING:
    from agentforge_cli.cli.annotations import Annotation
    from agentforge_cli.cli.replay_outputs import JsonReport, JUnitReport
    from agentforge_cli.cli.step_summary import ReplayRun
    from agentforge_cli.replay.session import EntrySink, SessionTotal, TranscriptOutcome
    from agentforge_cli.replay.transcripts import Transcript

__all__ = ["AnnotationWriter", "HtmlWriter", "JUnitWriter", "JsonWriter", "Problem", "SingleErrors",
           "StepSummaryWriter", "TraceWriter", "Writer", "exit_code", "migration_step", "problem"]

EMPTY_HINT = ("nothing was checked; pass --allow-empty if the transcript is meant to have "
              "no tool calls")
NEXT_STEP = ("next: read the diff above; if today's results are the right ones, accept "
             "them with --update")


def migration_step(remedies: list[tuple[str, str]],
                   command_line: tuple[str, ...] | None) -> str:
    """The next step after calls drifted the way a renamed or removed argument makes them:
    the command line again, with ``--update`` and the migration, on a line of its own
    (only the options when the command is not known, or reads standard input)."""
    import shlex

    said = "next: if these arguments were renamed or removed, migrate the recordings"
    options = [token for pair in remedies for token in pair]
    if command_line is None or "-" in command_line:
        return f"{said}: add --update {shlex.join(options)} to the command"
    update = [] if "--update" in command_line else ["--update"]
    return f"{said}:\n  {shlex.join(['agentforge', *command_line, *update, *options])}"


class Problem(NamedTuple):
    """Why a transcript failed other than by its calls: as every output words it."""

    title: str
    """The JUnit testcase that reports it."""
    message: str
    hint: str | None
    code: int
    """The exit code it makes."""


def problem(outcome: TranscriptOutcome) -> Problem | None:
    """The transcript could not be read or written back, or had no tool call."""
    if outcome.unreadable is not None:
        from agentforge_cli.cli.guard import failure

        message, hint, code = failure(outcome.unreadable) or (
            str(outcome.unreadable), None, EXIT_LOAD)
        ran = sum(outcome.summary.values())
        if ran:  # read part way: what ran is in the output
            hint = (f"the transcript was read up to there: {ran} "
                    f"call{'' if ran == 1 else 's'} before it ran and "
                    f"{'is' if ran == 1 else 'are'} reported")
        return Problem("cannot read the transcript", message, hint, code)
    if outcome.unwritable is not None:
        return Problem("cannot write the transcript", f"cannot write transcript "
                       f"{outcome.path}: {os_reason(outcome.unwritable)}", None, EXIT_USAGE)
    if outcome.empty is not None:
        return Problem("no tool calls", outcome.empty, EMPTY_HINT, EXIT_FAILED)
    return None


def exit_code(outcome: TranscriptOutcome) -> int:
    """The transcript's exit code: its problem's, 1 when it failed, else 0."""
    found = problem(outcome)
    if found is not None:
        return found.code
    return EXIT_FAILED if outcome.fails else EXIT_OK


class Writer:
    """One output of a replay session; each step does nothing unless overridden."""

    def start(self) -> None:
        """Before the first transcript."""

    def watch(self, given: str, opened: Transcript) -> contextlib.AbstractContextManager[
            EntrySink | None]:
        """Around one transcript's replay: what takes its entries, or ``None``. The
        block ends normally also when the transcript turns out unreadable part way."""
        return contextlib.nullcontext()

    def outcome(self, outcome: TranscriptOutcome) -> None:
        """One transcript's outcome."""

    def finish(self, total: SessionTotal) -> None:
        """After the last transcript."""

    def close(self) -> None:
        """Release what is held and was not written (also when the command stopped)."""


def _emit(text: str) -> None:
    from agentforge_cli.cli import render

    render.write(text, end="")


class JsonWriter(Writer):
    """``--json``: one document per transcript (``summary``, ``calls``, ``transcript``,
    ``format``, ``match``, ``updated``, and ``error`` when it failed other than by its
    calls); several transcripts' documents go in a ``files`` list followed by the total.
    A transcript that ran no call and could not be read has no document (alone) or is
    ``{"transcript", "error"}`` (among several)."""

    def __init__(self, *, single: bool, match: MatchMode,
                 emit: Callable[[str], None] | None = None) -> None:
        self.single, self.match = single, match
        self._emit = emit or _emit  # ``None``: standard output
        self._to_stdout = emit is None
        self._report: JsonReport | None = None
        self._done: tuple[JsonReport, TranscriptOutcome] | None = None  # one, until written
        self._written = 0

    def start(self) -> None:
        if not self.single:
            self._emit("{\n  " + _key("files") + ": [")

    @contextlib.contextmanager
    def watch(self, given: str, opened: Transcript) -> Iterator[EntrySink | None]:
        from agentforge_cli.cli.replay_outputs import JsonReport

        self._report = JsonReport()
        yield self._report.add_entry

    def outcome(self, outcome: TranscriptOutcome) -> None:
        report, self._report = self._report, None
        ran = report is not None and (outcome.unreadable is None or report.calls > 0)
        if self.single:  # written at the end, after the JUnit report
            if report is not None and ran:
                self._done = (report, outcome)
            elif report is not None:
                report.close()
            return
        self._emit(",\n    " if self._written else "\n    ")
        self._written += 1
        found = problem(outcome)
        if report is None or not ran:  # not opened, or unreadable before any call ran
            if report is not None:
                report.close()
            error = found.message if found is not None else ""
            self._emit_indented(json.dumps({"transcript": outcome.given, "error": error},
                                           ensure_ascii=False))
            return
        members = self._members(outcome)
        if found is not None:
            members["error"] = found.message
        report.write(self._emit_indented, outcome.summary, members, end="")

    def finish(self, total: SessionTotal) -> None:
        if self.single:
            if self._done is not None:
                from agentforge_cli.cli import output

                report, outcome = self._done
                self._done = None
                members = self._members(outcome)
                found = problem(outcome)
                if found is not None:  # as in a document of several: said beside the calls
                    members["error"] = found.message
                report.write(self._emit, outcome.summary, members,
                             stream=output.product_stream() if self._to_stdout else None)
            return
        tail = {"summary": total.summary, "transcripts": total.transcripts,
                "failed_transcripts": total.failed_transcripts, "match": self.match}
        self._emit("\n  ]," + ",".join(f"\n  {_key(key)}: {json.dumps(value)}"
                                  for key, value in tail.items()) + "\n}\n")

    def _emit_indented(self, text: str) -> None:
        """A transcript's document inside the ``files`` list, four spaces in."""
        self._emit(text.replace("\n", "\n    "))

    def _members(self, outcome: TranscriptOutcome) -> dict[str, Any]:
        """The members after ``calls`` of a transcript's document."""
        members: dict[str, Any] = {"transcript": outcome.path, "format": outcome.format,
                                   "match": self.match}
        if outcome.updated is not None:
            members["updated"] = outcome.updated
            members["errors_unmarked"] = len(outcome.errors_unmarked)
        if outcome.migrated is not None:
            members["migrated"] = outcome.migrated
        return members

    def close(self) -> None:
        """Release what was spooled and not written (the command stopped)."""
        for report in (self._report, self._done[0] if self._done else None):
            if report is not None:
                report.close()


def _key(name: str) -> str:
    return json.dumps(name)


class HtmlWriter(Writer):
    """``--html FILE``: the ``--json`` document, written into a spooled file as it would
    be to standard output, then drawn as the HTML report
    (:func:`~agentforge_cli.cli.report.write_report`) at the end."""

    def __init__(self, path: Path, *, single: bool, match: MatchMode) -> None:
        from agentforge_cli.cli.replay_outputs import text_spool

        self.path = path
        self._spool = text_spool()
        self._json = JsonWriter(single=single, match=match, emit=self._write)

    def _write(self, text: str) -> None:
        self._spool.write(text)

    def start(self) -> None:
        self._json.start()

    def watch(self, given: str, opened: Transcript) -> contextlib.AbstractContextManager[
            EntrySink | None]:
        return self._json.watch(given, opened)

    def outcome(self, outcome: TranscriptOutcome) -> None:
        self._json.outcome(outcome)

    def finish(self, total: SessionTotal) -> None:
        from agentforge_cli.cli.report import write_report

        self._json.finish(total)
        self._spool.seek(0)
        text = self._spool.read()
        self._spool.close()
        if text:  # nothing ran: no report (the command's error says why)
            write_report(self.path, [("agentforge replay", json.loads(text))])

    def close(self) -> None:
        self._json.close()
        self._spool.close()


class JUnitWriter(Writer):
    """``--junit FILE``: a suite per transcript, a testcase per call, written at the end."""

    def __init__(self, path: Path, *, single: bool, allow_drift: bool) -> None:
        self.path, self.single, self.allow_drift = path, single, allow_drift
        self._suites: list[JUnitReport] = []
        self._current: JUnitReport | None = None

    @contextlib.contextmanager
    def watch(self, given: str, opened: Transcript) -> Iterator[EntrySink | None]:
        from agentforge_cli.cli.replay_outputs import JUnitReport

        name = str(opened.path) if self.single else given
        self._current = JUnitReport(name, allow_drift=self.allow_drift)
        self._suites.append(self._current)
        yield self._current.add_entry

    def outcome(self, outcome: TranscriptOutcome) -> None:
        suite, self._current = self._current, None
        if outcome.unreadable is not None:
            if suite is None:  # not even opened
                from agentforge_cli.cli.replay_outputs import JUnitReport

                suite = JUnitReport(outcome.given, allow_drift=self.allow_drift)
                self._suites.append(suite)
            found = problem(outcome)
            assert found is not None
            suite.fail_suite(found.title, found.message)
            return
        assert suite is not None  # a transcript read was watched
        if outcome.unwritable is not None:
            suite.fail_suite("cannot write the transcript", _message(outcome))
        if outcome.empty is not None:
            suite.fail_suite("no tool calls", outcome.empty)

    def finish(self, total: SessionTotal) -> None:
        from agentforge_cli.cli.errors import UsageError
        from agentforge_cli.cli.replay_outputs import write_junit

        suites, self._suites = self._suites, []
        try:
            write_junit(self.path, suites)
        except OSError as exc:
            raise UsageError(f"cannot write the JUnit report {str(self.path)!r}: "
                             f"{exc.strerror or exc}") from exc

    def close(self) -> None:
        """Release the spooled suites not written (the command stopped)."""
        for suite in self._suites:
            suite.close()


def _message(outcome: TranscriptOutcome) -> str:
    found = problem(outcome)
    assert found is not None
    return found.message


class StepSummaryWriter(Writer):
    """The GitHub job summary: each transcript's counts and its first failing calls."""

    def __init__(self) -> None:
        self.runs: list[ReplayRun] = []
        self._failing: list[tuple[str, str, str]] = []

    @contextlib.contextmanager
    def watch(self, given: str, opened: Transcript) -> Iterator[EntrySink | None]:
        from agentforge_cli.cli.step_summary import LIMIT

        failing = self._failing = []
        shown = (CallStatus.MISMATCHED, CallStatus.DRIFTED)

        def note(entry: Any) -> None:
            if type(entry) is CallReport and entry.status in shown and len(failing) < LIMIT:
                failing.append((str(entry.where), entry.name, entry.status))

        yield note

    def outcome(self, outcome: TranscriptOutcome) -> None:
        from agentforge_cli.cli.step_summary import ReplayRun

        failing, self._failing = self._failing, []
        if outcome.unreadable is not None:  # with the calls that ran before, if any
            self.runs.append(ReplayRun(transcript=outcome.given, error=_message(outcome),
                                       counts=outcome.summary, failing=failing))
        else:
            self.runs.append(ReplayRun(transcript=outcome.path or outcome.given,
                                       error=outcome.empty, counts=outcome.summary,
                                       failing=failing))

    def write(self, *, failed: bool) -> None:
        """Append the section, when something was replayed."""
        if self.runs:
            from agentforge_cli.cli import step_summary

            step_summary.replay(self.runs, failed=failed)


class AnnotationWriter(Writer):
    """GitHub annotations: each mismatched call (and drifted one, without
    ``--allow-drift``) at its line of the transcript, each transcript that failed at
    its file; written when the session ends."""

    def __init__(self, *, allow_drift: bool) -> None:
        self.found: list[Annotation] = []
        self.untold = 0
        self._calls: list[CallReport] = []
        self._failing = {CallStatus.MISMATCHED} | (
            set() if allow_drift else {CallStatus.DRIFTED})

    @contextlib.contextmanager
    def watch(self, given: str, opened: Transcript) -> Iterator[EntrySink | None]:
        calls = self._calls = []

        def note(entry: Any) -> None:
            if type(entry) is CallReport and entry.status in self._failing:
                calls.append(entry)

        yield note

    def outcome(self, outcome: TranscriptOutcome) -> None:
        from agentforge_cli.cli import annotations

        calls, self._calls = self._calls, []
        path = outcome.path or outcome.given
        found = [annotations.for_call(path, call) for call in calls]
        failure = problem(outcome)
        if failure is not None and failure.code != EXIT_OK:
            where = getattr(outcome.unreadable, "where", None)
            found.append(annotations.Annotation(
                failure.message, f"agentforge replay: {failure.title}",
                annotations.shown_path(path), getattr(where, "line", None)))
        room = max(annotations.LIMIT - len(self.found), 0)
        self.found += found[:room]
        self.untold += len(found) - len(found[:room])

    def finish(self, total: SessionTotal) -> None:
        from agentforge_cli.cli import annotations

        annotations.emit(self.found, untold=self.untold)


class SingleErrors(Writer):
    """One transcript file: its failure (no result written back, no tool call) is the
    command's error, raised once the reports are written."""

    def __init__(self) -> None:
        self._problem: Problem | None = None

    def outcome(self, outcome: TranscriptOutcome) -> None:
        self._problem = problem(outcome)

    def finish(self, total: SessionTotal) -> None:
        if self._problem is not None:
            from agentforge_cli.cli.errors import CliError

            error = CliError(self._problem.message, hint=self._problem.hint)
            error.exit_code = self._problem.code
            raise error


class TraceWriter(Writer):
    """The human trace: each transcript's calls as they settle, its summary (or what
    failed it), and with several transcripts the total."""

    def __init__(self, *, single: bool, match: MatchMode, allow_drift: bool, update: bool,
                 tools_header: Callable[[], str],
                 command_line: tuple[str, ...] | None = None) -> None:
        self.single, self.match = single, match
        self.allow_drift, self.update = allow_drift, update
        self.command_line = command_line
        self._tools_header: Callable[[], str] | None = tools_header
        self._single: TranscriptOutcome | None = None

    def start(self) -> None:
        if not self.single:
            self._say_tools()

    @contextlib.contextmanager
    def watch(self, given: str, opened: Transcript) -> Iterator[EntrySink | None]:
        from agentforge_cli.cli import render
        from agentforge_cli.replay.transcripts.model import ConversationStart

        trace = render.TracePrinter()
        add = trace.add

        def show(entry: Any) -> None:
            if type(entry) is ConversationStart:  # one file, several conversations
                self._say_tools()
            add(entry)

        yield show
        trace.finish()

    def outcome(self, outcome: TranscriptOutcome) -> None:
        if self.single:  # its summary comes last, unless its failure is the command's
            self._single = outcome
            return
        found = problem(outcome)
        if found is not None:
            from agentforge_cli.cli import render

            render.error(found.message, found.hint)
        else:
            self._summary(outcome)

    def finish(self, total: SessionTotal) -> None:
        from agentforge_cli.cli import render

        if self.single:
            if self._single is not None:
                self._summary(self._single)
                self._say_next_step(self._single.summary.get(CallStatus.MISMATCHED, 0))
                self._say_migration(self._single.remedies)
            return
        count = total.transcripts
        title = (f"all {count} {'transcript' if count == 1 else 'transcripts'}"
                 + (f", {total.failed_transcripts} failed" if total.failed_transcripts
                    else ""))
        render.replay_summary(total.summary, title, allow_drift=self.allow_drift,
                              failed=total.failed(allow_drift=self.allow_drift,
                                                  update=self.update))
        self._say_next_step(total.summary.get(CallStatus.MISMATCHED, 0))
        self._say_migration(list(total.remedies))

    def _summary(self, outcome: TranscriptOutcome) -> None:
        from agentforge_cli.cli import render

        shown = outcome.format if self.match == MatchMode.EXACT else (
            f"{outcome.format}, match {self.match}")
        render.replay_summary(outcome.summary, f"{outcome.path} ({shown})",
                              failed=outcome.failed, updated=outcome.updated,
                              allow_drift=self.allow_drift, migrated=outcome.migrated,
                              unmarked=len(outcome.errors_unmarked))

    def _say_next_step(self, mismatched: int) -> None:
        """After a trace that failed on differing results: what to do about it."""
        if mismatched and not self.update:
            from agentforge_cli.cli.output import write

            write(NEXT_STEP, stderr=True)

    def _say_migration(self, remedies: list[tuple[str, str]]) -> None:
        """After a trace whose calls drifted: the command that would migrate them, when
        the drift tells a rename (or a removed argument)."""
        if not remedies or self.allow_drift:
            return
        from agentforge_cli.cli.output import write

        write(migration_step(remedies, self.command_line), stderr=True)

    def _say_tools(self) -> None:
        """Print the trace's ``tools:`` line, once: only where several conversations run."""
        from agentforge_cli.cli import render

        if self._tools_header is not None:
            header, self._tools_header = self._tools_header(), None
            if header:
                render.write(render.safe_text(f"tools: {header}"))

