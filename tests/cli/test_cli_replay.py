"""``agentforge replay`` driven through CliRunner: every format, statuses, reports, update."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cli_support import CRM, ROOT, TRANSCRIPTS

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.replay.transcripts import TranscriptFormat, open_transcript, registry

CRM_TRACE = [
    '[user]    查一下客户"长路"的信息',
    "[think]   call queryCustomer",
    '[act]     queryCustomer {"name":"长路","limit":5}',
    '[reflect] CrmTools.queryCustomer("长路", 5) → customer:长路,limit:5  ✓ matched',
    "[final]   已查询到客户长路。",
]

COUNTING_TOOLS = """
    from agentforge_cli import tool

    CALLS = []

    @tool
    def count(n: int) -> str:
        \"\"\"Records each call.\"\"\"
        CALLS.append(n)
        return f"n={n}"
"""


@pytest.mark.parametrize("name", ["crm.jsonl", "crm_openai.json", "crm_anthropic.json"])
def test_each_format_replays_the_same_trace(cli, name):
    result = cli("replay", str(TRANSCRIPTS / name), "-t", CRM)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:5] == CRM_TRACE
    assert "matched           1" in lines
    assert "✓ 1 call replayed, no result differs" in lines
    assert result.stderr == ""


def test_json_compare_ignores_key_order_and_number_form(cli):
    result = cli("replay", str(TRANSCRIPTS / "shop.jsonl"), "-t", "sample_tools.shop")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.count("✓ matched") == 3


def test_mismatch_exits_1_with_a_diff(cli):
    result = cli("replay", str(TRANSCRIPTS / "crm_mismatch.jsonl"), "-t", CRM)
    assert result.exit_code == 1
    out = result.stdout
    assert "✗ mismatched" in out
    assert "- recorded: customer:小明,limit:30" in out
    assert "+ actual:   customer:小明,limit:3" in out
    assert "• unrecorded" in out
    assert "✗ 1 of 3 calls differs from the recording" in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_json_report_shape(cli):
    result = cli("replay", str(TRANSCRIPTS / "crm_mismatch.jsonl"), "-t", CRM, "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["summary"] == {"matched": 1, "mismatched": 1, "unrecorded": 1}
    assert [c["status"] for c in data["calls"]] == ["matched", "mismatched", "unrecorded"]
    expected = {"id": "call_2", "name": "queryCustomer", "status": "mismatched",
                "expected": "customer:小明,limit:30", "actual": "customer:小明,limit:3"}
    assert data["calls"][1].items() >= expected.items()
    assert data["calls"][2]["expected"] is None
    assert data["format"] == "agentforge"


WRAPPED_TURNS = (  # a chat log wrapping each turn in "message", no session ids
    '{"type":"user","message":{"role":"user","content":"look up 长路"},"turn":"u1"}\n'
    '{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use",'
    '"id":"t1","name":"queryCustomer","input":{"name":"长路","limit":5}}]},"turn":"u2"}\n')
UNKNOWN_TURNS = json.dumps({"turns": [  # a format nobody reads
    {"speaker": "user", "says": "look up 长路"},
    {"speaker": "bot", "calls": {"queryCustomer": {"name": "长路", "limit": 5}}}]},
    ensure_ascii=False)


@pytest.mark.parametrize(("name", "text", "where"), [
    ("session.jsonl", WRAPPED_TURNS, "line 1"),
    ("turns.json", UNKNOWN_TURNS, "line 1"),
    ("turns.json", json.dumps(json.loads(UNKNOWN_TURNS)["turns"]), "messages[0]"),
    ("turns_pretty.json", json.dumps(json.loads(UNKNOWN_TURNS), indent=2), ""),
])
def test_a_file_in_no_known_format_exits_2_naming_the_formats_tried(cli, tmp_path, name,
                                                                     text, where):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    report = tmp_path / "r.xml"
    result = cli("replay", str(path), "-t", CRM, "--junit", str(report))
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stdout == ""
    location = f"{path}, {where}" if where else str(path)
    assert f"error: cannot read transcript {location}: not a known transcript format" in (
        " ".join(result.stderr.split()))
    from agentforge_cli.replay.transcripts import registry

    tried = ", ".join(fmt.title for fmt in registry.transcript_formats())
    assert f"formats tried: {tried}" in " ".join(result.stderr.split())  # every one, in order
    assert "unknown role" not in result.stderr
    assert not report.exists()


def test_a_session_log_line_inside_an_agentforge_file_is_refused_by_line(cli, tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"type":"user","content":"hi"}\n' + WRAPPED_TURNS, encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM)
    assert result.exit_code == 3
    assert f'{path}, line 2: a "user" line needs "content"' in " ".join(result.stderr.split())


@pytest.mark.parametrize("options", [(), ("--json",), ("--update",)])
def test_a_transcript_without_tool_calls_is_not_a_pass(cli, tmp_path, options):
    path = tmp_path / "talk.jsonl"
    path.write_text('{"type":"user","content":"hi"}\n', encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM, *options)
    assert result.exit_code == 1
    assert f"error: no tool calls found in {path} (read as agentforge)" in " ".join(
        result.stderr.split())
    assert "--allow-empty" in result.stderr
    assert "replayed" not in result.stdout
    if options == ("--json",):
        assert json.loads(result.stdout)["calls"] == []


@pytest.mark.parametrize("options", [(), ("--json",)])
def test_allow_empty_accepts_a_transcript_without_tool_calls(cli, tmp_path, options):
    path = tmp_path / "talk.jsonl"
    path.write_text('{"type":"user","content":"hi"}\n', encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM, "--allow-empty", *options)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    if options:
        assert json.loads(result.stdout)["calls"] == []
    else:
        assert "✓ 0 calls replayed, no result differs" in result.stdout


def test_junit_of_a_transcript_without_tool_calls_fails_unless_allowed(cli, tmp_path):
    path = tmp_path / "talk.jsonl"
    path.write_text('{"type":"user","content":"hi"}\n', encoding="utf-8")
    report = tmp_path / "r.xml"
    assert cli("replay", str(path), "-t", CRM, "--junit", str(report)).exit_code == 1
    suite = ElementTree.parse(report).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("1", "1")
    (case,) = suite.findall("testcase")
    assert case.get("name") == "no tool calls"
    assert f"no tool calls found in {path} (read as agentforge)" in case.find(
        "failure").get("message")

    assert cli("replay", str(path), "-t", CRM, "--junit", str(report),
               "--allow-empty").exit_code == 0
    suite = ElementTree.parse(report).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("0", "0")


def test_junit_report(cli, tmp_path):
    report = tmp_path / "replay.xml"
    result = cli("replay", str(TRANSCRIPTS / "crm_mismatch.jsonl"), "-t", CRM,
                 "--junit", str(report))
    assert result.exit_code == 1
    suite = ElementTree.parse(report).getroot().find("testsuite")
    assert suite.get("tests") == "3"
    assert suite.get("failures") == "1"
    assert suite.get("skipped") == "1"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["call_1 queryCustomer", "call_2 queryCustomer",
                                              "#3 queryCustomer"]
    assert "limit:30" in cases[1].find("failure").text
    assert not list(tmp_path.glob(".*.tmp"))


def test_junit_creates_missing_directories(cli, tmp_path):
    report = tmp_path / "reports" / "ci" / "r.xml"
    result = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM, "--junit", str(report))
    assert result.exit_code == 0, result.stderr
    assert ElementTree.parse(report).getroot().find("testsuite").get("tests") == "1"


def test_junit_where_a_file_blocks_the_directory_is_a_usage_error(cli, tmp_path):
    (tmp_path / "reports").write_text("", encoding="utf-8")
    result = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM,
                 "--junit", str(tmp_path / "reports" / "r.xml"))
    assert result.exit_code == 2
    assert "cannot write the JUnit report" in result.stderr
    assert f"{tmp_path / 'reports'} is a file" in " ".join(result.stderr.split())


@pytest.mark.parametrize("name", ["crm_mismatch.jsonl", "crm_openai.json",
                                  "crm_anthropic.json"])
def test_update_records_results_then_replays_clean(cli, tmp_path, name):
    path = tmp_path / name
    shutil.copy(TRANSCRIPTS / name, path)
    result = cli("replay", str(path), "-t", CRM, "--update")
    assert result.exit_code == 0
    assert "in the transcript" in result.stdout
    again = cli("replay", str(path), "-t", CRM, "--json")
    assert again.exit_code == 0
    summary = json.loads(again.stdout)["summary"]
    assert summary["mismatched"] == 0 and summary["unrecorded"] == 0


def test_update_keeps_unchanged_lines_byte_for_byte(cli, tmp_path):
    path = tmp_path / "t.jsonl"
    shutil.copy(TRANSCRIPTS / "crm_mismatch.jsonl", path)
    before = path.read_text(encoding="utf-8").splitlines()
    cli("replay", str(path), "-t", CRM, "--update")
    after = path.read_text(encoding="utf-8").splitlines()
    assert after[:4] == before[:4]
    assert json.loads(after[4]) == {"type": "tool_result", "id": "call_2",
                                    "content": "customer:小明,limit:3", "is_error": False}
    assert after[5] == before[5]
    assert json.loads(after[6]) == {"type": "tool_result", "content": "customer:老王,limit:1",
                                    "is_error": False}
    assert after[7] == before[6]


def test_malformed_transcript_exits_3_naming_file_and_line(cli):
    path = TRANSCRIPTS / "crm_malformed.jsonl"
    result = cli("replay", str(path), "-t", CRM)
    assert result.exit_code == 3
    assert str(path) in result.stderr
    assert "line 3" in result.stderr
    assert "invalid JSON" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [
    ["no-such-file.jsonl"],
    [str(TRANSCRIPTS / "crm.jsonl"), "--format", "anthropic"],
])
def test_unreadable_transcripts_exit_3(cli, args):
    result = cli("replay", *args, "-t", CRM)
    assert result.exit_code == 3
    assert "cannot read transcript" in result.stderr


def test_unknown_format_option_is_a_usage_error(cli):
    result = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM, "--format", "yaml")
    assert result.exit_code == 2


def test_missing_tool_is_a_mismatch(cli):
    result = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", "sample_tools.weather",
                 "--json")
    assert result.exit_code == 1
    call = json.loads(result.stdout)["calls"][0]
    assert call["status"] == "mismatched"
    assert call["actual"].startswith('Unknown tool "queryCustomer"')


def test_log_renders_each_execution_on_stderr(cli):
    result = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM, "--log")
    assert result.exit_code == 0
    assert result.stderr.count("=== tool request ===") == 1
    assert "call id:   call_1" in result.stderr


def test_streamed_jsonl_runs_calls_before_a_bad_line_then_stops(cli, write_module, tmp_path):
    module = write_module("counting_tools_a", COUNTING_TOOLS)
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"type":"tool_call","id":"a","name":"count","arguments":"{\\"n\\":1}"}\n'
        '{"type":"tool_result","id":"a","content":"n=1"}\n'
        '{"type":"tool_call","id":"b","name":"count","arguments":"{\\"n\\":2}"}\n'
        '{"type":"tool_result","id":"b","content":"n=2"\n'
        '{"type":"tool_call","id":"c","name":"count","arguments":"{\\"n\\":3}"}\n',
        encoding="utf-8")
    result = cli("replay", str(path), "-t", str(module))
    assert result.exit_code == 3
    assert "line 4" in result.stderr
    loaded = _module_of(module)
    assert loaded.CALLS == [1, 2]


_RAN_THEN_REFUSED = (
    '{"type":"tool_call","id":"a","name":"count","arguments":"{\\"n\\":1}"}\n'
    '{"type":"tool_result","id":"a","content":"n=1"}\n'
    '{"type":"tool_call","id":"b","name":"count","arguments":"{\\"n\\":2}"}\n'
    '{"type":"tool_result","id":"b","content":"n=2"\n')


def test_every_output_reports_the_calls_that_ran_before_a_bad_line(cli, write_module,
                                                                     tmp_path, monkeypatch):
    """Both calls ran before line 4 was found unreadable: the trace, --json (beside its
    error), --junit and the job summary all hold them; the exit code is still 3."""
    module = write_module("counting_tools_c", COUNTING_TOOLS)
    path = tmp_path / "t.jsonl"
    path.write_text(_RAN_THEN_REFUSED, encoding="utf-8")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    trace = cli("replay", str(path), "-t", str(module))
    assert trace.exit_code == 3
    assert trace.stdout.count("[act]     count") == 2 and "• unrecorded" in trace.stdout
    assert "line 4" in trace.stderr and "2 calls before it ran" in trace.stderr
    report = tmp_path / "r.xml"
    result = cli("replay", str(path), "-t", str(module), "--json", "--junit", str(report))
    assert result.exit_code == 3
    document = json.loads(result.stdout)
    assert [(c["id"], c["status"]) for c in document["calls"]] == [("a", "matched"),
                                                                   ("b", "unrecorded")]
    assert document["summary"] == {"matched": 1, "mismatched": 0, "unrecorded": 1}
    assert "line 4" in document["error"] and "line 4" in result.stderr
    junit = report.read_text(encoding="utf-8")
    assert junit.count("<testcase") == 3 and 'name="cannot read the transcript"' in junit
    assert "| " + str(path).replace("_", "\\_") in summary.read_text(encoding="utf-8")
    assert _module_of(module).CALLS == [1, 2, 1, 2]  # each run executed each call once


def test_a_folder_counts_the_calls_of_a_file_unreadable_part_way(cli, write_module, tmp_path):
    module = write_module("counting_tools_d", COUNTING_TOOLS)
    (tmp_path / "a.jsonl").write_text(_RAN_THEN_REFUSED, encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("not json\n", encoding="utf-8")
    result = cli("replay", str(tmp_path), "-t", str(module), "--json")
    assert result.exit_code == 3
    data = json.loads(result.stdout)
    first, second = data["files"]
    assert len(first["calls"]) == 2 and "line 4" in first["error"]
    assert set(second) == {"transcript", "error"}  # nothing ran: no document
    assert data["summary"] == {"matched": 1, "mismatched": 0, "unrecorded": 1}
    assert data["failed_transcripts"] == 2


def test_a_json_document_runs_nothing_when_malformed(cli, write_module, tmp_path):
    module = write_module("counting_tools_b", COUNTING_TOOLS)
    path = tmp_path / "t.json"
    path.write_text(json.dumps([
        {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {
            "name": "count", "arguments": '{"n":1}'}}]},
        {"role": "tool", "tool_call_id": "zzz", "content": "n=1"},
    ]), encoding="utf-8")
    result = cli("replay", str(path), "-t", str(module))
    assert result.exit_code == 3
    assert "messages[1]" in result.stderr
    assert _module_of(module).CALLS == []


def test_recorded_error_that_still_errors_is_matched(cli, tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"type":"tool_call","id":"a","name":"queryCustomer",'
        '"arguments":"{\\"limit\\":5.5,\\"name\\":\\"a\\"}"}\n'
        '{"type":"tool_result","id":"a","content":"Argument \\"limit\\" has non-integer value '
        'for int: <5.5> (tool \\"queryCustomer\\")","is_error":true}\n', encoding="utf-8")
    assert cli("replay", str(path), "-t", CRM).exit_code == 0
    flipped = path.read_text(encoding="utf-8").replace('"is_error":true', '"is_error":false')
    path.write_text(flipped, encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM)
    assert result.exit_code == 1  # recorded as a success: today's refusal is drift
    assert '"limit" was recorded with a value queryCustomer refuses today' in result.stdout


def test_no_progress_bar_when_stderr_is_not_a_terminal(cli, tmp_path):
    path = tmp_path / "long.jsonl"
    lines = []
    for i in range(300):
        arguments = json.dumps({"name": "x", "limit": i})
        lines.append(json.dumps({"type": "tool_call", "id": f"c{i}", "name": "queryCustomer",
                                 "arguments": arguments}))
        lines.append(json.dumps({"type": "tool_result", "id": f"c{i}",
                                 "content": f"customer:x,limit:{i}"}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM, "--json")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert json.loads(result.stdout)["summary"]["matched"] == 300


def _module_of(path: Path):
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == str(path):
            return module
    raise AssertionError(f"{path} was not imported")


def test_lone_surrogates_in_results_are_reported_safely(cli, write_module, tmp_path):
    module = write_module("odd_replay_tools", """
        from agentforge_cli import tool

        @tool
        def odd() -> str:
            \"\"\"Odd text.\"\"\"
            return "bad\\udcff"
    """)
    path = tmp_path / "t.jsonl"
    path.write_text('{"type":"tool_call","id":"a","name":"odd","arguments":"{}"}\n'
                    '{"type":"tool_result","id":"a","content":"good"}\n', encoding="utf-8")
    report = tmp_path / "r.xml"
    result = cli("replay", str(path), "-t", str(module), "--json", "--junit", str(report))
    assert result.exit_code == 1
    assert json.loads(result.stdout)["calls"][0]["actual"] == "bad\udcff"
    failure = ElementTree.parse(report).getroot().find("testsuite/testcase/failure")
    assert "bad\\udcff" in failure.text
    trace = cli("replay", str(path), "-t", str(module))
    assert "bad\\udcff" in trace.stdout


# -- adding a transcript format: one module declaring it, one registry entry ------------------

TERSE_FORMAT = '''"""A made-up transcript format: ``{"ask"}``, ``{"run", "with", "id"}`` and
``{"got", "id"}`` lines (a user message, a call, a result)."""

from agentforge_cli.replay.transcripts import Claim, ToolResult, TranscriptFormat, UserMessage
from agentforge_cli.replay.transcripts.reading.calls import CallBook, calls_to_answer, named_call
from agentforge_cli.replay.transcripts.files.records import Record


def claims(data):
    own = isinstance(data, dict) and bool(data.keys() & {"ask", "run", "got"})
    return Claim.OWN if own else Claim.NO


def record_events(record, book):
    data, where = record.data, record.where
    if record.blank:
        return []
    if "ask" in data:
        return [UserMessage(content=data["ask"], where=where)]
    if "run" in data:
        function = {"name": data["run"], "arguments": data.get("with")}
        return [named_call(function, data.get("id"), data, book, where)]
    index = book.result(data.get("id"), where)
    return [ToolResult(call_index=index, id=data.get("id"), content=data["got"],
                       is_error=None, where=where)]


def rewrite(records, updates, answered, book):
    for record in records:
        events = record_events(record, book)
        result = events[0] if events and isinstance(events[0], ToolResult) else None
        if result is not None and result.call_index in updates:
            text = updates[result.call_index][0]
            yield Record({**record.data, "got": text}, record.where, record.position)
            continue
        yield record
        for call in calls_to_answer(events, updates, answered):
            yield Record({"got": updates[call.index][0], "id": call.id})


FORMAT = TranscriptFormat(name="terse", title="terse lines", claims=claims,
                          start=CallBook.start, record_events=record_events, rewrite=rewrite)
'''
"""A format module written as a user would, registered by the tests below."""

TERSE_TRANSCRIPT = (
    '{"ask":"查一下客户"}\n'
    '{"run":"queryCustomer","with":{"name":"长路","limit":5},"id":"a"}\n'
    '{"got":"customer:长路,limit:5","id":"a"}\n'
    '{"run":"queryCustomer","with":{"name":"小明","limit":3},"id":"b"}\n'
    '{"got":"stale","id":"b"}\n'
    '{"run":"queryCustomer","with":{"name":"老王","limit":1}}\n')


@pytest.fixture
def terse(tmp_path, monkeypatch):
    """The made-up ``terse`` format, registered (the registry is restored afterwards)."""
    source = tmp_path / "terse_format.py"
    source.write_text(TERSE_FORMAT, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("terse_format", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(registry, "TRANSCRIPT_FORMATS", ExtensionPoint(
        "transcript format", "agentforge.transcript_formats",
        [*registry.TRANSCRIPT_FORMATS, module.FORMAT]))
    path = tmp_path / "talk.jsonl"
    path.write_text(TERSE_TRANSCRIPT, encoding="utf-8")
    return module, path


def test_a_registered_format_is_detected_read_and_rewritten(terse):
    module, path = terse
    assert isinstance(module.FORMAT, TranscriptFormat)
    transcript = open_transcript(path)
    assert transcript.format == "terse"
    assert [type(e).__name__ for e in transcript.events()] == [
        "UserMessage", "ToolCall", "ToolResult", "ToolCall", "ToolResult", "ToolCall"]
    assert open_transcript(path, "terse").format == "terse"
    with pytest.raises(ValueError, match=", ".join(registry.format_names())):
        open_transcript(path, "yaml")


def test_a_registered_format_replays_and_updates_through_the_cli(cli, terse):
    _, path = terse
    result = cli("replay", str(path), "-t", CRM, "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["format"] == "terse"
    assert data["summary"] == {"matched": 1, "mismatched": 1, "unrecorded": 1}
    assert cli("replay", str(path), "-t", CRM, "--update").exit_code == 0
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines[4] == {"got": "customer:小明,limit:3", "id": "b"}
    assert lines[6] == {"got": "customer:老王,limit:1", "id": None}
    again = cli("replay", str(path), "-t", CRM, "--json")
    assert json.loads(again.stdout)["summary"]["matched"] == 3


_REGISTER_THEN_RUN = """
import sys
sys.path.insert(0, sys.argv.pop(1))
import terse_format
from agentforge_cli.replay.transcripts import registry
registry.TRANSCRIPT_FORMATS.register(terse_format.FORMAT)  # what the registry line does
from agentforge_cli.cli.app import main
sys.argv[0] = "agentforge"
main()
"""


def test_the_command_line_takes_its_format_choices_from_the_registry(tmp_path):
    (tmp_path / "terse_format.py").write_text(TERSE_FORMAT, encoding="utf-8")
    path = tmp_path / "talk.jsonl"
    path.write_text(TERSE_TRANSCRIPT, encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", _REGISTER_THEN_RUN, str(tmp_path),
                               *args], cwd=ROOT, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "NO_COLOR": "1", "COLUMNS": "400"})

    done = run("replay", str(path), "-t", CRM, "--format", "TERSE", "--json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["format"] == "terse"
    shown = run("replay", "--help").stdout
    flat = " ".join(shown.replace("│", " ").split())
    assert ("The transcript's format: " + ", ".join((*registry.format_names(), "terse"))
            + "; auto (the default) detects it.") in flat
    assert f"{registry.transcript_formats()[-1].title} or terse lines." in flat


def test_format_choices_and_help_are_the_registry(cli):
    from agentforge_cli.cli.replay_cmd import format_choices

    assert format_choices() == ("auto", *registry.format_names())
    shown = " ".join(cli("replay", "--help").stdout.split())
    assert f"Recorded conversations: {registry.join_titles()}." in shown.replace("│ ", "")


HAND_WRITTEN = """[
  {"role": "user", "content": "查一下客户"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", \
"function": {"name": "queryCustomer", "arguments": "{\\"name\\": \\"长路\\", \\"limit\\": 5}"}}]},
  {"role": "tool", "tool_call_id": "a", "content": "customer:长路,limit:50"},
  {"role": "assistant", "content": "done"}
]
"""


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new), after
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_update_keeps_a_record_a_line_layout(cli, tmp_path):
    path = tmp_path / "hand.json"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    assert cli("replay", str(path), "-t", CRM, "--update").exit_code == 0
    assert _changed_lines(HAND_WRITTEN, path.read_text(encoding="utf-8")) == [(
        '  {"role": "tool", "tool_call_id": "a", "content": "customer:长路,limit:50"},',
        '  {"role": "tool", "tool_call_id": "a", "content": "customer:长路,limit:5"},')]


@pytest.mark.parametrize("indent", [4, "\t", None])
def test_update_keeps_indentation_width_and_one_line_files(cli, tmp_path, indent):
    data = {"model": "m", "messages": json.loads(HAND_WRITTEN)}
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    assert cli("replay", str(path), "-t", CRM, "--update").exit_code == 0
    after = path.read_text(encoding="utf-8")
    assert after == text.replace("limit:50", "limit:5")


def test_update_keeps_spaced_jsonl_lines_spaced(cli, tmp_path):
    path = tmp_path / "spaced.jsonl"
    lines = [json.dumps(m, ensure_ascii=False) for m in json.loads(HAND_WRITTEN)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli("replay", str(path), "-t", CRM, "--update").exit_code == 0
    after = path.read_text(encoding="utf-8").splitlines()
    assert after == [line.replace("limit:50", "limit:5") for line in lines]


BROKEN_STORE = '''
from agentforge_cli import tool

@tool
def add(item: str) -> str:
    """Put an item on the list."""
    raise RuntimeError("the list is gone")
'''

RECORDED_SUCCESS = (
    '{"type":"tool_call","id":"call_1","name":"add","arguments":"{\\"item\\":\\"milk\\"}"}\n'
    '{"type":"tool_result","id":"call_1","content":"milk","is_error":false}\n')


def test_update_warns_when_an_error_result_replaces_a_success(cli, write_module, tmp_path):
    tools = write_module("broken_store", BROKEN_STORE)
    transcript = tmp_path / "store.jsonl"
    transcript.write_text(RECORDED_SUCCESS, encoding="utf-8")
    result = cli("replay", str(transcript), "-t", str(tools), "--update")
    assert result.exit_code == 0
    assert ("warning: --update wrote 1 error result over a recorded success in "
            f"{transcript}:\n  call_1 add: the list is gone\n") in result.stderr
    assert '"content":"the list is gone","is_error":true' in transcript.read_text()


def test_a_failing_replay_ends_with_the_next_step(cli, write_module, tmp_path):
    tools = write_module("broken_store_b", BROKEN_STORE)
    transcript = tmp_path / "store.jsonl"
    transcript.write_text(RECORDED_SUCCESS, encoding="utf-8")
    result = cli("replay", str(transcript), "-t", str(tools))
    assert result.exit_code == 1
    assert result.stderr.endswith(
        "next: read the diff above; if today's results are the right ones, accept them "
        "with --update\n")
    passing = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM)
    assert (passing.exit_code, passing.stderr) == (0, "")
