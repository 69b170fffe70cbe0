"""A replay session: transcripts (files, or what a folder held) replayed one after the
other against the same tools, as one outcome value per transcript and a total.

A transcript that cannot be read is an outcome too (:attr:`TranscriptOutcome.unreadable`),
and the next one runs; one file is a session of one. The entries of each transcript go,
as they settle, to what :meth:`ReplaySession.outcomes` is given to watch them with (a
trace, a report); nothing here prints. A transcript found unreadable part way (a
streamed file whose calls before the bad record have run) still hands every call that
ran to its watch, and counts them: a replay never runs a call it does not report.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from agentforge_cli.replay.compare import MatchMode
from agentforge_cli.replay.report import (
    DRIFTED,
    MISMATCHED,
    STATUSES,
    CallReport,
    CallStatus,
    Entry,
)
from agentforge_cli.replay.transcripts.errors import TranscriptError

if TYPE_CHECKING:
    from agentforge_cli.core.run.service import ToolService
    from agentforge_cli.replay.scrubbing import Scrubbing, ScrubSettings
    from agentforge_cli.replay.transcripts import Transcript
    from agentforge_cli.replay.transcripts.model import Event
    from agentforge_cli.replay.transcripts.writing.migration import Migration

__all__ = ["EntrySink", "ReplaySession", "SessionOptions", "SessionTotal", "Tools",
           "TranscriptOutcome", "Watch"]

EntrySink = Callable[[Entry], None]
"""Takes each entry of a transcript as it settles, in transcript order."""

Watch = Callable[[str, "Transcript"], contextlib.AbstractContextManager[
    tuple["EntrySink | None", "Callable[[Event], None] | None"]]]
"""Given each transcript (as given, and opened): a context around its replay giving what
takes its entries and what is told of each event read (or ``None`` for either). The
block ends normally also when the transcript turns out unreadable part way (its entries
so far were taken)."""


class Tools(Protocol):
    """The tools a session replays against (a ``ToolSupply``)."""

    @property
    def service(self) -> ToolService:
        """The tools, made once."""
    @property
    def fresh(self) -> Callable[[], ToolService] | None:
        """Makes tools afresh for each conversation, or ``None``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionOptions:
    """How every transcript of a session is replayed."""

    format: str = "auto"
    """``auto`` or a registered transcript format's name."""
    match: MatchMode = MatchMode.EXACT
    allow_drift: bool = False
    """A drifted call does not fail its transcript."""
    allow_empty: bool = False
    """A transcript without a tool call does not fail."""
    update: bool = False
    """Today's results are written into each transcript where they are missing or differ."""
    migration: Migration | None = None
    """With ``update``: recorded calls renamed before they run, and written back so."""
    describe: bool = True
    """Fill each call's :attr:`~agentforge_cli.replay.report.CallReport.invocation`."""
    scrub: ScrubSettings | None = None
    """The scrubbers asked for besides the tools' own ``@tool(volatile=...)``."""


@dataclass(kw_only=True, slots=True)
class TranscriptOutcome:
    """One transcript of a session: what its replay counted and how it ended."""

    given: str
    """The transcript as the session was given it (``-`` for standard input)."""
    path: str | None = None
    """The transcript as every message names it, once opened."""
    format: str | None = None
    """The format it was read as, once opened."""
    summary: dict[CallStatus, int] = field(default_factory=dict)
    """Settled calls per status (of the calls that ran before reading failed, for a
    transcript unreadable part way; empty for one that could not be opened)."""
    failed: bool = False
    """A result differs, or a call drifted (unless drift is allowed)."""
    drift_failed: bool = False
    """A call drifted and drift is not allowed: ``--update`` cannot mend that."""
    updated: int | None = None
    """Results written back (with ``update``)."""
    errors_written: list[str] = field(default_factory=list)
    """``update`` wrote today's error over a recorded success: ``call tool: error``."""
    errors_unmarked: list[str] = field(default_factory=list)
    """Of those, the ones written where the format has no error flag: the transcript now
    reads them as successes."""
    migrated: int | None = None
    """Recorded calls the migration rewrote (with a migration)."""
    remedies: list[tuple[str, str]] = field(default_factory=list)
    """The migrations that would make the drifted calls fit (``("--rename-arg",
    "tool.old=new")``)."""
    unreadable: TranscriptError | None = None
    """Why the transcript could not be read (part way, or at all). Part way, the calls
    that ran before it are in :attr:`summary` and were handed to the watch."""
    unwritable: OSError | None = None
    """Why ``update`` could not write the transcript back."""
    empty: str | None = None
    """The "no tool calls" message, when that fails the transcript."""
    update: bool = False
    """``update`` was asked for: a differing result no longer fails the transcript."""

    @property
    def fails(self) -> bool:
        """The transcript counts as failed: unreadable, unwritable, empty, a call
        drifted, or a result differs (unless ``update`` wrote today's)."""
        return (self.unreadable is not None or self.unwritable is not None
                or self.empty is not None or self.drift_failed
                or (self.failed and not self.update))


