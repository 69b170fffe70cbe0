"""``agentforge_cli.replay``: result comparison, the replay engine and its report (no CLI)."""

from __future__ import annotations

from typing import Annotated

import pytest
from cli_support import TRANSCRIPTS

from agentforge_cli import P, ToolService, build_local_tools, tool
from agentforge_cli.replay.compare import result_diff, same_result
from agentforge_cli.replay.report import DRIFTED, MATCHED, MISMATCHED, UNRECORDED, CallReport
from agentforge_cli.replay.runner import Replayer, replay
from agentforge_cli.replay.transcripts import (
    AssistantMessage,
    ToolCall,
    ToolResult,
    UserMessage,
    open_transcript,
)
from agentforge_cli.replay.transcripts.place import WHOLE_FILE
from sample_tools.crm import CrmTools


@pytest.mark.parametrize(("expected", "actual", "same"), [
    ("customer:长路,limit:5", "customer:长路,limit:5", True),
    ("customer:长路,limit:5", "customer:长路,limit:6", False),
    ('{"a":1,"b":[1,2]}', '{"b": [1, 2], "a": 1}', True),
    ("5", "5.0", True),
    ("1e2", "100", True),
    ("0.1", "0.10", True),
    ("0.1000000000000000001", "0.1", False),
    ("true", "1", False),
    ("1", "true", False),
    ('{"ok":true}', '{"ok":1}', False),
    ("[1,2]", "[2,1]", False),
    ("null", "null", True),
    ('"x"', "x", False),
    (' {"a":1}\n', '{"a":1}', True),
    ("NaN", "NaN", True),
    ('{"a":1}', '{"a":1,"b":null}', False),
])
def test_same_result(expected, actual, same):
    assert same_result(expected, actual) is same


def test_result_diff_forms():
    assert result_diff("a", "b") == ["- recorded: a", "+ actual:   b"]
    assert result_diff("x", "x", False, True) == ["is_error: recorded false, actual true"]
    lines = result_diff('{"a":1,"b":2}', '{"b":3,"a":1}')
    assert "-  \"b\": 2" in lines and "+  \"b\": 3" in lines
    assert result_diff("{}", "{ }") == []


def service() -> ToolService:
    return ToolService().tools(build_local_tools([CrmTools()]))


def call(index, arguments='{"name":"长路","limit":5}', call_id=None):
    return ToolCall(index=index, id=call_id or f"c{index}", name="queryCustomer",
                    arguments=arguments)


def test_statuses_and_is_error_rules():
    events = [
        UserMessage(content="q"),
        call(0),
        ToolResult(call_index=0, id="c0", content="customer:长路,limit:5", is_error=None),
        call(1, '{"name":"长路","limit":5.5}'),  # refused today, and when it was recorded
        ToolResult(call_index=1, id="c1", content='Argument "limit" has non-integer value '
                   'for int: <5.5> (tool "queryCustomer")', is_error=True),
        call(2),
        ToolResult(call_index=2, id="c2", content="customer:长路,limit:5", is_error=True),
        call(3),
        AssistantMessage(content="done"),
    ]
    report = replay(events, service())
    assert [c.status for c in report.calls] == [MATCHED, MATCHED, MISMATCHED, UNRECORDED]
    assert report.summary == {MATCHED: 2, MISMATCHED: 1, UNRECORDED: 1}
    assert report.failed
    assert report.updates() == {2: ("customer:长路,limit:5", False),
                                3: ("customer:长路,limit:5", False)}
    assert report.calls[0].invocation == 'CrmTools.queryCustomer("长路", 5)'
    assert report.calls[1].invocation is None
    data = report.to_dict()
    assert set(data) == {"summary", "calls", "match"}
    assert set(data["calls"][0]) >= {"id", "name", "status", "expected", "actual"}


def test_entries_come_out_in_transcript_order_once_settled():
    replayer = Replayer(service(), describe=False)
    replayer.feed(call(0))
    replayer.feed(UserMessage(content="between"))
    assert list(replayer._drain()) == []  # the call is not settled yet
    replayer.feed(ToolResult(call_index=0, id="c0", content="customer:长路,limit:5",
                             is_error=False))
    out = list(replayer._drain())
    assert [type(e) for e in out] == [CallReport, UserMessage]
    assert out[0].status == MATCHED and out[0].invocation is None
    assert replayer.summary[MATCHED] == 1 and not replayer.failed


