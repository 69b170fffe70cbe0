"""``replay.scrubbing``: volatile parts scrubbed from the recorded and today's result alike
turn a mismatch into a match, while a changed non-volatile part still mismatches; what
was scrubbed is reported; ``@tool(volatile=...)`` is read and checked; nothing is
scrubbed, and nothing costs, where results are the same or no scrubber applies."""

from __future__ import annotations

import json
import sys
import uuid

import pytest

from agentforge_cli import ToolService, build_local_tools, tool
from agentforge_cli.replay.compare import MatchMode
from agentforge_cli.replay.report import MATCHED, MISMATCHED, CallReport, call_json
from agentforge_cli.replay.runner import Replayer, replay
from agentforge_cli.replay.scrub_plan import scrubbing_for
from agentforge_cli.replay.scrub_rules import parse_rule
from agentforge_cli.replay.scrubbing import (
    MAX_NOTED,
    Scrubber,
    Scrubbing,
    ScrubSettings,
    with_given,
)
from agentforge_cli.replay.transcripts import ToolCall, ToolResult


def scrubber(*texts: str) -> Scrubber:
    return Scrubber([parse_rule(text) for text in texts])


RECORDED_LOGS = json.dumps({
    "service": "api", "request_id": "5b0e8c1e-3f7a-4c55-9d0e-2f4b8a6c7d10",
    "entries": [{"time": "2026-11-30T09:12:44.031+00:00", "line": "deploy finished"},
                {"time": "2026-11-30T09:12:45.001+00:00", "line": "healthy"}]})
TODAY_LOGS = json.dumps({
    "entries": [{"line": "deploy finished", "time": "2026-12-06T13:44:08.134+00:00"},
                {"line": "healthy", "time": "2026-12-06T13:44:09.000+00:00"}],
    "request_id": "49d1d7c5-81f7-41c5-b31a-42bc0dd7d3be", "service": "api"})


def test_volatile_values_scrubbed_from_both_results_match():
    found = scrubber("timestamps", "uuids").compare(RECORDED_LOGS, TODAY_LOGS)
    assert found.same
    assert found.scrubbed == ("$.request_id (uuids)", "$.entries[0].time (timestamps)",
                              "$.entries[1].time (timestamps)")
    assert json.loads(found.expected)["entries"][0]["time"] == "<timestamp>"


def test_a_changed_non_volatile_value_still_differs():
    changed = TODAY_LOGS.replace('"healthy"', '"unhealthy"')
    found = scrubber("timestamps", "uuids").compare(RECORDED_LOGS, changed)
    assert not found.same
    assert found.scrubbed  # what was scrubbed is still said
    assert '"unhealthy"' in found.actual and "<timestamp>" in found.actual


def test_a_volatile_member_that_disappears_still_differs():
    recorded = '{"operation_id": "op-1", "status": "done"}'
    found = scrubber("$.operation_id").compare(recorded, '{"status": "done"}')
    assert (found.same, found.scrubbed) == (False, ("$.operation_id",))


@pytest.mark.parametrize(("rules", "recorded", "today", "scrubbed"), [
    (["$.created_at"], '{"created_at": 1, "n": 2}', '{"n": 2, "created_at": "now"}',
     ("$.created_at",)),
    (["$..id"], '{"items": [{"id": 1, "v": 1}, {"id": 2, "v": 2}]}',
     '{"items": [{"id": 7, "v": 1}, {"id": 9, "v": 2}]}', ("$.items[0].id", "$.items[1].id")),
    (["$.items[*].updated"], '{"items": [{"updated": "a"}, {"updated": "b"}]}',
     '{"items": [{"updated": "c"}, {"updated": "d"}]}',
     ("$.items[0].updated", "$.items[1].updated")),
    (["$"], '{"a": 1}', '[1, 2]', ("$",)),
    (["re:op-[0-9a-f]+"], "rolled back by op-3f2a", "rolled back by op-77", ("re:op-[0-9a-f]+",)),
    (["re:op-[0-9a-f]+"], '{"log": ["op-3f2a ok"]}', '{"log": ["op-9 ok"]}',
     ("$.log[0] (re:op-[0-9a-f]+)",)),
    (["hex-ids"], "operation 3f2a9c1b started", "operation 77aa01ff started", ("hex-ids",)),
    (["durations"], '{"took_ms": 12, "ok": true}', '{"took_ms": 15.5, "ok": true}',
     ("$.took_ms (durations)",)),
    (["durations"], "finished in 1.2s", "finished in 980ms", ("durations",)),
    (["timestamps"], '{"created": 1764583200}', '{"created": 1765000000}',
     ("$.created (timestamps)",)),
    (["timestamps"], '"2026-11-30T09:12:44Z"', '"2026-12-06T13:44:08Z"', ("timestamps",)),
])
def test_each_kind_of_scrubber_makes_its_volatile_part_match(rules, recorded, today,
                                                             scrubbed):
    found = scrubber(*rules).compare(recorded, today)
    assert (found.same, found.scrubbed) == (True, scrubbed)


