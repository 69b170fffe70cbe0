"""``agentforge eval`` compares arguments after coercion *and* scrubbing, with replay's
rules: ``--scrub``, ``[tool.agentforge.replay]`` and ``@tool(volatile=...)``. Asked
through the official OpenAI SDK against the local policy server, which answers with
another timestamp than the recorded one."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest
from model_servers import Calls, model_server

RECORDED = {"query": "disk full", "since": "2026-03-01T10:00:00Z", "limit": 5}
TOOLS = '''
from datetime import datetime
from typing import Annotated
from agentforge_cli import P, tool

@tool(volatile={volatile})
def search_logs(query: Annotated[str, P("what to look for")], since: datetime,
                limit: int = 10) -> str:
    """Search the logs."""
    return query
'''


@pytest.fixture(autouse=True)
def _plain(plain_terminal, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-eval-scrub")


@pytest.fixture
def transcript(tmp_path):
    path = tmp_path / "logs.jsonl"
    lines = [{"type": "user", "content": "any disk errors lately?"},
             {"type": "tool_call", "id": "call_1", "name": "search_logs",
              "arguments": json.dumps(RECORDED)},
             {"type": "tool_result", "id": "call_1", "content": "none"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _eval(cli, tmp_path, transcript, target, *options, sent=None):
    arguments = sent or {**RECORDED, "since": "2026-04-02T08:30:00+00:00", "limit": "5"}
    with model_server(lambda wire, body: Calls([("search_logs", arguments)])) as server:
        result = cli("eval", str(target), str(transcript), "-m", "openai:local",
                     "--base-url", server.base_url("openai"),
                     "--cache", str(tmp_path / "c.yaml"), *options)
        assert server.count() == 1
    return result


def _reply(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["decisions"][0]["replies"][0]


def test_without_a_rule_another_timestamp_is_other_arguments(cli, tmp_path, transcript,
                                                             write_module):
    target = write_module("logs_plain", TOOLS.format(volatile="None"))
    reply = _reply(_eval(cli, tmp_path, transcript, target, "--json"))
    assert reply["verdict"] == "other arguments"
    assert "scrubbed" not in reply


def test_scrub_timestamps_makes_it_agree_and_says_what_was_scrubbed(cli, tmp_path,
                                                                  transcript, write_module):
    target = write_module("logs_plain", TOOLS.format(volatile="None"))
    reply = _reply(_eval(cli, tmp_path, transcript, target, "--json", "--scrub", "timestamps"))
    assert reply["verdict"] == "agree"  # "5" and 5 coerced, the two dates scrubbed
    assert reply["scrubbed"] == ["$.since (timestamps)"]
    trace = _eval(cli, tmp_path, transcript, target, "--scrub", "timestamps")
    assert "  scrubbed  $.since (timestamps)\n  1/1 agree  ✓" in trace.stdout


def test_a_tools_volatile_path_applies_to_its_arguments(cli, tmp_path, transcript,
                                                        write_module):
    target = write_module("logs_volatile", TOOLS.format(volatile='["$.since"]'))
    reply = _reply(_eval(cli, tmp_path, transcript, target, "--json"))
    assert reply["verdict"] == "agree"
    assert reply["scrubbed"] == ["$.since"]


def test_the_projects_scrubbers_apply_and_other_values_still_count(cli, tmp_path, transcript,
                                                                   write_module, monkeypatch):
    target = write_module("logs_plain", TOOLS.format(volatile="None"))
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentforge.replay]\nvolatile = {search_logs = ["timestamps"]}\n',
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    other = {**RECORDED, "since": "2026-04-02T08:30:00Z", "query": "disk fine"}
    result = _eval(cli, tmp_path, transcript, target, "--json", "--junit", "r.xml", sent=other)
    reply = _reply(result)
    assert reply["verdict"] == "other arguments"  # the query differs, scrubbed or not
    assert reply["scrubbed"] == ["$.since (timestamps)"]
    failure = ElementTree.parse(tmp_path / "r.xml").getroot().find("testsuite/testcase/failure")
    assert "scrubbed: $.since (timestamps)" in failure.text


def test_a_bad_scrubber_exits_2_before_any_request(cli, tmp_path, transcript):
    result = cli("eval", "sample_tools.crm:CrmTools", str(transcript), "-m", "openai:local",
                 "--base-url", "http://127.0.0.1:9/v1", "--cache", str(tmp_path / "c.yaml"),
                 "--scrub", "timestamp")
    assert result.exit_code == 2
    assert "--scrub: 'timestamp' is not a scrubber" in result.stderr
    assert "did you mean 'timestamps'?" in result.stderr
