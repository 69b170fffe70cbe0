"""pytest route of ``agentforge replay``: ``pytest --agentforge-replay PATH`` adds one test
item per recorded call of the transcripts at ``PATH`` (a file or a folder, as the
command takes them; repeatable, or the ini option ``agentforge_replay``, one a line,
relative to the rootdir).

Items are named ``FILE::agentforge_replay[CALL]`` (the call id and tool, or ``#N`` and
the tool for a call without a unique id), so ``-k agentforge_replay`` selects them and
``pytest-xdist``'s ``--dist loadfile`` keeps a transcript on one worker; so does its
default ``--dist load`` (``-n`` alone), whose scheduler is replaced by one that sends a
transcript's items as one unit and every other test on its own. Each transcript
is replayed once per process, in order, against the configured targets (the plugin's
fixtures' targets, loaded once per process), the first time one of its items runs. Each
transcript, and each conversation of a file of several, gets tools of its own when a
target is a class or a factory (``Name()``), so verdicts do not depend on which worker
ran what before; a module-level instance, functions, a module and an MCP server are
shared by the process's transcripts (``targets.ToolSupply``). An item fails with the diff
the command shows and is skipped when no result was recorded. A call whose recorded
arguments no longer fit today's tools (``drifted``: not run) fails with what drifted, or
is skipped with it under ``--agentforge-allow-drift`` (ini ``agentforge_allow_drift``).
``--agentforge-match``
(ini ``agentforge_match``) chooses how results are compared, as ``replay --match``; the
volatile parts of results are scrubbed as the command scrubs them without ``--scrub``
(``[tool.agentforge.replay]`` and ``@tool(volatile=...)``). A
transcript that cannot be read, or has no tool call, or a folder with no transcript, is
one failing item: never a silent pass. Collection only reads the transcripts (no call
runs), the same in every process, so the items spread over ``pytest-xdist`` workers
(each worker replays the transcripts of its items). Registered by
:mod:`~agentforge_cli.integrations.pytest.plugin`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import pytest

from agentforge_cli.integrations.pytest.items import RouteItem
from agentforge_cli.replay.compare import MATCH_MODES
from agentforge_cli.replay.report import CallStatus

if TYPE_CHECKING:

    from agentforge_cli.replay.report import CallReport

__all__ = ["ALLOW_DRIFT_OPTION", "MATCH_OPTION", "REPLAY_OPTION", "ReplayItem",
           "transcript_scheduling", "transcript_scope"]

_ITEM_NAME = "agentforge_replay"
REPLAY_OPTION = "--agentforge-replay"
MATCH_OPTION = "--agentforge-match"
ALLOW_DRIFT_OPTION = "--agentforge-allow-drift"
_MODES = MATCH_MODES


class _Replayed(TypedDict):
    """A transcript replayed: its calls' reports by index, and why it stopped, if it did."""

    calls: dict[int, CallReport]
    error: str | None


_REPLAYS = pytest.StashKey[dict[str, _Replayed]]()
_SUPPLY = pytest.StashKey[Any]()  # the targets' ToolSupply, loaded once per process
_SCRUB = pytest.StashKey[Any]()  # what their results are scrubbed of, read once per process


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentforge", "agentforge tool schemas")
    group.addoption(REPLAY_OPTION, action="append", default=[], metavar="PATH",
                    help="add one test per recorded call of the transcripts at PATH (a file "
                         "or a folder; repeatable), replayed against the agentforge tools")
    group.addoption(MATCH_OPTION, choices=_MODES, default=None,
                    help="how replayed results are compared: exact (default), json, status")
    parser.addini("agentforge_replay", type="linelist", default=[],
                  help="transcripts or folders for --agentforge-replay, one a line")
    parser.addini("agentforge_match", default="exact",
                  help="how --agentforge-replay compares results: exact, json or status")
    group.addoption(ALLOW_DRIFT_OPTION, action="store_true", default=None,
                    help="skip, instead of failing, a recorded call whose arguments no "
                         "longer fit today's tools (drifted: not run)")
    parser.addini("agentforge_allow_drift", type="bool", default=False,
                  help="as --agentforge-allow-drift")


class ReplayFailure(Exception):
    """The call's result differs, or the transcript cannot be replayed (shown without a
    traceback).

    An internal signal, outside the ``AgentForgeError`` tree: raised by
    :meth:`ReplayItem.runtest` for pytest, whose report shows its message through
    ``repr_failure``; no caller catches it.
    """