def test_replay_a_sample_file():
    transcript = open_transcript(TRANSCRIPTS / "crm_mismatch.jsonl")
    report = replay(transcript.events(), service())
    assert report.summary == {MATCHED: 1, MISMATCHED: 1, UNRECORDED: 1}
    assert report.calls[1].diff == ["- recorded: customer:小明,limit:30",
                                    "+ actual:   customer:小明,limit:3"]


def test_replaying_returns_data_and_prints_nothing(capsys):
    transcript = open_transcript(TRANSCRIPTS / "crm_mismatch.jsonl")
    report = replay(transcript.events(), service())
    assert capsys.readouterr() == ("", "")
    assert [c.needs_update for c in report.calls] == [False, True, True]
    assert report.to_dict()["summary"] == report.summary


@tool
def unlock(door: str, pin: Annotated[str, P(sensitive=True)]) -> str:
    """Open a door."""
    return "opened"


def test_reports_show_arguments_masked_even_undescribed_and_for_unknown_tools():
    vault = ToolService().tools(build_local_tools([unlock]))
    arguments = '{"door":"front","pin":"40417731","api_token":"t"}'
    events = [ToolCall(index=0, id="a", name="unlock", arguments=arguments),
              ToolCall(index=1, id="b", name="old_unlock", arguments=arguments)]
    shown = '{"door":"front","pin":"***","api_token":"***"}'
    replayer = Replayer(vault, describe=False)  # what --json runs
    calls = list(replayer.run(events))
    assert [c.to_dict()["arguments"] for c in calls] == [shown, shown]
    # a report built without shown arguments still masks what is named like a secret
    bare = CallReport(index=0, id=None, name="x", arguments=arguments, where=WHOLE_FILE,
                      actual="", is_error=False, duration_ms=0)
    assert bare.to_dict()["arguments"] == '{"door":"front","pin":"40417731","api_token":"***"}'


@pytest.mark.parametrize(("expected", "actual", "match", "same"), [
    ('{"a": 1}', '{"a":1}', "exact", True),
    ('"{\\"a\\": 1}"', '{"a":1}', "exact", False),  # a JSON string is not the object
    ('"{\\"a\\": 1}"', '{"a":1}', "json", True),    # ... unless encoded twice is allowed
    ('{"a":1}', '"{\\"a\\":2}"', "json", False),
    ('"x"', "x", "json", False),
    ("ok", "different words", "status", True),
])
def test_match_modes(expected, actual, match, same):
    assert same_result(expected, actual, match) is same


def test_status_mode_compares_only_success_against_error():
    events = [
        call(0), ToolResult(call_index=0, id="c0", content="other wording", is_error=False),
        call(1), ToolResult(call_index=1, id="c1", content="ok", is_error=True),
        call(2), ToolResult(call_index=2, id="c2", content="no flag recorded", is_error=None),
    ]
    report = replay(events, service(), match="status")
    assert [c.status for c in report.calls] == [MATCHED, MISMATCHED, MATCHED]
    assert report.calls[1].diff == ["status: recorded error, actual success"]
    assert report.to_dict()["match"] == "status"
    exact = replay(events, service())
    assert [c.status for c in exact.calls] == [MISMATCHED, MISMATCHED, MISMATCHED]


def test_an_unknown_match_mode_is_refused():
    with pytest.raises(ValueError, match="exact, json, status"):
        Replayer(service(), match="fuzzy")