def test_numbers_and_key_order_keep_the_json_rule_after_scrubbing():
    found = scrubber("$.at").compare('{"at": 1, "price": 230.40, "ok": true}',
                                     '{"ok": true, "price": 230.4, "at": 2}')
    assert found.same
    assert not scrubber("$.at").compare('{"at": 1, "ok": true}', '{"at": 2, "ok": 1}').same


def test_json_mode_scrubs_a_result_encoded_twice():
    recorded = json.dumps(json.dumps({"id": "a", "v": 1}))
    today = json.dumps({"id": "b", "v": 1})
    assert not scrubber("$.id").compare(recorded, today, MatchMode.EXACT).same
    assert scrubber("$.id").compare(recorded, today, MatchMode.JSON).same


def test_an_outer_place_scrubbed_first_hides_the_places_inside_it():
    found = scrubber("$..a").compare('{"a": {"a": 1}}', '{"a": 5}')
    assert (found.same, found.scrubbed) == (True, ("$.a",))


def test_a_long_list_of_places_is_cut_and_counted():
    recorded = json.dumps([{"id": i} for i in range(MAX_NOTED + 5)])
    today = json.dumps([{"id": -i} for i in range(MAX_NOTED + 5)])
    found = scrubber("$..id").compare(recorded, today)
    assert found.same
    assert len(found.scrubbed) == MAX_NOTED + 1 and found.scrubbed[-1] == "... 5 more"


def test_a_deep_result_is_scrubbed_without_recursion():
    def nested(stamp: str) -> str:
        return "[" * 900 + json.dumps(stamp) + "]" * 900

    limit = sys.getrecursionlimit()
    found = scrubber("timestamps").compare(nested("2026-11-30T09:12:44Z"),
                                           nested("2026-12-06T13:44:08Z"))
    assert found.scrubbed and sys.getrecursionlimit() == limit


# ------------------------------------------------------------------ in the replayer

class Ops:
    """Results whose volatile parts change on every call, as real tools' do."""

    def __init__(self) -> None:
        self.status = "rolled_back"

    @tool(volatile=["$.operation_id", "durations"])
    def rollback(self, version: str) -> str:
        """Roll back."""
        return json.dumps({"operation_id": f"op-{uuid.uuid4().hex[:8]}", "version": version,
                           "status": self.status, "took_ms": 0.5})

    @tool
    def now(self) -> str:
        """A log line."""
        return f"{uuid.uuid4()} listening"


def events(recorded_status: str = "rolled_back"):
    return [
        ToolCall(index=0, id="c0", name="rollback", arguments='{"version": "1.4.1"}'),
        ToolResult(call_index=0, id="c0", is_error=False, content=json.dumps(
            {"operation_id": "op-7c1d9e02", "version": "1.4.1", "status": recorded_status,
             "took_ms": 12.25})),
        ToolCall(index=1, id="c1", name="now", arguments="{}"),
        ToolResult(call_index=1, id="c1", is_error=False,
                   content="5b0e8c1e-3f7a-4c55-9d0e-2f4b8a6c7d10 listening"),
    ]


def ops() -> ToolService:
    return ToolService().tools(build_local_tools([Ops()]))


def test_without_scrubbers_volatile_results_mismatch():
    service = ops()
    assert scrubbing_for(ToolService().tools(build_local_tools([Ops().now])), None) is None
    report = replay(events(), service)
    assert [call.status for call in report.calls] == [MISMATCHED, MISMATCHED]


