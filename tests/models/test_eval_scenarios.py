"""``agentforge eval --scenarios``: prompts with expectations run live through the official
SDK against a local server answering from a policy; the calls executed through the
ToolService with its binding, results fed back, up to the case's maximum of steps."""

from __future__ import annotations

import json
import textwrap
from xml.etree import ElementTree

import pytest
from model_servers import Calls, Text, model_server

TOOLS = '''
from agentforge_cli import tool

@tool(description="Search the web.")
def search(q: str, limit: int = 3) -> str:
    return f"found {limit} for {q}"

@tool(description="Keep a query in the archive.")
def archive(q: str, tags: list[str]) -> str:
    return "archived " + q

@tool(description="Delete every record.")
def delete_all() -> str:
    return "deleted"
'''


def policy(wire, body):
    """What the model does, by the prompt and by the results it has seen."""
    messages = body["messages"]
    prompt = next(m["content"] for m in messages if m["role"] == "user")
    results = [m for m in messages if m["role"] == "tool"]
    verb, _, word = prompt.partition(" ")
    plan = {
        "find": [("search", {"q": word, "limit": 2})],
        "keep": [("search", {"q": word}), ("archive", {"q": word, "tags": ["a", word]})],
        "wipe": [("delete_all", {})],
        "careless": [("search", {"q": word, "limit": "many"}), ("search", {"q": word})],
        "loop": [("search", {"q": word})] * 10,
    }.get(verb, [])
    if len(results) < len(plan):
        return Calls([plan[len(results)]])
    return Text(f"done after {len(results)} results")


@pytest.fixture
def project(tmp_path, monkeypatch, plain_terminal):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-scenarios")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scen_tools.py").write_text(TOOLS, encoding="utf-8")
    return tmp_path