def test_run_settles_calls_at_their_result_line_or_after_waiting(tmp_path):
    """``run`` gives each call in order, whether it settles at its result line (a match
    taken without comparing twice) or waits; each one's ``replay --json`` entry is its
    dictionary encoded."""
    import json
    import re

    from agentforge_cli.replay.report import call_json

    def result(call_id, limit, is_error=False):
        return {"type": "tool_result", "id": call_id,
                "content": f"customer:长路,limit:{limit}", "is_error": is_error}

    lines = [{"type": "user", "content": "hi"}]
    for i, limit in enumerate([1, 2, 3]):
        lines.append({"type": "tool_call", "id": f"a{i}", "name": "queryCustomer",
                      "arguments": json.dumps({"name": "长路", "limit": limit})})
    lines += [result("a1", 2), result("a0", 1), result("a2", 9)]  # out of order, one differs
    lines.append({"type": "tool_call", "id": "b", "name": "queryCustomer",
                  "arguments": '{"name": "长路", "limit": 4}'})
    lines.append(result("b", 4, is_error=True))  # the text matches, the flag does not
    lines.append({"type": "tool_call", "name": "queryCustomer", "arguments": "{}"})  # drifted
    lines.append({"type": "tool_call", "id": "c", "name": "queryCustomer",
                  "arguments": '{"name": "长路", "limit": 5}'})
    lines.append(result("c", 5))  # settled at once, behind the call without a result
    lines.append({"type": "tool_call", "id": "d", "name": "queryCustomer",
                  "arguments": '{"name": "长路", "limit": 6}'})  # never answered
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False, separators=(",", ":"))
                            + "\n" for line in lines), encoding="utf-8")

    def timeless(text: str) -> str:
        return re.sub(r'"duration_ms": [0-9.e-]+', '"duration_ms": T', text)

    replayer = Replayer(service(), describe=False)
    calls = [entry for entry in replayer.run(open_transcript(path).events())
             if isinstance(entry, CallReport)]
    assert [timeless(call_json(call)) for call in calls] == [
        timeless(json.dumps(call.to_dict(), ensure_ascii=False)) for call in calls]
    assert [call.status for call in calls] == [
        MATCHED, MATCHED, MISMATCHED, MISMATCHED, DRIFTED, MATCHED, UNRECORDED]
    assert [call.id for call in calls] == ["a0", "a1", "a2", "b", None, "c", "d"]
    assert replayer.summary == {MATCHED: 3, MISMATCHED: 2, UNRECORDED: 1, DRIFTED: 1}


def test_a_call_whose_id_is_still_waiting_is_refused_before_it_runs(tmp_path):
    import json

    from agentforge_cli.replay.transcripts.errors import TranscriptError

    ran = []

    @tool
    def note(text: str) -> str:
        """Remember a text."""
        ran.append(text)
        return "ok"

    lines = [{"type": "tool_call", "id": "c1", "name": "note", "arguments": '{"text": "a"}'},
             {"type": "tool_call", "id": "c1", "name": "note", "arguments": '{"text": "b"}'},
             {"type": "tool_result", "id": "c1", "content": "ok", "is_error": False}]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    replayer = Replayer(ToolService().tools(build_local_tools([note])))
    with pytest.raises(TranscriptError, match="line 2: tool call id 'c1' is used twice"):
        list(replayer.run(open_transcript(path).events()))
    assert ran == ["a"]  # the refused call never ran


def test_a_call_read_before_a_failed_read_is_reported_before_the_error(tmp_path):
    """The call on the last line read before the file fails to decode ran: ``run``
    yields it, unrecorded (no result was read), before raising (it held the call it
    read last for one event, out of the queue)."""
    import json

    from agentforge_cli.replay.transcripts.errors import TranscriptError

    call_line = json.dumps({"type": "tool_call", "id": "c1", "name": "queryCustomer",
                            "arguments": '{"name": "x", "limit": 1}'}) + "\n"
    user = json.dumps({"type": "user", "content": "y" * 980}) + "\n"
    room = (1 << 20) - 10 - len(call_line)  # the call ends just before the first MiB
    head = user * (room // len(user) - 1)
    rest = room - len(head) - len(json.dumps({"type": "user", "content": ""}) + "\n")
    head += json.dumps({"type": "user", "content": "z" * rest}) + "\n"
    assert len(head.encode()) == room
    path = tmp_path / "t.jsonl"
    path.write_bytes((head + call_line).encode() + b'{"type": "user", "content": "\xff"}\n'
                     + b"x" * 64 + b"\n")
    replayer = Replayer(service(), describe=False)
    entries = []
    with pytest.raises(TranscriptError, match="not UTF-8"):
        entries.extend(replayer.run(open_transcript(path).events()))
    calls = [entry for entry in entries if isinstance(entry, CallReport)]
    assert [(call.id, call.status) for call in calls] == [("c1", UNRECORDED)]
    assert replayer.summary[UNRECORDED] == 1
    assert list(replayer.close()) == []  # nothing left open
