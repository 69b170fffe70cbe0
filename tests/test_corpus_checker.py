"""The corpus run's own logic (`tests/corpus/check_corpus.py`, the execution log and the
pure parts of the corpus tools), on small files made here: none of it needs the corpus."""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap
from pathlib import Path

import pytest

CORPUS_TESTS = Path(__file__).parent / "corpus"
TOOLS = CORPUS_TESTS / "tools"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it is executed
    spec.loader.exec_module(module)
    return module


checker = _load("check_corpus", CORPUS_TESTS / "check_corpus.py")


@pytest.fixture
def tools(monkeypatch):
    """``tools(name)``: a corpus tool module, imported as the loader imports it."""
    monkeypatch.syspath_prepend(str(TOOLS))

    def load(name: str):
        return _load(f"corpus_{name}", TOOLS / f"{name}.py")

    return load


GOOD = """
support = ["db/data"]

[[case]]
folder = "one"
file = "a.jsonl"
targets = ["x.py:X"]
calls = 3
matched = 2
unrecorded = 1
exit = 0

[[case]]
folder = "two"
file = "b.log"
targets = ["x.py:X"]
options = ["--match", "status"]
calls = 1
unread = "not a format yet"
exit = 2
message = "not a known transcript format"
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def case(**fields):
    """An entry of one call; a field given as None is left out."""
    entry = {"folder": "one", "file": "a.jsonl", "targets": ["x.py:X"], "calls": 1,
             "matched": 1, "exit": 0, **fields}
    return checker.parse_case({k: v for k, v in entry.items() if v is not None}, 1)


# ---------------------------------------------------------------- the table

def test_a_table_is_read_with_its_defaults(tmp_path):
    table = checker.load_table(write(tmp_path / "t.toml", GOOD))
    first, second = table.cases
    assert table.support == ("db/data",)
    assert first.name == "one/a.jsonl"
    assert first.verdicts == {"matched": 2, "mismatched": 0, "unrecorded": 1, "drifted": 0}
    assert (first.options, first.unexecuted, first.unread) == ((), 0, None)
    assert second.options == ("--match", "status")
    assert (second.unread, second.exit, second.message, second.verdicts) == (
        "not a format yet", 2, "not a known transcript format", {})


@pytest.mark.parametrize(("fields", "complaint"), [
    ({"matched": 2}, "add up to 2, not to its 1 calls"),
    ({"matchd": 1}, "unknown keys ['matchd']"),
    ({"calls": "1"}, "'calls' must be a int"),
    ({"exit": True}, "'exit' must be a int"),
    ({"matched": -1, "mismatched": 2}, "'matched' must not be negative"),
    ({"targets": []}, "no targets"),
    ({"targets": [1]}, "'targets' must be a list of strings"),
    ({"message": "x"}, "'message' is for unread files only"),
    ({"unread": "why", "matched": 1, "message": "m"}, "an unread file has no verdicts (matched)"),
    ({"unread": "why"}, "needs the expected 'message'"),
    ({"unexecuted": 2}, "more unexecuted calls than calls"),
    ({"defect": "why"}, "a defect needs 'found'"),
    ({"found": 1}, "a defect needs 'found'"),
    ({"executions": 1}, "'found' and 'executions' are for defects only"),
    ({"defect": "why", "found": 2, "matched": 1}, "add up to 1, not to its 2 calls"),
    ({"defect": "why", "found": 0, "unread": "x", "message": "m", "matched": None},
     "either unread or read with a defect"),
])
def test_a_malformed_entry_is_refused_naming_it(fields, complaint):
    with pytest.raises(checker.TableError) as info:
        case(**fields)
    assert complaint in str(info.value)
    assert "case 1 (one/a.jsonl)" in str(info.value)


def test_an_entry_without_a_required_key_is_refused():
    entry = {"folder": "one", "file": "a.jsonl", "targets": ["x.py:X"], "exit": 0}
    with pytest.raises(checker.TableError, match="missing 'calls'"):
        checker.parse_case(entry, 4)


def test_a_file_may_be_listed_again_with_other_options(tmp_path):
    again = GOOD + ('[[case]]\nfolder = "one"\nfile = "a.jsonl"\ntargets = ["x.py:X"]\n'
                    'options = ["--format", "agentforge"]\ncalls = 0\nexit = 0\n')
    table = checker.load_table(write(tmp_path / "t.toml", again))
    labels = [case.label for case in table.cases]
    assert "one/a.jsonl" in labels and labels[-1] == "one/a.jsonl --format agentforge"


@pytest.mark.parametrize(("text", "complaint"), [
    ("[[case]\n", "cannot read"),
    ("support = []\n", "no [[case]] entries"),
    ("cases = []\n", "unknown top-level keys ['cases']"),
    (GOOD + '[[case]]\nfolder = "one"\nfile = "a.jsonl"\ntargets = ["y.py"]\ncalls = 0\n'
            'exit = 0\n', "one/a.jsonl is listed twice"),
])
def test_a_malformed_table_is_refused(tmp_path, text, complaint):
    with pytest.raises(checker.TableError, match=complaint.replace("[", r"\[")):
        checker.load_table(write(tmp_path / "t.toml", text))


def test_the_real_table_reads_and_names_tool_files_that_exist():
    table = checker.load_table(checker.TABLE)
    assert len(table.cases) > 40
    for entry in table.cases:
        for target in entry.targets:
            assert (checker.REPOSITORY / target.split(":")[0]).is_file(), target


# ---------------------------------------------------------------- the corpus folder

@pytest.fixture
def corpus(tmp_path):
    write(tmp_path / "corpus" / "one" / "a.jsonl", "{}\n")
    write(tmp_path / "corpus" / "two" / "b.log", "x\n")
    write(tmp_path / "corpus" / "db" / "data" / "rows.json", "[]\n")
    write(tmp_path / "corpus" / "README.md", "cases\n")
    table = GOOD + '\n[[case]]\nfolder = "db"\nfile = "c.json"\ntargets = ["x.py:X"]\n' \
                   'calls = 0\nexit = 0\n'
    write(tmp_path / "corpus" / "db" / "c.json", "[]\n")
    return tmp_path / "corpus", checker.load_table(write(tmp_path / "t.toml", table))


def test_a_complete_corpus_has_no_problem(corpus):
    folder, table = corpus
    assert checker.survey(folder, table) == []


def test_a_missing_corpus_folder_is_a_problem(tmp_path, corpus):
    _, table = corpus
    assert checker.survey(tmp_path / "nowhere", table) == [
        f"no corpus folder at {tmp_path / 'nowhere'}"]


def test_an_unlisted_case_folder_is_a_problem(corpus):
    folder, table = corpus
    write(folder / "three" / "d.yaml", "interactions: []\n")
    assert checker.survey(folder, table) == ["case folder three/ is not in the table"]


def test_an_unlisted_recording_in_a_listed_folder_is_a_problem(corpus):
    folder, table = corpus
    write(folder / "one" / "extra.jsonl", "{}\n")
    write(folder / "db" / "data" / "more.json", "[]\n")  # support data: allowed
    assert checker.survey(folder, table) == ["one/extra.jsonl is not in the table"]


def test_a_listed_file_that_is_missing_is_a_problem(corpus):
    folder, table = corpus
    (folder / "two" / "b.log").unlink()
    assert checker.survey(folder, table) == ["two/b.log is listed but missing"]


@pytest.mark.parametrize("break_it", ["missing", "unlisted"])
def test_the_run_fails_before_replaying_anything(corpus, capsys, break_it):
    folder, table = corpus
    if break_it == "missing":
        folder = folder / "nowhere"
    else:
        write(folder / "three" / "d.yaml", "interactions: []\n")
    assert checker.check(folder, table, jobs=1) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL  corpus: ")
    assert "corpus: not run, 1 problem(s)" in out


def test_main_refuses_a_bad_table_on_stderr(tmp_path, capsys):
    table = write(tmp_path / "t.toml", "support = 1\n")
    assert checker.main([str(tmp_path), "--table", str(table)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "corpus: cannot run: " in captured.err and "support must be a list" in captured.err


# ---------------------------------------------------------------- judging one run

def report(*statuses: str, name: str = "f") -> str:
    calls = [{"name": name, "status": status, "arguments": "{}"} for status in statuses]
    return json.dumps({"summary": {}, "calls": calls})


def executions(*arguments: dict, tool: str = "f") -> tuple:
    return tuple({"tool": tool, "arguments": value} for value in arguments)


def test_a_run_as_the_table_says_passes():
    entry = case(calls=3, matched=2, unrecorded=1)
    run = checker.Run(0, report("matched", "unrecorded", "matched"), "",
                      executions({"x": 1}, {"x": 2}, {"x": 3}))
    assert checker.judge(entry, run) == (True, "3 calls: 2 matched, 1 unrecorded")


def test_a_call_run_twice_is_named_with_its_arguments():
    entry = case(calls=2, matched=2)
    run = checker.Run(0, report("matched", "matched"), "",
                      executions({"x": 1}, {"x": 2}, {"x": 1}))
    passed, text = checker.judge(entry, run)
    assert not passed
    assert text == ('3 tool executions for 2 calls; run more than once: '
                    'f {"x": 1} (2 times)')


def test_a_call_that_never_ran_fails_unless_the_table_says_so():
    run = checker.Run(1, report("matched", "mismatched"), "", executions({"x": 1}))
    failed = checker.judge(case(calls=2, matched=1, mismatched=1, exit=1), run)
    assert failed == (False, "1 tool execution for 2 calls")
    allowed = checker.judge(case(calls=2, matched=1, mismatched=1, exit=1, unexecuted=1), run)
    assert allowed == (True, "2 calls: 1 matched, 1 mismatched")


def test_wrong_exit_calls_and_verdicts_are_each_reported():
    entry = case(calls=2, matched=2)
    run = checker.Run(1, report("matched", "mismatched", "mismatched"),
                      "error: 1 of 3 calls differs\n", executions({}, {}, {}))
    passed, text = checker.judge(entry, run)
    assert not passed
    assert text == "; ".join([
        "exit 1, expected 0 (error: 1 of 3 calls differs)",
        "3 calls found, the recording holds 2",
        "3 tool executions for 2 calls; run more than once: f {} (3 times)",
        "1 matched, expected 2",
        "2 mismatched, expected 0",
    ])


def test_a_verdict_the_table_does_not_know_fails():
    run = checker.Run(0, report("matched", "weird"), "", executions({"a": 1}, {"a": 2}))
    assert checker.judge(case(calls=2, matched=2), run) == (
        False, "1 matched, expected 2; 1 weird, expected 0")


def test_no_json_report_fails():
    run = checker.Run(3, "", "error: cannot read transcript x: bad\n", ())
    assert checker.judge(case(), run) == (
        False, "exit 3, expected 0 (error: cannot read transcript x: bad); "
               "no JSON report on stdout")


def test_an_unread_file_passes_while_it_is_refused_as_stated():
    entry = case(unread="no such format", message="not a known", matched=None, exit=2)
    refused = checker.Run(2, "", "error: x: not a known transcript format\n", ())
    assert checker.judge(entry, refused) == (True, "unread: no such format")
    other = checker.Run(3, "", "error: x: invalid JSON\n", ())
    assert checker.judge(entry, other) == (
        False, "exit 3, expected 2 with 'not a known': error: x: invalid JSON")
    read_now = checker.Run(0, report("matched"), "", executions({}))
    assert checker.judge(entry, read_now) == (
        False, "is read now (exit 0): give it verdicts in the table; the recording holds "
               "1 call")


def test_a_known_defect_passes_only_while_the_outcome_is_the_one_written_down():
    """Three runs merged: 4 calls found, 4 executions, for a recording of 3."""
    entry = case(calls=3, defect="runs merged", found=4, matched=3, unrecorded=1)
    same = checker.Run(0, report("matched", "matched", "unrecorded", "matched"), "",
                       executions({"x": 1}, {"x": 2}, {"x": 3}, {"x": 4}))
    assert checker.judge(entry, same) == (True, "known defect, 4 calls of 3: runs merged")
    fixed = checker.Run(0, report("matched", "matched", "matched"), "",
                        executions({"x": 1}, {"x": 2}, {"x": 3}))
    passed, text = checker.judge(entry, fixed)
    assert not passed
    assert text == ("the known defect changed: 3 calls found, 3 executions, 3 matched; the "
                    "table says 4 found, 4 executions, 3 matched, 1 unrecorded (the "
                    "recording holds 3)")
    worse = checker.Run(1, same.stdout, "", same.executions)
    assert checker.judge(entry, worse)[0] is False
    counted = case(calls=1, defect="run twice", found=1, executions=2, matched=1)
    twice = checker.Run(0, report("matched"), "", executions({"x": 1}, {"x": 1}))
    assert checker.judge(counted, twice) == (True, "known defect, 1 call of 1: run twice")


# ---------------------------------------------------------------- end to end

TRANSCRIPT = """\
{"type": "tool_call", "id": "c1", "name": "double", "arguments": "{\\"n\\": 2}"}
{"type": "tool_result", "id": "c1", "content": "4"}
{"type": "tool_call", "id": "c2", "name": "double", "arguments": "{\\"n\\": 5}"}
{"type": "tool_result", "id": "c2", "content": "11"}
"""

TOOL = """\
import sys
sys.path.insert(0, {tools!r})
from execution_log import counted_tool, log_execution