def _file(project, text, name="cases.yaml"):
    (project / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return name


def _eval(cli, server, cases, *options):
    return cli("eval", "scen_tools.py", "--scenarios", cases, "-m", "openai:local",
               "--base-url", server.base_url("openai"), "--cache", "c.yaml", *options)


PASSING = '''
    scenarios:
      - name: keep rust
        prompt: keep rust
        max_steps: 4
        expect:
          must_call: [search, archive]
          must_not_call: [delete_all]
          order: [search, archive]
          arguments:
            - tool: archive
              exact: {q: rust, tags: [a, rust]}
            - tool: search
              subset: {q: rust}
              regex: {q: "^ru"}
            - tool: archive
              json_path: {"$.tags[1]": rust}
    '''


def test_a_passing_scenario_runs_live_and_shows_its_steps(cli, project):
    cases = _file(project, PASSING)
    with model_server(policy) as server:
        result = _eval(cli, server, cases, "--min-agreement", "100%")
        assert server.count() == 3  # search, archive, the final answer
        again = _eval(cli, server, cases, "--json")
        assert server.count() == 3  # the rerun is played from the cassette
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "scenario 'keep rust'  1/1 passed  ✓" in out
    assert '    [act] search {"q": "rust"} → found 3 for rust' in out
    assert '    [act] archive {"q": "rust", "tags": ["a", "rust"]} → archived rust' in out
    assert "    [final] done after 2 results" in out
    assert "runs passed 1/1 (100%) · scenarios passed every time 1/1" in out
    assert "✓ 100% of runs passed, at least --min-agreement 100%" in out
    summary = json.loads(again.stdout)["summary"]
    assert summary["requests"] == {"sent": 0, "cached": 3}
    assert summary["agreement"] == 1.0


FAILING = '''
    max_steps: 3
    scenarios:
      - name: missing call
        prompt: find go
        expect: {must_call: [archive]}
      - name: forbidden call
        prompt: wipe all
        expect: {must_not_call: [delete_all]}
      - name: wrong order
        prompt: keep go
        expect: {order: [archive, search]}
      - name: exact
        prompt: find go
        expect: {arguments: [{tool: search, exact: {q: go}}]}
      - name: subset
        prompt: find go
        expect: {arguments: [{tool: search, subset: {q: rust}}]}
      - name: regex
        prompt: find go
        expect: {arguments: [{tool: search, regex: {q: "^r"}}]}
      - name: json path
        prompt: find go
        expect: {arguments: [{tool: search, json_path: {"$.limit": 5}}]}
      - name: never called
        prompt: hello
        expect: {arguments: [{tool: search, exact: {q: go}}]}
      - name: endless
        prompt: loop go
        max_steps: 2
      - name: corrected
        prompt: careless go
        expect: {arguments: [{tool: search, exact: {q: go}}]}
    '''


def test_each_kind_of_failure_is_named(cli, project):
    cases = _file(project, FAILING)
    with model_server(policy) as server:
        result = _eval(cli, server, cases, "--json", "--min-agreement", "0.5",
                       "--junit", "r.xml", "--concurrency", "2")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    failures = {s["name"]: s["runs"][0]["failures"] for s in report["scenarios"]}
    assert failures == {
        "missing call": ["did not call archive"],
        "forbidden call": ["called delete_all, which it must not"],
        "wrong order": ["expected the calls in the order archive, search; called search, "
                        "archive"],
        "exact": ['no call of search matched: not exactly {"q": "go"} '
                  '({"q": "go", "limit": 2})'],
        "subset": ['no call of search matched: not a superset of {"q": "rust"} '
                   '({"q": "go", "limit": 2})'],
        "regex": ["no call of search matched: 'q' go does not match /^r/ "
                  '({"q": "go", "limit": 2})'],
        "json path": ['no call of search matched: $.limit is 2, not 5 '
                      '({"q": "go", "limit": 2})'],
        "never called": ["no call of search to hold its arguments against"],
        "endless": ["still calling tools after 2 steps (max_steps)"],
        "corrected": [],
    }
    # the argument error went back to the model, which called again correctly
    corrected = report["scenarios"][-1]["runs"][0]
    assert [c["is_error"] for c in corrected["calls"]] == [True, False]
    assert "limit" in corrected["calls"][0]["result"]
    assert report["scenarios"][-2]["runs"][0]["steps"] == 2
    assert report["summary"]["runs_passed"] == 1
    assert report["summary"]["below_min_agreement"] is True
    suite = ElementTree.parse(project / "r.xml").getroot().find("testsuite")
    assert suite.get("failures") == "9"
    cases_ = {c.get("name"): c.find("failure") for c in suite.findall("testcase")}
    assert cases_["corrected"] is None
    assert cases_["endless"].text == "still calling tools after 2 steps (max_steps)"


def test_a_json_file_and_repeats(cli, project):
    cases = _file(project, json.dumps({"scenarios": [
        {"name": "find", "prompt": "find go", "expect": {"must_call": ["search"]}}]}),
        name="cases.json")
    with model_server(policy) as server:
        result = _eval(cli, server, cases, "-k", "3")
    assert result.exit_code == 0, result.output
    assert "scenario 'find'  3/3 passed  ✓" in result.stdout
    assert "  run 3: 2 steps, 1 call" in result.stdout


@pytest.mark.parametrize(("text", "message"), [
    ("scenarios: [{name: a, prompt: p, expct: {}}]",
     "scenario 1 ('a'): unknown key 'expct'"),
    ("scenarios: [{name: a, prompt: p, expect: {must_cal: [x]}}]",
     "scenario 1 ('a'): expect: unknown key 'must_cal'"),
    ("scenarios: [{name: a, prompt: 3}]", "scenario 1 ('a'): 'prompt' must be a string"),
    ("scenarios: [{name: a}]", "scenario 1 ('a'): 'prompt' is required"),
    ("scenarios: [{name: a, prompt: p, max_steps: 0}]",
     "scenario 1 ('a'): 'max_steps' must be from 1 to 50"),
    ("scenarios: [{name: a, prompt: p, expect: {must_call: search}}]",
     "scenario 1 ('a'): expect: 'must_call' must be a list, got str"),
    ("scenarios: [{name: a, prompt: p, expect: {arguments: [{tool: s, regex: {q: '('}}]}}]",
     "scenario 1 ('a'): expect: arguments 1: regex 'q': missing ), unterminated"),
    ("scenarios: [{name: a, prompt: p, expect: {arguments: [{tool: s, json_path: {q: 1}}]}}]",
     "scenario 1 ('a'): expect: arguments 1: json_path 'q': a JSON path starts with $"),
    ("scenarios: [{name: a, prompt: p, expect: {arguments: [{tool: s}]}}]",
     "give at least one of exact, subset, regex, json_path"),
    ("scenarios: [{name: a, prompt: p}, {name: a, prompt: q}]",
     "two scenarios are named 'a'"),
    ("scenario: []", "the file: unknown key 'scenario'"),
    ("scenarios: []", "the file: 'scenarios' is empty"),
    ("scenarios: [{name: a, prompt: p}", "not valid YAML"),
])
def test_a_bad_file_exits_2_naming_the_case_and_key(cli, project, text, message):
    cases = _file(project, text)
    with model_server(policy) as server:
        result = _eval(cli, server, cases)
        assert server.count() == 0
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_scenarios_and_transcripts_are_not_mixed(cli, project):
    cases = _file(project, PASSING)
    (project / "t.jsonl").write_text('{"type":"user","content":"x"}\n', encoding="utf-8")
    mixed = cli("eval", "scen_tools.py", "t.jsonl", "--scenarios", cases, "-m", "openai:x")
    assert mixed.exit_code == 2
    assert "give no transcripts and no --compare-to" in mixed.stderr
    neither = cli("eval", "scen_tools.py", "-m", "openai:x")
    assert neither.exit_code == 2
    assert "name transcripts to ask again, or a --scenarios file" in neither.stderr
