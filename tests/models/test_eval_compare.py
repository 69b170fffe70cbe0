"""``agentforge eval --compare-to REF``: the same decisions asked with another version of
the tools (a git revision's module, a snapshot file), against a local server whose
policy reads the tools it is sent: a description change moves exactly the decisions
the policy makes it move."""

from __future__ import annotations

import json
import subprocess

import pytest
from model_servers import Calls, Text, model_server

TOOLS = '''
from agentforge_cli import tool

@tool(description="{search}")
def search(q: str) -> str:
    return "found " + q

@tool(description="Look a query up in the archive.")
def lookup(q: str) -> str:
    return "archived " + q

@tool(description="The weather in a city.")
def weather(city: str) -> str:
    return "sunny in " + city
'''
TRANSCRIPT = [
    {"type": "user", "content": "find rust"},
    {"type": "tool_call", "id": "c1", "name": "search", "arguments": '{"q":"rust"}'},
    {"type": "tool_result", "id": "c1", "content": "found rust"},
    {"type": "assistant", "content": "Found it."},
    {"type": "user", "content": "weather Paris"},
    {"type": "tool_call", "id": "c2", "name": "weather", "arguments": '{"city":"Paris"}'},
    {"type": "tool_result", "id": "c2", "content": "sunny in Paris"},
    {"type": "assistant", "content": "Sunny."},
    {"type": "user", "content": "find go"},
    {"type": "tool_call", "id": "c3", "name": "search", "arguments": '{"q":"go"}'},
    {"type": "tool_result", "id": "c3", "content": "found go"},
]


def policy(wire, body):
    """Searches unless the search tool says it is deprecated; then looks up."""
    described = {t["function"]["name"]: t["function"]["description"] for t in body["tools"]}
    asked = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    verb, _, word = asked.partition(" ")
    if verb == "weather":
        return Calls([("weather", {"city": word})])
    if verb != "find":
        return Text("?")
    tool = "lookup" if "Deprecated" in described.get("search", "") else "search"
    return Calls([(tool, {"q": word})])


@pytest.fixture
def project(tmp_path, monkeypatch, plain_terminal):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-compare")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools_v.py").write_text(TOOLS.format(search="Search the web."),
                                         encoding="utf-8")
    (tmp_path / "t.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in TRANSCRIPT), encoding="utf-8")
    for args in (["init", "-q"], ["add", "."],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v1"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    # the pull request: a reworded description, not committed
    (tmp_path / "tools_v.py").write_text(
        TOOLS.format(search="Deprecated: use lookup."), encoding="utf-8")
    return tmp_path


def _eval(cli, server, *options):
    return cli("eval", "tools_v.py", "t.jsonl", "-m", "openai:local", "--base-url",
               server.base_url("openai"), "--cache", "c.yaml", *options)


def test_a_description_change_moves_exactly_the_decisions_it_moves(cli, project):
    with model_server(policy) as server:
        result = _eval(cli, server, "--compare-to", "HEAD:tools_v.py", "--json")
        assert server.count() == 6  # three decisions, with each tool set
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    compared = report["compare_to"]
    assert compared["reference"] == "HEAD:tools_v.py"
    assert compared["summary"]["agreement"] == 1.0
    assert report["summary"]["agreement"] == pytest.approx(1 / 3, abs=1e-3)
    moved = compared["moved"]
    assert [m["decision"] for m in moved] == [1, 3]
    assert {m["direction"] for m in moved} == {"lost"}
    assert moved[0]["before"]["verdicts"] == {"agree": 1}
    assert moved[0]["after"]["notes"] == ["now calls lookup instead of search"]
    assert [d["replies"][0]["verdict"] for d in compared["decisions"]] == ["agree"] * 3
    # what asking with REF's tools took, part of the run's
    assert compared["usage"]["requests"] == {"sent": 3, "cached": 0}
    assert compared["usage"]["tokens"] == {"input": 33, "output": 21}
    assert report["summary"]["requests"] == {"sent": 6, "cached": 0}
    # the working tree is untouched: the reworded module is still there
    assert "Deprecated" in (project / "tools_v.py").read_text(encoding="utf-8")
    assert not subprocess.run(["git", "stash", "list"], cwd=project, capture_output=True,
                              check=True).stdout


def test_the_trace_names_the_moved_decisions_and_the_other_way(cli, project):
    snapshot = project / "old.json"  # the reworded tools, as tools list prints them
    snapshot.write_text(cli("tools", "list", "tools_v.py", "--format", "json").stdout,
                        encoding="utf-8")
    (project / "fixed.py").write_text(TOOLS.format(search="Search the web."),
                                      encoding="utf-8")
    with model_server(policy) as server:
        result = cli("eval", "fixed.py", "t.jsonl", "-m", "openai:local", "--base-url",
                     server.base_url("openai"), "--cache", "c.yaml",
                     "--compare-to", str(snapshot))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"compared with {snapshot}: agreement 1/3 before, 3/3 now · 2 decisions moved" \
        in out
    assert "t.jsonl decision 1  line 2  agrees more" in out
    assert "    before  0/1 agree, 1 flip: now calls lookup instead of search" in out
    assert "    now     1/1 agree" in out
    assert "decision 2" not in out.split("compared with")[1]
    assert f"  with {snapshot}'s tools: requests: 3 sent, 0 from the cassette · tokens: 33 " \
        "in, 21 out · cost unknown: no price for openai:local" in out
    assert "\nrequests: 6 sent, 0 from the cassette · tokens: 66 in, 42 out" in out


@pytest.mark.parametrize(("reference", "message"), [
    ("nosuchref:tools_v.py", "'nosuchref' is not a git revision"),
    ("HEAD:missing.py", "git show failed"),
    ("HEAD", "neither a snapshot file nor GITREF:path/to/module.py"),
    ("t.jsonl", "t.jsonl: not valid JSON at line 2"),
    ("other.json", "other.json: not an agentforge snapshot"),
])
def test_a_reference_that_cannot_be_loaded_exits_3(cli, project, reference, message):
    (project / "other.json").write_text('{"a": 1}', encoding="utf-8")
    with model_server(policy) as server:
        result = _eval(cli, server, "--compare-to", reference)
        assert server.count() == 0
    assert result.exit_code == 3
    assert message in result.stderr