@counted_tool(name="double")
def double(n: int) -> int:
    if {twice}:
        log_execution("double", {{"n": n}})
    return 2 * n
"""


@pytest.mark.parametrize("twice", [False, True])
def test_the_real_command_is_run_and_its_executions_counted(tmp_path, capsys, twice):
    write(tmp_path / "corpus" / "doubles" / "calls.jsonl", TRANSCRIPT)
    tool = write(tmp_path / "double_tools.py", TOOL.format(tools=str(TOOLS), twice=twice))
    table = write(tmp_path / "t.toml", f"""
        [[case]]
        folder = "doubles"
        file = "calls.jsonl"
        targets = [{json.dumps(str(tool))}]
        calls = 2
        matched = 1
        mismatched = 1
        exit = 1
        """)
    code = checker.main([str(tmp_path / "corpus"), "--table", str(table), "--jobs", "1"])
    out = capsys.readouterr().out.splitlines()
    if twice:
        assert code == 1
        assert out == ['FAIL  doubles/calls.jsonl: 4 tool executions for 2 calls; run more '
                       'than once: double {"n": 2} (2 times), double {"n": 5} (2 times)',
                       "corpus: 0 of 1 files ok, 1 failed"]
    else:
        assert code == 0
        assert out == ["ok    doubles/calls.jsonl: 2 calls: 1 matched, 1 mismatched",
                       "corpus: 1 of 1 files ok"]


# ---------------------------------------------------------------- the shared helper and tools

def test_executions_are_logged_only_when_a_file_is_named(tools, tmp_path, monkeypatch):
    log = tools("execution_log")
    monkeypatch.delenv(log.CALLS_ENV, raising=False)
    log.log_execution("t", {"a": 1})  # nowhere to write: nothing happens
    path = tmp_path / "calls.jsonl"
    monkeypatch.setenv(log.CALLS_ENV, str(path))
    multiply = tools("llm_tools").LlmTools().multiply
    assert multiply(3, b=4) == 12
    assert multiply(a=1, b=2) == 2
    assert [json.loads(line) for line in path.read_text().splitlines()] == [
        {"tool": "multiply", "arguments": {"a": 3, "b": 4}},
        {"tool": "multiply", "arguments": {"a": 1, "b": 2}}]


@pytest.mark.parametrize(("expression", "value"), [
    ("152 + 103", 255), ("(6 - 4) + (13 - 6) * 2", 16), ("10 / 4", 2.5), ("-3 + +1", -2),
])
def test_the_airline_calculator_computes_arithmetic(tools, expression, value):
    assert tools("tau_airline").arithmetic(expression) == value


@pytest.mark.parametrize("expression", ["2 ** 3", "(1).real", "1 if 1 else 2", "'a'", "[1]"])
def test_the_airline_calculator_refuses_anything_else(tools, expression):
    with pytest.raises(ValueError, match="not an arithmetic expression"):
        tools("tau_airline").arithmetic(expression)


def test_the_airline_calculate_tool_answers_errors_as_text(tools):
    calculate = tools("tau_airline").AirlineTools.calculate
    assert calculate(None, "1 / 3") == "0.33"
    assert calculate(None, "1 / 0") == "Error: division by zero"
    assert calculate(None, "__import__('os')") == "Error: invalid characters in expression"
    assert calculate(None, "2 +").startswith("Error: ")


def test_the_time_conversion_is_computed_on_the_recording_day(tools):
    convert = tools("mcp_time").TimeTools().convert_time
    answer = json.loads(convert("Asia/Kolkata", "23:45", "Australia/Sydney"))
    assert answer["source"]["datetime"] == "2026-12-01T23:45:00+05:30"
    assert answer["target"] == {"timezone": "Australia/Sydney",
                                "datetime": "2026-12-02T05:15:00+11:00",
                                "day_of_week": "Wednesday", "is_dst": True}
    assert answer["time_difference"] == "+5.5h"


@pytest.mark.parametrize(("arguments", "message"), [
    (("Mars/Olympus", "10:00", "UTC"), "Invalid timezone: 'No time zone found with key "
                                       "Mars/Olympus'"),
    (("UTC", "25:00", "UTC"), "Invalid time format. Expected HH:MM [24-hour format]"),
    (("UTC", "10:00", "../etc"), "Invalid timezone"),
])
def test_the_time_conversion_refuses_bad_input(tools, arguments, message):
    with pytest.raises(ValueError) as info:
        tools("mcp_time").TimeTools().convert_time(*arguments)
    assert str(info.value).startswith("Error executing tool convert_time: ")
    assert message in str(info.value)


@pytest.mark.parametrize(("hours", "text"), [(14, "+14.0h"), (-8, "-8.0h"), (5.5, "+5.5h"),
                                             (5.75, "+5.75h"), (-3.5, "-3.5h"), (0, "+0.0h")])
def test_the_time_difference_is_written_as_the_server_writes_it(tools, hours, text):
    from datetime import timedelta

    assert tools("mcp_time").hours_text(timedelta(hours=hours)) == text

