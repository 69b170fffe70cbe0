"""``agentforge chat``: the loop live, through the official SDKs against the local model
server (a policy answering each request) and with a scripted model: the trace as replay
prints it, errors fed back, --max-steps, the prompt loop, and a recorded transcript that
replay reads all-matched and eval reads."""

from __future__ import annotations

import json

import pytest
from model_servers import Calls, Text, model_server

CRM = "sample_tools.crm:CrmTools"
ASK = '查一下客户"长路"的信息'


@pytest.fixture(autouse=True)
def _plain(plain_terminal, monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _results(wire, body):
    """The tool results a request holds, as texts, whatever the wire format."""
    found = []

    def walk(value):
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            if value.get("role") == "tool" or value.get("type") == "tool_result":
                found.append(value["content"])
            elif "functionResponse" in value:
                found.extend(value["functionResponse"]["response"].values())
            else:
                for item in value.values():
                    walk(item)

    walk(body.get("messages") or body.get("contents") or [])
    return found


def _agent(wire, body):
    """Calls once, with an argument missing; corrects itself on the error; then answers."""
    results = _results(wire, body)
    if not results:
        return Calls([("queryCustomer", {"name": "长路"})])
    if len(results) == 1:
        return Calls([("queryCustomer", {"name": "长路", "limit": 5})], text="limit is needed")
    return Text("已查询到客户长路。")


def _chat(cli, server, connection, tmp_path, *options):
    return cli("chat", CRM, "-m", f"{connection}:local", "--base-url",
               server.base_url(connection), "--cache", str(tmp_path / "c.yaml"), *options)


@pytest.mark.parametrize("connection", ["openai", "anthropic", "gemini"])
def test_the_loop_runs_the_calls_feeds_errors_back_and_records_a_replayable_transcript(
        cli, tmp_path, connection):
    record = tmp_path / "chat.jsonl"
    with model_server(_agent) as server:
        result = _chat(cli, server, connection, tmp_path, "--message", ASK,
                       "--record", str(record))
        assert server.count() == 3
        second = server.requests[1][3]
    assert result.exit_code == 0, result.output
    assert any('Required parameter "limit"' in text for text in _results("", second))
    assert result.stdout.splitlines() == [
        f"[user]    {ASK}",
        "[think]   call queryCustomer",
        '[act]     queryCustomer {"name":"长路"}',
        '[reflect] queryCustomer → Required parameter "limit" of tool "queryCustomer" is',
        "          missing; queryCustomer takes name (string), limit (integer)",
        "[think]   limit is needed",
        '[act]     queryCustomer {"name":"长路","limit":5}',
        '[reflect] CrmTools.queryCustomer("长路", 5) → customer:长路,limit:5',
        "[final]   已查询到客户长路。",
    ]
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert [line["type"] for line in lines] == [
        "user", "tool_call", "tool_result", "assistant", "tool_call", "tool_result",
        "assistant"]
    replayed = cli("replay", str(record), "-t", CRM, "--json")
    summary = json.loads(replayed.stdout)["summary"]
    assert summary["matched"] == 1 and summary["drifted"] == 1  # the refused call


def test_a_chat_whose_calls_bind_replays_all_matched_and_eval_reads_it(cli, tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([
        {"call": "queryCustomer", "arguments": {"name": "长路", "limit": 5}},
        {"text": "已查询到客户长路。"}]), encoding="utf-8")
    record = tmp_path / "chat.jsonl"
    result = cli("chat", CRM, "-m", f"scripted:{script}", "--message", ASK,
                 "--record", str(record))
    assert result.exit_code == 0, result.output
    replayed = cli("replay", str(record), "-t", CRM)
    assert replayed.exit_code == 0, replayed.output
    assert "matched           1" in replayed.stdout and "total             1" in replayed.stdout
    policy = lambda wire, body: Calls([("queryCustomer", {"name": "长路", "limit": 5})])  # noqa: E731
    with model_server(policy) as server:
        evaluated = cli("eval", CRM, str(record), "-m", "openai:local", "--base-url",
                        server.base_url("openai"), "--cache", str(tmp_path / "c.yaml"),
                        "--json")
    assert evaluated.exit_code == 0, evaluated.output
    assert json.loads(evaluated.stdout)["summary"]["agreement"] == 1.0


def test_max_steps_bounds_a_model_that_never_stops(cli, tmp_path):
    policy = lambda wire, body: Calls([("queryCustomer", {"name": "长路", "limit": 5})])  # noqa: E731
    with model_server(policy) as server:
        result = _chat(cli, server, "openai", tmp_path, "--message", ASK, "--max-steps", "3",
                       "--record", str(tmp_path / "t.jsonl"))
        assert server.count() == 3
    assert result.exit_code == 1
    assert "stopped after 3 requests (--max-steps): the model was still calling tools" \
        in result.stderr
    assert result.stdout.count("[act]") == 3
    assert (tmp_path / "t.jsonl").read_text(encoding="utf-8").count("tool_result") == 3


def test_the_prompt_reads_a_message_a_line_until_end_of_input(cli, tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"call": "queryCustomer",
                                   "arguments": {"name": "a", "limit": 1}},
                                  "first done", "second done"]), encoding="utf-8")
    result = cli("chat", CRM, "-m", f"scripted:{script}", "--record",
                 str(tmp_path / "t.jsonl"), input="one\n\ntwo\n")
    assert result.exit_code == 0, result.output
    assert [line for line in result.stdout.splitlines() if line.startswith("[")] == [
        "[user]    one", "[think]   call queryCustomer",
        '[act]     queryCustomer {"name":"a","limit":1}',
        '[reflect] CrmTools.queryCustomer("a", 1) → customer:a,limit:1',
        "[final]   first done", "[user]    two", "[final]   second done"]
    assert result.stderr.count("you> ") == 4  # the blank line asked again; EOF ends


def test_a_script_that_drifted_from_the_tools_fails_before_anything_runs(cli, tmp_path):
    script = tmp_path / "s.json"
    script.write_text('[{"call": "queryCustomer", "arguments": {"name": "a", "limt": 1}}]',
                      encoding="utf-8")
    result = cli("chat", CRM, "-m", f"scripted:{script}", "--message", "hi")
    assert result.exit_code == 3
    assert result.stdout == ""
    assert "script step 1: queryCustomer:" in result.stderr


def test_usage_and_load_errors(cli, tmp_path):
    assert cli("chat", CRM, "-m", "gpt-4o", "--message", "x").exit_code == 2
    assert cli("chat", CRM, "-m", "openai:x", "--message", "x", "--max-steps", "0"
               ).exit_code == 2
    missing = cli("chat", CRM, "-m", "openai:x", "--message", "x")
    assert missing.exit_code == 3 and "no API key" in missing.stderr
