"""``agentforge eval`` on the command line, against a local OpenAI-compatible server
answering from a policy: flips, argument errors, no call, --min-agreement, the JUnit
report, exit codes, and the key never shown."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest
from model_servers import Calls, Status, Text, model_server

CRM = "sample_tools.crm:CrmTools"
TRANSCRIPT = "sample_tools/transcripts/crm.jsonl"
SECRET = "sk-eval-cli-77e1d2"


@pytest.fixture(autouse=True)
def _plain(plain_terminal, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def _offered(body):
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _run(cli, server, tmp_path, *options, target=CRM):
    return cli("eval", target, TRANSCRIPT, "-m", "openai:local", "--base-url",
               server.base_url("openai"), "--cache", str(tmp_path / "c.yaml"), *options)


def test_the_trace_shows_each_decision_and_the_totals(cli, tmp_path):
    policy = lambda wire, body: Calls([("queryCustomer", {"name": "长路", "limit": "5"})])  # noqa: E731
    with model_server(policy) as server:
        result = _run(cli, server, tmp_path, "-k", "3")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "decision 1  line 2" in out
    assert '  recorded  queryCustomer {"name":"长路","limit":5}' in out
    assert "3/3 agree  ✓" in out  # "5" binds as 5: equal after coercion
    assert "agreement 3/3 (100%) · pass^3 1/1 · pass@3 1/1" in out
    assert "requests: 3 sent, 0 from the cassette · tokens: 33 in, 21 out" in out
    assert SECRET not in result.output


def test_a_renamed_tool_is_a_flip_named_in_the_report(cli, tmp_path, write_module):
    module = write_module("crm_v2", '''
        from typing import Annotated
        from agentforge_cli import P, tool

        @tool(name="queryCustomerV2", description="look a customer up")
        def query(name: Annotated[str, P("who")], limit: int) -> str:
            return name
        ''')

    def policy(wire, body):
        return Calls([(_offered(body)[0], {"name": "长路", "limit": 5})])

    with model_server(policy) as server:
        result = _run(cli, server, tmp_path, "--json", target=str(module))
    decision = json.loads(result.stdout)["decisions"][0]
    assert decision["replies"][0]["verdict"] == "flip"
    assert decision["replies"][0]["note"] == "now calls queryCustomerV2 instead of queryCustomer"


@pytest.mark.parametrize(("answer", "verdict", "note"), [
    (Calls([("queryCustomer", {"name": "长路"})]), "argument error",
     'queryCustomer: "limit" is required by queryCustomer but was not sent'),
    (Calls([("queryCustomer", {"name": "长路", "limit": 5.5})]), "argument error",
     "non-integer value"),
    (Calls([("queryCustomer", {"name": "长", "limit": 5})]), "other arguments",
     '"limit": 5} (recorded {"name":"长路","limit":5})'),
    (Text("I cannot help"), "no call", "answered without a tool call"),
])
def test_each_verdict(cli, tmp_path, answer, verdict, note):
    with model_server(lambda wire, body: answer) as server:
        result = _run(cli, server, tmp_path, "--json")
    reply = json.loads(result.stdout)["decisions"][0]["replies"][0]
    assert reply["verdict"] == verdict
    assert note in reply["note"]


def test_min_agreement_fails_the_run_below_it_and_junit_names_the_decision(cli, tmp_path):
    answers = iter([Text("no")] + [Calls([("queryCustomer", {"name": "长路", "limit": 5})])] * 3)
    with model_server(lambda wire, body: next(answers)) as server:
        result = _run(cli, server, tmp_path, "-k", "4", "--concurrency", "1",
                      "--min-agreement", "90%", "--junit", str(tmp_path / "r.xml"))
        # again, played from the cassette: the same answers, none asked
        passing = _run(cli, server, tmp_path, "-k", "4", "--min-agreement", "0.75")
        assert server.count() == 4
    assert result.exit_code == 1
    assert "✗ agreement 75% is below --min-agreement 90%" in result.stdout
    case = ElementTree.parse(tmp_path / "r.xml").getroot().find("testsuite/testcase")
    assert case.get("name") == "decision 1: queryCustomer"
    assert case.find("failure").get("message") == "3/4 agree"
    assert passing.exit_code == 0
    assert "✓ agreement 75% is at least --min-agreement 75%" in passing.stdout


def test_offline_on_a_miss_exits_3_with_a_hint(cli, tmp_path):
    with model_server(lambda wire, body: Text("x")) as server:
        result = _run(cli, server, tmp_path, "--offline")
        assert server.count() == 0
    assert result.exit_code == 3
    assert "--offline: no response to POST" in result.stderr
    assert "run once without --offline" in result.stderr


def test_a_refused_request_exits_3_without_the_key(cli, tmp_path):
    with model_server(lambda wire, body: Status(401)) as server:
        result = _run(cli, server, tmp_path, "--retries", "0")
    assert result.exit_code == 3
    assert "OpenAI chat completions (openai:local) failed" in result.stderr
    assert SECRET not in result.output
    assert not (tmp_path / "c.yaml").exists()


def test_usage_errors_exit_2(cli, tmp_path):
    assert cli("eval", CRM, TRANSCRIPT, "-m", "gpt-4o").exit_code == 2
    assert cli("eval", CRM, TRANSCRIPT, "-m", "openai:x", "--min-agreement", "2").exit_code == 2


def test_replay_reads_the_cassette_eval_wrote(cli, tmp_path):
    policy = lambda wire, body: Calls([("queryCustomer", {"name": "长路", "limit": 5})])  # noqa: E731
    with model_server(policy) as server:
        _run(cli, server, tmp_path, "-k", "2")
    result = cli("replay", str(tmp_path / "c.yaml"), "-t", CRM, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["summary"]
    assert sum(summary.values()) == 2  # each asked request's call, read as replay reads
    assert SECRET not in (tmp_path / "c.yaml").read_text(encoding="utf-8")