@dataclass(kw_only=True, slots=True)
class SessionTotal:
    """The session so far: calls per status over the transcripts read, and counts."""

    summary: dict[CallStatus, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    transcripts: int = 0
    failed_transcripts: int = 0
    remedies: dict[tuple[str, str], None] = field(default_factory=dict)
    """The migrations that would make the drifted calls fit, over the transcripts."""

    def add(self, outcome: TranscriptOutcome) -> None:
        """Count one transcript's outcome, and the calls it ran (also those of one that
        turned out unreadable part way: they ran)."""
        self.transcripts += 1
        self.failed_transcripts += outcome.fails
        self.remedies.update(dict.fromkeys(outcome.remedies))
        for status, count in outcome.summary.items():
            self.summary[status] = self.summary.get(status, 0) + count

    def failed(self, *, allow_drift: bool, update: bool) -> bool:
        """A result differs (unless updated) or a call drifted (unless allowed)."""
        return ((self.summary[MISMATCHED] > 0 and not update)
                or (self.summary.get(DRIFTED, 0) > 0 and not allow_drift))


ToolsT = TypeVar("ToolsT", bound=Tools)


def _as_path(given: str) -> contextlib.AbstractContextManager[Path]:
    return contextlib.nullcontext(Path(given))


class ReplaySession(Generic[ToolsT]):
    """Replays ``paths`` one after the other against the same tools.

    Args:
        paths: Transcript files, in the order they are replayed.
        tools: Loads the tools, the first time a transcript is opened (or :meth:`tools`
            is called).
        options: How each transcript is replayed.
        spool: A transcript given -> a context holding the file to open (standard input
            copied to a file, say); by default the path itself.
    """

    def __init__(self, paths: Sequence[str], tools: Callable[[], ToolsT],
                 options: SessionOptions = SessionOptions(), *,
                 spool: Callable[[str], contextlib.AbstractContextManager[Path]] = _as_path,
                 ) -> None:
        self.paths = list(paths)
        self.options = options
        self.total = SessionTotal()
        self._load, self._spool = tools, spool
        self._tools: ToolsT | None = None
        self._scrubbing: tuple[Scrubbing | None] | None = None

    def tools(self) -> ToolsT:
        """The session's tools, loaded now if not yet."""
        if self._tools is None:
            self._tools = self._load()
        return self._tools

    def scrubbing(self) -> Scrubbing | None:
        """What each tool's results are scrubbed of (the options' scrubbers and the
        tools' own), worked out once, when the tools are first needed; ``None``: nothing.

        Raises:
            TargetConfigError: A tool declares a scrubber that is not one.
        """
        if self._scrubbing is None:
            from agentforge_cli.replay.scrub_plan import scrubbing_for

            self._scrubbing = (scrubbing_for(self.tools().service, self.options.scrub),)
        return self._scrubbing[0]

    def outcomes(self, watch: Watch | None = None) -> Iterator[TranscriptOutcome]:
        """Replay each transcript and yield its outcome (counted in :attr:`total` first).

        Raises:
            TargetError: The tools cannot be loaded, or declare a scrubber that is not one.
        """
        for given in self.paths:
            outcome = self._outcome(given, watch)
            self.total.add(outcome)
            yield outcome

    def _outcome(self, given: str, watch: Watch | None) -> TranscriptOutcome:
        from agentforge_cli.replay.transcripts import open_transcript

        outcome = TranscriptOutcome(given=given, update=self.options.update)
        try:
            with self._spool(given) as path:
                opened = open_transcript(path, self.options.format)
                outcome.path, outcome.format = str(opened.path), opened.format
                self._replay(given, opened, outcome, watch)
        except TranscriptError as exc:  # the next transcript still runs
            outcome.unreadable = exc
        return outcome

    def _replay(self, given: str, opened: Transcript, outcome: TranscriptOutcome,
                watch: Watch | None) -> None:
        """Replay one opened transcript into ``outcome``, its entries to ``watch``'s sink.

        A malformed record makes the transcript unreadable (``outcome.unreadable``):
        the calls before it have run, and their entries went to the watch's sink and
        their counts into ``outcome.summary``; nothing is written back.
        """
        from agentforge_cli.replay.runner import Replayer

        options, tools = self.options, self.tools()
        migration = options.migration if options.update else None
        if migration:
            opened.check_migration()  # refused before any call runs
        # each conversation of each transcript on tools of its own, when they can be made afresh
        replayer = Replayer(tools.service, fresh=tools.fresh, describe=options.describe,
                            match=options.match, allow_drift=options.allow_drift,
                            scrub=self.scrubbing())
        updates: dict[int, tuple[str, bool]] = {}
        migrated: set[int] = set()
        over_success: list[tuple[int, str]] = []
        with watch(given, opened) if watch is not None else _UNWATCHED as (sink, on_event):
            events = opened.events()
            if migration:
                events = _migrated(events, migration, migrated)
            entries = replayer.run(events, on_event)
            if options.update:
                entries = _updates_noted(entries, updates, over_success)
            try:  # consumed in C: this loop runs once per entry
                deque(entries if sink is None else map(sink, entries), maxlen=0)
            except TranscriptError as exc:  # the entries of the calls that ran were taken
                outcome.unreadable = exc
        outcome.summary = replayer.summary
        outcome.failed, outcome.drift_failed = replayer.failed, replayer.drift_failed
        outcome.remedies = list(replayer.remedies)
        if outcome.unreadable is not None:
            return  # nothing is written into a file that does not read
        if options.update:
            outcome.migrated = len(migrated) if migration else None
            self._write(opened, outcome, updates, migration if migrated else None,
                        over_success)
        if not any(replayer.summary.values()) and not options.allow_empty:
            outcome.empty = f"no tool calls found in {opened.path} (read as {opened.format})"

    @staticmethod
    def _write(opened: Transcript, outcome: TranscriptOutcome,
               updates: dict[int, tuple[str, bool]], migration: Migration | None,
               over_success: list[tuple[int, str]]) -> None:
        """Write today's results (and the migrated calls) back into the transcript."""
        try:
            written = opened.write(updates, migration)
        except OSError as exc:
            outcome.unwritable = exc
            return  # nothing was written
        outcome.updated = written.results
        for index, said in over_success:
            outcome.errors_written.append(said)
            if index in written.unmarked:
                outcome.errors_unmarked.append(said)


_UNWATCHED = contextlib.nullcontext((None, None))


def _migrated(events: Iterator[Event], migration: Migration, changed: set[int]
              ) -> Iterator[Event]:
    """``events``, each recorded call renamed as ``migration`` says (its index noted in
    ``changed``), so that it runs as it will be written back."""
    from agentforge_cli.replay.transcripts.model import ToolCall

    for event in events:
        if type(event) is ToolCall:
            today = migration.call(event.name, event.arguments)
            if today is not None:
                changed.add(event.index)
                event = ToolCall(event.index, event.id, today[0], today[1], event.raw,
                                 event.where, event.conversation, event.asked)
        yield event


def _updates_noted(entries: Iterator[Entry], updates: dict[int, tuple[str, bool]],
                   over_success: list[tuple[int, str]]) -> Iterator[Entry]:
    """``entries``, noting today's result of each call that ran and whose recording is
    missing or differs (what ``update`` writes back), and each error about to be written
    over a recorded result that is not an error."""
    for entry in entries:
        if type(entry) is CallReport and entry.needs_update and (
                entry.actual is not None and entry.is_error is not None):  # it ran
            updates[entry.index] = (entry.actual, entry.is_error)
            if entry.is_error and entry.expected is not None and (
                    entry.expected_is_error is not True):
                over_success.append((entry.index, f"{entry.id or entry.where} {entry.name}: "
                                                  f"{_first_line(entry.actual)}"))
        yield entry


def _first_line(text: str, limit: int = 120) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."
