"""``agentforge tools fuzz``: findings, classification, determinism and outputs."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fuzz_support import ROOT, TARGETS

AGENTFORGE = str(Path(sys.executable).parent / "agentforge")


def test_finds_the_planted_crash_with_a_shrunk_command_that_reproduces_it(cli):
    result = cli("tools", "fuzz", "sample_tools.fragile", "--seed", "0", "--examples", "50")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("✗ averageRating: 50 calls (")
    assert "crash: ZeroDivisionError: division by zero (at sample_tools/fragile.py:" in lines[1]
    command = ("agentforge tools call averageRating '{\"total_stars\":0,\"reviews\":0}' "
               "-t sample_tools.fragile")
    assert lines[3] == f"    reproduce: {command}"
    assert lines[-1] == "✗ fuzz found 1 problem in 1 of 1 tool (seed 0)"
    argv = shlex.split(command)
    done = subprocess.run([AGENTFORGE, *argv[1:], "--propagate-errors"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "caused by ZeroDivisionError: division by zero" in done.stderr


def test_the_other_sample_tools_come_out_clean(cli):
    result = cli("tools", "fuzz", "sample_tools.shop", "sample_tools.weather",
                 "sample_tools.crm:CrmTools", "--seed", "3", "--examples", "40", "--json")
    assert result.exit_code == 0, result.stdout
    document = json.loads(result.stdout)
    assert document["ok"] is True
    assert len(document["tools"]) == 12
    for tool in document["tools"]:
        # the binder takes every schema-valid object, in every form the models send
        assert tool["counts"]["mismatch"] == 0, tool
        assert tool["counts"]["refused"] == 0, tool
        assert tool["examples"] > 0 and tool["failures"] == [], tool


def test_the_same_seed_gives_the_same_run(cli):
    def run(seed: str) -> str:
        result = cli("tools", "fuzz", TARGETS, "--tool", "first", "--tool", "use_code",
                     "--examples", "30", "--seed", seed, "--json")
        return result.stdout

    assert run("7") == run("7")
    assert json.loads(run("7"))["seed"] == 7


@pytest.mark.parametrize(("tool", "kind", "exit_code"), [
    ("echo", "ok", 0),
    ("refuse", "tool error", 0),
    ("explain_missing", "tool error", 0),  # raise KeyError(...): a message, on purpose
    ("first", "crash", 1),
    ("lookup", "crash", 1),  # a subscript's KeyError: a bug
    ("sleepy", "hang", 1),
    ("opaque", "bad result", 1),
    ("flood", "bad result", 1),  # over the result limit
    ("use_code", "mismatch", 1),
])
def test_each_outcome_is_classified(fuzz_json, tool, kind, exit_code):
    document = fuzz_json(tool)
    assert document["exit"] == exit_code
    (report,) = document["tools"]
    assert report["counts"][kind] > 0, report
    if exit_code:
        assert report["failures"][0]["kind"] == kind
        assert report["failures"][0]["command"].startswith(f"agentforge tools call {tool} '")
    else:
        assert report["failures"] == []


def test_a_hang_is_reported_once_and_stops_the_tool(fuzz_json):
    (report,) = fuzz_json("sleepy")["tools"]
    assert report["examples"] == 1
    assert report["failures"][0]["shrunk"] is False


def test_the_mismatch_and_the_crash_are_shrunk(fuzz_json):
    assert fuzz_json("use_code")["tools"][0]["failures"][0]["arguments"] == '{"item":{"code":""}}'
    assert fuzz_json("first")["tools"][0]["failures"][0]["arguments"] == '{"items":[]}'


def test_crash_and_allow_change_the_rule(fuzz_json):
    crashed = fuzz_json("refuse", "--crash", "ValueError")
    assert crashed["exit"] == 1
    assert crashed["tools"][0]["failures"][0]["detail"] == "ValueError: no, never"
    allowed = fuzz_json("first", "--allow", "IndexError")
    assert allowed["exit"] == 0
    assert allowed["tools"][0]["counts"]["crash"] == 0


def test_junit_has_one_testcase_per_tool(cli, tmp_path):
    report = tmp_path / "missing" / "dir" / "fuzz.xml"
    result = cli("tools", "fuzz", TARGETS, "--tool", "echo", "--tool", "first", "--tool",
                 "wipe", "--examples", "20", "--seed", "1", "--junit", str(report))
    assert result.exit_code == 1
    suite = ET.parse(report).getroot().find("testsuite")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == ["echo", "first", "wipe"]
    assert cases["echo"].find("failure") is None
    assert "reproduce: agentforge tools call first" in cases["first"].find("failure").text
    assert cases["wipe"].find("skipped") is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")


def test_destructive_tools_are_skipped_unless_included(fuzz_json):
    from fuzz_targets import CALLS

    CALLS.clear()
    skipped = fuzz_json("wipe")["tools"][0]
    assert skipped["skipped"].startswith("destructive") and skipped["examples"] == 0
    assert CALLS == []
    included = fuzz_json("wipe", "--include-destructive")["tools"][0]
    assert included["skipped"] is None and included["counts"]["ok"] > 0
    assert CALLS


@pytest.mark.parametrize("options", [
    ["--examples", "0"], ["--timeout", "0"], ["--crash", "not a name"],
    ["--crash", "KeyError", "--allow", "KeyError"], ["--tool", "nosuchtool"],
])
def test_usage_errors_exit_2(cli, options):
    result = cli("tools", "fuzz", TARGETS, *options)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert result.stdout == ""


def test_a_missing_target_exits_3(cli):
    assert cli("tools", "fuzz", "no_such_module_here").exit_code == 3


def test_without_the_fuzz_extra_it_says_how_to_install_it(cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # `import hypothesis` fails
    result = cli("tools", "fuzz", "sample_tools.fragile")
    assert result.exit_code == 3
    assert "tools fuzz needs hypothesis, which is not installed" in result.stderr
    assert "pip install '.[fuzz]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_result_over_the_limit_names_its_size_and_the_limit(fuzz_json):
    (failure,) = fuzz_json("flood")["tools"][0]["failures"]
    assert failure["detail"] == ('ResultTooLarge: Tool "flood" returned 4194305 characters, '
                                 "more than the limit of 4194304")
    assert failure["arguments"] == '{"n":0}'


def test_a_tool_whose_every_call_is_the_same_tool_error_is_flagged_not_failed(cli):
    result = cli("tools", "fuzz", TARGETS, "--tool", "refuse", "--tool", "echo",
                 "--examples", "20", "--seed", "1", "--json")
    assert result.exit_code == 0
    tools = {tool["name"]: tool for tool in json.loads(result.stdout)["tools"]}
    assert tools["refuse"]["low_coverage"] is True
    assert tools["echo"]["low_coverage"] is False
    assert ("warning: every call of refuse ended in a tool error: the inputs may never "
            "reach its code (what the error says: ") in result.stderr
    assert "every call of echo" not in result.stderr


def test_fuzz_writes_nothing_into_the_working_directory(tmp_path):
    import os

    env = {key: value for key, value in os.environ.items()
           if key != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([AGENTFORGE, "tools", "fuzz", "sample_tools.fragile", "--seed", "0",
                           "--examples", "20"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stderr  # the planted crash: the tools ran
    assert list(tmp_path.iterdir()) == []  # no .hypothesis/ left behind