def test_declared_and_given_scrubbers_turn_volatile_mismatches_into_matches():
    service = ops()
    scrub = scrubbing_for(service, ScrubSettings(every=(parse_rule("uuids"),)))
    report = replay(events(), service, scrub=scrub)
    assert [(c.status, c.scrubbed) for c in report.calls] == [
        (MATCHED, ("$.operation_id", "$.took_ms (durations)")), (MATCHED, ("uuids",))]
    assert not report.failed and report.updates() == {}


def test_a_changed_non_volatile_field_mismatches_with_a_diff_of_what_changed():
    service = ops()
    report = replay(events(recorded_status="done"), service, scrub=scrubbing_for(service, None))
    rollback = report.calls[0]
    assert rollback.status == MISMATCHED
    assert rollback.scrubbed == ("$.operation_id", "$.took_ms (durations)")
    changed = [line for line in rollback.diff if line[:1] in "+-" and line[:3] not in
               ("---", "+++")]
    assert changed == ['-  "status": "done",', '+  "status": "rolled_back",']
    # --update writes today's real result, never the scrubbed one
    text, is_error = report.updates()[0]
    assert is_error is False and "<scrubbed>" not in text and "op-" in text
    assert json.loads(text) == json.loads(rollback.actual)


def test_an_error_flag_that_changed_still_fails_a_scrubbed_result():
    service = ToolService().tools(build_local_tools([Ops().now]))
    report = replay([ToolCall(index=0, id="c", name="now", arguments="{}"),
                     ToolResult(call_index=0, id="c", is_error=True,
                                content="5b0e8c1e-3f7a-4c55-9d0e-2f4b8a6c7d10 listening")],
                    service, scrub=Scrubbing((parse_rule("uuids"),)))
    (call,) = report.calls
    assert (call.status, call.scrubbed) == (MISMATCHED, ("uuids",))
    assert call.diff[0] == "is_error: recorded true, actual false"


def test_an_identical_result_is_not_scrubbed_and_status_mode_never_is():
    service = ToolService().tools(build_local_tools([Ops().now]))
    scrub = Scrubbing((parse_rule("uuids"),))
    same = [ToolCall(index=0, id="c", name="now", arguments="{}")]
    calls = [e for e in Replayer(service, scrub=scrub).run(same) if type(e) is CallReport]
    assert calls[0].scrubbed == ()
    status = replay(events()[2:], service, scrub=scrub, match="status")
    assert [(c.status, c.scrubbed) for c in status.calls] == [(MATCHED, ())]


def test_the_json_entry_of_a_scrubbed_call_is_what_to_dict_encodes():
    service = ops()
    report = replay(events("done"), service, scrub=scrubbing_for(service, None))
    for call in report.calls:
        assert call_json(call) == json.JSONEncoder(ensure_ascii=False).encode(call.to_dict())
    assert report.calls[0].to_dict()["scrubbed"] == ["$.operation_id", "$.took_ms (durations)"]
    assert "scrubbed" not in report.calls[1].to_dict()


def test_the_rules_for_every_tool_and_for_one_tool_add_up():
    scrub = Scrubbing([parse_rule("uuids")], {"a": [parse_rule("$.x")], "b": []})
    a, b, other = scrub.for_tool("a"), scrub.for_tool("b"), scrub.for_tool("zz")
    assert a is not None and a.labels == ("$.x", "uuids")
    assert b is other and b is not None and b.labels == ("uuids",)
    assert Scrubbing().for_tool("a") is None


def test_given_scrubbers_add_to_the_project_and_a_bad_one_names_the_option():
    from agentforge_cli.errors import CommandInputError

    project = ScrubSettings(every=(parse_rule("uuids"),), tools={"t": (parse_rule("$.a"),)})
    added = with_given(project, ["timestamps"])
    assert added is not None
    assert [rule.label for rule in added.every] == ["uuids", "timestamps"]
    assert added.tools == project.tools
    assert with_given(project, []) is project and with_given(None, []) is None
    with pytest.raises(CommandInputError, match=r"--scrub: 're:\(' is not a valid regular"):
        with_given(None, ["re:("])


def test_volatile_must_be_a_list_of_strings():
    with pytest.raises(TypeError, match=r"@tool\(volatile=\.\.\.\) must be a list"):
        tool(volatile="timestamps")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be a list"):
        tool(volatile=["timestamps", ""])