class ReplayItem(RouteItem):
    """One recorded call (or, with ``index`` ``None``, a transcript that cannot be read)."""

    ROUTE = "agentforge replay"
    FAILURE = ReplayFailure

    def __init__(self, *, transcript: str, index: int | None, error: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.transcript = transcript
        self.index = index
        self.error = error

    def runtest(self) -> None:
        if self.error is not None:
            raise ReplayFailure(self.error)
        replayed = _replayed(self.config, self.transcript)
        call = replayed["calls"].get(self.index) if self.index is not None else None
        if call is None:
            raise ReplayFailure(replayed["error"] or "the call was not replayed")
        if call.status == CallStatus.UNRECORDED:
            pytest.skip("no recorded result")
        if call.status == CallStatus.MISMATCHED:
            scrubbed = [f"scrubbed: {', '.join(call.scrubbed)}"] if call.scrubbed else []
            raise ReplayFailure("\n".join([f"{call.name} at {call.where}: result differs "
                                           "from the recording", *scrubbed, *call.diff]))
        if call.status == CallStatus.DRIFTED:
            message = (f"{call.name} at {call.where} drifted, not run: {call.drift}")
            if _allow_drift(self.config):
                pytest.skip(f"{message} (allowed)")
            raise ReplayFailure(message)


def _allow_drift(config: pytest.Config) -> bool:
    given = config.getoption(ALLOW_DRIFT_OPTION)
    return bool(given) if given is not None else bool(config.getini("agentforge_allow_drift"))


def _match(config: pytest.Config) -> str:
    match = config.getoption(MATCH_OPTION) or str(config.getini("agentforge_match"))
    return match.strip().lower()


def _replayed(config: pytest.Config, transcript: str) -> _Replayed:
    """``{"calls": {index: CallReport}, "error": str | None}`` for ``transcript``,
    replayed once per process."""
    cache = config.stash.setdefault(_REPLAYS, {})
    if transcript not in cache:
        cache[transcript] = _replay(config, transcript)
    return cache[transcript]


def _supply(config: pytest.Config) -> Any:
    """The configured targets' ``ToolSupply``, loaded the first time it is needed."""
    from agentforge_cli.integrations.pytest.plugin import configured_targets, project_options
    from agentforge_cli.integrations.targets.loading import supply_tools

    supply = config.stash.get(_SUPPLY, None)
    if supply is None:
        supply = config.stash[_SUPPLY] = supply_tools(configured_targets(config),
                                                      **project_options(config))
    return supply


def _scrubbing(config: pytest.Config, supply: Any) -> Any:
    """What the tools' results are scrubbed of: ``[tool.agentforge.replay]`` and each
    tool's ``@tool(volatile=...)``, worked out the first time it is needed.

    Raises:
        TargetConfigError: The table, or a tool's declaration, names no scrubber.
    """
    if _SCRUB not in config.stash:
        from agentforge_cli.integrations.targets.loading import find_settings
        from agentforge_cli.replay.scrub_plan import scrubbing_for

        settings = find_settings(cwd=Path(config.rootpath))
        config.stash[_SCRUB] = scrubbing_for(supply.service, settings.scrub)
    return config.stash[_SCRUB]


def _replay(config: pytest.Config, transcript: str) -> _Replayed:
    from agentforge_cli.errors import AgentForgeError, TargetError
    from agentforge_cli.replay.report import CallReport
    from agentforge_cli.replay.runner import Replayer
    from agentforge_cli.replay.transcripts import open_transcript

    calls: dict[int, CallReport] = {}
    try:
        supply = _supply(config)
        replayer = Replayer(supply.service, fresh=supply.fresh, describe=False,
                            match=_match(config), scrub=_scrubbing(config, supply))
        for entry in replayer.run(open_transcript(transcript).events()):
            if isinstance(entry, CallReport):
                calls[entry.index] = entry
    except TargetError as exc:
        return {"calls": calls, "error": exc.message + (f"\n  hint: {exc.hint}"
                                                        if exc.hint else "")}
    except AgentForgeError as exc:
        return {"calls": calls, "error": f"cannot replay {exc}"}
    except pytest.fail.Exception as exc:
        return {"calls": calls, "error": str(exc.msg)}
    return {"calls": calls, "error": None}


def _paths(config: pytest.Config) -> list[str]:
    given = config.getoption(REPLAY_OPTION) or []
    base = config.invocation_params.dir
    if not given:
        given = [line.strip() for line in config.getini("agentforge_replay") if line.strip()]
        base = config.rootpath
    return [str(Path(base, path)) for path in given]


def _call_labels(transcript: str) -> list[tuple[int, str]]:
    """``(index, label)`` per call, reading the transcript without running anything."""
    from collections import Counter

    from agentforge_cli.replay.transcripts import ToolCall, open_transcript

    calls = [event for event in open_transcript(transcript).events()
             if isinstance(event, ToolCall)]
    uses = Counter(call.id for call in calls)
    return [(call.index, f"{call.id} {call.name}" if call.id and uses[call.id] == 1
             else f"#{call.index + 1} {call.name}") for call in calls]


def _items(session: pytest.Session, paths: list[str]) -> list[ReplayItem]:
    from agentforge_cli.errors import AgentForgeError
    from agentforge_cli.replay.transcripts.files.collect import collect_transcripts

    root = session.config.rootpath

    def shown(transcript: str) -> str:
        try:
            return Path(transcript).relative_to(root).as_posix()
        except ValueError:
            return transcript

    def item(transcript: str, where: str, label: str, index: int | None,
             error: str | None = None) -> ReplayItem:
        name = f"{_ITEM_NAME}[{label}]"
        return ReplayItem.from_parent(session, name=name, nodeid=f"{where}::{name}",
                                      transcript=transcript, index=index, error=error)

    found, empty = collect_transcripts(paths)
    items = [item(folder, shown(folder), "no transcript", None,
                  f"no transcript found in {folder}") for folder in empty]
    for transcript in found:
        where = shown(transcript)  # once a transcript, not once a call
        try:
            labels = _call_labels(transcript)
        except AgentForgeError as exc:
            items.append(item(transcript, where, "unreadable", None,
                              f"cannot read transcript {exc}"))
            continue
        if not labels:
            items.append(item(transcript, where, "no tool calls", None,
                              f"no tool calls found in {transcript}"))
        items.extend(item(transcript, where, label, index) for index, label in labels)
    return items


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    paths = _paths(config)
    if not paths:
        return
    if _match(config) not in _MODES:
        raise pytest.UsageError(f"agentforge_match must be one of {', '.join(_MODES)}; "
                                f"got {_match(config)!r}")
    items.extend(_items(session, paths))


def transcript_scope(nodeid: str) -> str:
    """The unit ``-n`` sends to one worker: a replay item's transcript (replayed whole by
    the worker that runs any of its calls), or any other test's own node id."""
    transcript, found, _ = nodeid.partition(f"::{_ITEM_NAME}[")
    return transcript if found else nodeid


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``-n`` with ``--dist load`` (its default), schedule by
    :func:`transcript_scope`, so that no transcript is replayed by two workers."""
    if config.getvalue("dist") != "load" or not _paths(config):
        return None
    return transcript_scheduling(config, log)


def transcript_scheduling(config: pytest.Config, log: Any = None) -> Any:
    """xdist's ``--dist loadscope`` scheduler, scoped by :func:`transcript_scope`."""
    from xdist.scheduler import LoadScopeScheduling

    class TranscriptScheduling(LoadScopeScheduling):  # type: ignore[misc]  # xdist: no types
        """xdist's scope scheduling, by transcript, with bookkeeping linear in the number
        of items: xdist's own looks each item up in a list and, after each item, counts
        every item ever given to the worker (quadratic: seconds for 10 000 calls)."""

        def __init__(self, config: pytest.Config, log: Any = None) -> None:
            super().__init__(config, log)
            self._positions: dict[Any, dict[str, int]] = {}
            self._left: dict[tuple[Any, str], int] = {}

        def _split_scope(self, nodeid: str) -> str:
            return transcript_scope(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            scope, unit = self.workqueue.popitem(last=False)
            self.assigned_work.setdefault(node, {})[scope] = unit
            positions = self._positions.get(node)
            if positions is None:
                collection = self.registered_collections[node]
                positions = self._positions[node] = {
                    nodeid: index for index, nodeid in enumerate(collection)}
            todo = [positions[nodeid] for nodeid, done in unit.items() if not done]
            self._left[node, scope] = len(todo)
            node.send_runtest_some(todo)

        def mark_test_complete(self, node: Any, item_index: int,
                               duration: float = 0) -> None:
            nodeid = self.registered_collections[node][item_index]
            scope = self._split_scope(nodeid)
            workload = self.assigned_work[node]
            unit = workload[scope]
            if not unit[nodeid]:
                unit[nodeid] = True
                self._left[node, scope] -= 1
                if not self._left[node, scope]:  # finished: nothing left to count
                    del workload[scope], self._left[node, scope]
            self._reschedule(node)

    return TranscriptScheduling(config, log)
