"""``agentforge replay`` driven through CliRunner: every format, statuses, reports, update."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cli_support import CRM, TRANSCRIPTS

SEED_TRACE = [
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
def test_each_format_replays_the_seed_trace(cli, name):
    result = cli("replay", str(TRANSCRIPTS / name), "-t", CRM)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:5] == SEED_TRACE
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
    assert "✗ 1 of 3 calls differ from the recording" in out
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


def test_json_report_with_no_calls(cli, tmp_path):
    path = tmp_path / "talk.jsonl"
    path.write_text('{"type":"user","content":"hi"}\n', encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["calls"] == []


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


def test_junit_into_a_missing_directory_is_a_usage_error(cli, tmp_path):
    result = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM,
                 "--junit", str(tmp_path / "no" / "r.xml"))
    assert result.exit_code == 2


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
        '{"type":"tool_call","id":"a","name":"queryCustomer","arguments":"{\\"limit\\":5.5}"}\n'
        '{"type":"tool_result","id":"a","content":"Argument \\"limit\\" has non-integer value '
        'for int: <5.5> (tool \\"queryCustomer\\")","is_error":true}\n', encoding="utf-8")
    assert cli("replay", str(path), "-t", CRM).exit_code == 0
    flipped = path.read_text(encoding="utf-8").replace('"is_error":true', '"is_error":false')
    path.write_text(flipped, encoding="utf-8")
    result = cli("replay", str(path), "-t", CRM)
    assert result.exit_code == 1
    assert "is_error: recorded false, actual true" in result.stdout


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
