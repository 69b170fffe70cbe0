"""``ReplaySession``: transcripts replayed one after the other as outcome values and a total;
a folder and the files in it give the same outcomes, an unreadable file is an outcome
(the next one still runs), and entries reach what watches each transcript as they
settle."""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_support import TRANSCRIPTS

from agentforge_cli import ToolService, build_local_tools
from agentforge_cli.replay.report import (
    DRIFTED,
    MATCHED,
    MISMATCHED,
    UNRECORDED,
    CallReport,
)
from agentforge_cli.replay.session import ReplaySession, SessionOptions, TranscriptOutcome
from agentforge_cli.replay.transcripts.errors import TranscriptError
from agentforge_cli.replay.transcripts.files.collect import collect_transcripts
from sample_tools.crm import CrmTools


@dataclass
class _Tools:
    service: ToolService
    fresh: None = None


def _tools() -> _Tools:
    return _Tools(ToolService().tools(build_local_tools([CrmTools()])))


def _values(outcome: TranscriptOutcome) -> tuple:
    """What an outcome says, with the transcript's name and the error's text."""
    return (Path(outcome.given).name, outcome.format, outcome.summary, outcome.failed,
            outcome.drift_failed, outcome.fails, outcome.empty is not None,
            None if outcome.unreadable is None else type(outcome.unreadable).__name__)


@pytest.fixture
def recordings(tmp_path: Path) -> Path:
    """A match, a mismatch and a file no format reads."""
    root = tmp_path / "recordings"
    root.mkdir()
    shutil.copy(TRANSCRIPTS / "crm.jsonl", root / "a_crm.jsonl")
    shutil.copy(TRANSCRIPTS / "crm_mismatch.jsonl", root / "b_mismatch.jsonl")
    (root / "c_broken.jsonl").write_text('{"type": "tool_call", "id"\n', encoding="utf-8")
    return root


def test_a_folder_and_its_files_give_the_same_outcomes(recordings):
    folder, _ = collect_transcripts([str(recordings)])
    as_folder = [_values(o) for o in ReplaySession(folder, _tools).outcomes()]
    one_by_one = [_values(o) for path in sorted(recordings.iterdir())
                  for o in ReplaySession([str(path)], _tools).outcomes()]
    assert as_folder == one_by_one
    assert [values[0] for values in as_folder] == ["a_crm.jsonl", "b_mismatch.jsonl",
                                                   "c_broken.jsonl"]
    assert [values[5] for values in as_folder] == [False, True, True]  # fails


def test_an_unreadable_file_is_an_outcome_and_the_next_one_runs(recordings, tmp_path):
    missing = str(tmp_path / "missing.jsonl")
    paths = [missing, str(recordings / "c_broken.jsonl"), str(recordings / "a_crm.jsonl")]
    session = ReplaySession(paths, _tools)
    outcomes = list(session.outcomes())
    assert all(isinstance(o.unreadable, TranscriptError) for o in outcomes[:2])
    assert outcomes[0].path is None and outcomes[0].summary == {}
    assert outcomes[2].unreadable is None and not outcomes[2].fails
    assert outcomes[2].summary[MATCHED] > 0


def test_the_total_counts_the_calls_of_the_transcripts_read(recordings):
    folder, _ = collect_transcripts([str(recordings)])
    session = ReplaySession(folder, _tools)
    outcomes = list(session.outcomes())
    read = [o for o in outcomes if o.unreadable is None]
    total = session.total
    assert total.transcripts == 3 and total.failed_transcripts == 2
    for status in (MATCHED, MISMATCHED, UNRECORDED):
        assert total.summary[status] == sum(o.summary[status] for o in read)
    assert total.summary[MISMATCHED] > 0
    assert total.failed(allow_drift=False, update=False)
    assert not total.failed(allow_drift=False, update=True)  # --update writes today's
    assert DRIFTED not in total.summary


def test_a_transcript_without_a_call_fails_unless_allowed(tmp_path):
    path = tmp_path / "talk.jsonl"
    path.write_text('{"type": "user", "content": "hi"}\n', encoding="utf-8")
    (strict,) = ReplaySession([str(path)], _tools).outcomes()
    assert strict.empty == f"no tool calls found in {path} (read as agentforge)"
    assert strict.fails
    (allowed,) = ReplaySession([str(path)], _tools,
                               SessionOptions(allow_empty=True)).outcomes()
    assert allowed.empty is None and not allowed.fails


def test_entries_reach_the_watch_as_they_settle_and_the_tools_load_once(recordings):
    loads, seen, ticks, ended = [], [], [], []

    def tools() -> _Tools:
        loads.append(1)
        return _tools()

    @contextlib.contextmanager
    def watch(given, opened):
        seen.append((Path(given).name, []))
        yield seen[-1][1].append, ticks.append
        ended.append(Path(given).name)

    paths = [str(recordings / name) for name in ("a_crm.jsonl", "c_broken.jsonl",
                                                  "b_mismatch.jsonl")]
    outcomes = list(ReplaySession(paths, tools).outcomes(watch))
    assert len(loads) == 1
    assert [name for name, _ in seen] == ["a_crm.jsonl", "b_mismatch.jsonl"]  # opened
    assert ended == ["a_crm.jsonl", "b_mismatch.jsonl"]
    for (_, entries), outcome in zip(seen, [outcomes[0], outcomes[2]], strict=True):
        calls = [entry for entry in entries if isinstance(entry, CallReport)]
        assert len(calls) == sum(outcome.summary.values())
    assert ticks  # each event read was told


_CALL = ('{"type": "tool_call", "id": "%s", "name": "queryCustomer", '
         '"arguments": "{\\"name\\": \\"x\\", \\"limit\\": 1}"}\n')


def test_a_file_unreadable_part_way_reports_every_call_that_ran(tmp_path):
    """The calls before the bad line ran: each reaches the watch (the one whose result
    was never read as unrecorded), the watch ends, and the outcome and the total count
    them."""
    path = tmp_path / "cut.jsonl"
    path.write_text(_CALL % "a"
                    + '{"type": "tool_result", "id": "a", "content": "x", "is_error": false}\n'
                    + _CALL % "b" + "not json\n", encoding="utf-8")
    entries, ended = [], []

    @contextlib.contextmanager
    def watch(given, opened):
        yield entries.append, None
        ended.append(given)

    session = ReplaySession([str(path)], _tools)
    (outcome,) = session.outcomes(watch)
    assert isinstance(outcome.unreadable, TranscriptError)
    assert "line 4" in str(outcome.unreadable)
    calls = [entry for entry in entries if isinstance(entry, CallReport)]
    assert [(call.id, call.status) for call in calls] == [("a", "mismatched"),
                                                          ("b", "unrecorded")]
    assert ended == [str(path)] and outcome.fails
    assert outcome.summary == {"matched": 0, "mismatched": 1, "unrecorded": 1}
    assert session.total.summary["unrecorded"] == 1 and session.total.failed_transcripts == 1


def test_a_file_unreadable_part_way_is_not_updated(tmp_path):
    path = tmp_path / "cut.jsonl"
    text = _CALL % "a" + "not json\n"
    path.write_text(text, encoding="utf-8")
    options = SessionOptions(update=True)
    (outcome,) = ReplaySession([str(path)], _tools, options).outcomes()
    assert outcome.unreadable is not None and outcome.updated is None
    assert outcome.summary["unrecorded"] == 1
    assert path.read_text(encoding="utf-8") == text
