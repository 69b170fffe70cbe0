"""The runner's side of fresh tools per conversation: with ``fresh``, each conversation's
calls run on a service of its own, made at its first call; a ``ConversationStart`` that
is not ``alongside`` drops every earlier conversation's service; without ``fresh`` every
call runs on the one service. ``ConversationStart`` entries reach the trace (a thin
line), and ``--json``, JUnit and ``--update`` are unaffected."""

from __future__ import annotations

import gc
import json
import weakref
from typing import Annotated

from cli_support import CRM, TRANSCRIPTS

from agentforge_cli import P, ToolService, build_local_tools, tool
from agentforge_cli.replay.report import MATCHED, MISMATCHED, CallReport
from agentforge_cli.replay.runner import Replayer
from agentforge_cli.replay.transcripts import ConversationStart, ToolCall, ToolResult
from agentforge_cli.replay.transcripts.place import Place


class Counter:
    """A tool with state: each call answers how many calls this instance has seen."""

    def __init__(self) -> None:
        self.seen = 0

    @tool
    def bump(self) -> int:
        """Count a call."""
        self.seen += 1
        return self.seen


class Maker:
    """``fresh``: a new service around a new :class:`Counter` each time, every one kept
    by a weak reference."""

    def __init__(self) -> None:
        self.made: list[weakref.ref] = []

    def __call__(self) -> ToolService:
        service = ToolService().tools(build_local_tools([Counter()]))
        self.made.append(weakref.ref(service))
        return service

    def alive(self) -> int:
        gc.collect()
        return sum(ref() is not None for ref in self.made)


def _call(index: int, conversation: int) -> ToolCall:
    return ToolCall(index=index, id=f"c{index}", name="bump", arguments="{}",
                    conversation=conversation, where=Place(index + 1))


def _result(index: int, count: int) -> ToolResult:
    return ToolResult(call_index=index, id=f"c{index}", content=str(count), is_error=False)


def _statuses(entries) -> list[str]:
    return [entry.status for entry in entries if isinstance(entry, CallReport)]


def test_each_conversation_runs_on_tools_of_its_own():
    maker = Maker()
    shared = ToolService().tools(build_local_tools([Counter()]))
    events = [ConversationStart(conversation=1, where=Place(1)),
              _call(0, 1), _result(0, 1), _call(1, 1), _result(1, 2),
              ConversationStart(conversation=2, where=Place(5)),
              _call(2, 2), _result(2, 1)]  # 1 again: a new Counter
    replayer = Replayer(shared, fresh=maker)
    entries = list(replayer.run(events))
    assert _statuses(entries) == [MATCHED, MATCHED, MATCHED]
    assert len(maker.made) == 2  # one per conversation, made at its first call
    assert shared.execute(_request()).text == "1"  # the given service was never called
    assert [type(e).__name__ for e in entries] == [
        "ConversationStart", "CallReport", "CallReport", "ConversationStart", "CallReport"]
    # without fresh: everything on the one service, its state carried over
    plain = list(Replayer(ToolService().tools(build_local_tools([Counter()]))).run(events))
    assert _statuses(plain) == [MATCHED, MATCHED, MISMATCHED]


def _request():
    from agentforge_cli.core.define.spec import ToolExecutionRequest

    return ToolExecutionRequest(name="bump", arguments="{}")


def test_a_file_of_one_conversation_gets_one_fresh_service():
    maker = Maker()
    entries = list(Replayer(ToolService(), fresh=maker).run(
        [_call(0, 0), _result(0, 1), _call(1, 0), _result(1, 2)]))
    assert _statuses(entries) == [MATCHED, MATCHED] and len(maker.made) == 1


def test_a_conversation_with_no_call_makes_no_service():
    maker = Maker()
    list(Replayer(ToolService(), fresh=maker).run(
        [ConversationStart(conversation=1), ConversationStart(conversation=2),
         _call(0, 2), _result(0, 1)]))
    assert len(maker.made) == 1


def test_ended_conversations_release_their_services():
    """200 trajectories one after the other hold one service at a time, not 200."""
    maker = Maker()
    replayer = Replayer(ToolService(), fresh=maker, describe=False)
    events = []
    for number in range(1, 201):
        events += [ConversationStart(conversation=number, where=Place(number)),
                   _call(2 * number, number), _result(2 * number, 1),
                   _call(2 * number + 1, number), _result(2 * number + 1, 2)]
    held = []
    for _ in replayer.run(iter(events)):
        held.append(replayer.services)
    assert len(maker.made) == 200 and max(held) == 1
    assert maker.alive() <= 1
    assert replayer.summary[MATCHED] == 400


def test_conversations_alongside_keep_their_services():
    """A cassette's conversations interleave: each call goes to its own conversation's
    service, and none is dropped while they may go on."""
    maker = Maker()
    events = [ConversationStart(conversation=1), _call(0, 1), _result(0, 1),
              ConversationStart(conversation=2, alongside=True), _call(1, 2), _result(1, 1),
              _call(2, 1), _result(2, 2), _call(3, 2), _result(3, 2),
              ConversationStart(conversation=3, alongside=True), _call(4, 3),
              _result(4, 1), _call(5, 1), _result(5, 3)]
    replayer = Replayer(ToolService(), fresh=maker)
    assert _statuses(replayer.run(events)) == [MATCHED] * 6
    assert len(maker.made) == 3 and replayer.services == 3 and maker.alive() == 3
    after = [ConversationStart(conversation=4), _call(6, 4), _result(6, 1)]
    assert _statuses(replayer.run(after)) == [MATCHED]
    assert replayer.services == 1 and maker.alive() == 1


@tool
def unlock(door: str, pin: Annotated[str, P(sensitive=True)]) -> str:
    """Open a door."""
    return "opened " + door


def test_conversations_alongside_hold_a_bounded_number_of_services(monkeypatch):
    """Thousands of a cassette's conversations do not keep thousands of tools: the least
    recently used gives its tools up, and starts afresh if it goes on."""
    from agentforge_cli.replay import runner

    monkeypatch.setattr(runner, "ALONGSIDE_SERVICES", 3)
    maker = Maker()
    events = [_call(0, 0), _result(0, 1)]
    for number in range(1, 5):
        events += [ConversationStart(conversation=number, alongside=True),
                   _call(number, number), _result(number, 1)]
    events += [_call(5, 2), _result(5, 2),  # held: it goes on with its own tools
               _call(6, 0), _result(6, 2)]  # given up: afresh, so 1, not the recorded 2
    replayer = Replayer(ToolService(), fresh=maker)
    assert _statuses(replayer.run(events)) == [MATCHED] * 6 + [MISMATCHED]
    assert replayer.services == 3 and maker.alive() == 3 and len(maker.made) == 6


def test_secrets_and_drift_are_read_from_each_conversations_tools():
    def fresh() -> ToolService:
        return ToolService().tools(build_local_tools([unlock]))

    events = [ConversationStart(conversation=1),
              ToolCall(index=0, id="a", name="unlock", conversation=1,
                       arguments='{"door": "front", "pin": "1234"}'),
              ToolCall(index=1, id="b", name="unlock", conversation=1,
                       arguments='{"door": "front", "code": "1234"}')]
    calls = [e for e in Replayer(ToolService(), fresh=fresh).run(events)
             if isinstance(e, CallReport)]
    assert calls[0].shown_arguments == '{"door":"front","pin":"***"}'
    assert calls[1].status == "drifted" and '"code" was recorded' in calls[1].drift


# -- the command line: a file of several conversations -----------------------------------


def test_the_trace_draws_a_line_between_conversations(cli):
    result = cli("replay", str(TRANSCRIPTS / "crm_conversations.jsonl"), "-t", CRM)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "          ── conversation 1 (line 1)" in lines
    second = lines.index("          ── conversation 2 (line 2)")
    assert lines[second - 1].startswith("[final]")  # the first conversation's answer
    assert lines[second + 1].startswith("[user]")


def test_json_junit_and_update_see_only_calls(cli, tmp_path):
    path = tmp_path / "many.jsonl"
    text = (TRANSCRIPTS / "crm_conversations.jsonl").read_text(encoding="utf-8")
    path.write_text(text.replace("customer:小明,limit:3", "customer:小明,limit:30"),
                    encoding="utf-8")
    junit = tmp_path / "report.xml"
    result = cli("replay", str(path), "-t", CRM, "--json", "--junit", str(junit))
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert [call["status"] for call in document["calls"]] == ["matched", "mismatched"]
    assert junit.read_text(encoding="utf-8").count("<testcase ") == 2
    updated = cli("replay", str(path), "-t", CRM, "--update")
    assert updated.exit_code == 0
    assert path.read_text(encoding="utf-8") == text
