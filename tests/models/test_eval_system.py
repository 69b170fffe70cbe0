"""``agentforge eval`` sends the system prompt each conversation was recorded with: corpus
cassettes read in place, asked through the official SDKs of four connections against the
local model server, which checks what every request carries. ``--system`` replaces it."""

from __future__ import annotations

import json

import pytest
import yaml
from model_servers import CORPUS, Text, model_server, signature

from agentforge_cli.replay.transcripts.files.cassettes import body_value

CASES = {
    # connection: (cassette, tool module) -- each recorded with a system prompt
    "openai": ("crewai-research-openai", "crewai_research.py:ResearchTools"),
    "anthropic": ("crewai-research-anthropic", "crewai_research.py:ResearchTools"),
    "gemini": ("crewai-research-gemini", "crewai_research.py:ResearchTools"),
    "openai-responses": ("mira-responses-stream", "mira_tools.py:SecretTools"),
}


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(name, "sk-corpus-test")


def _text(value):
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_text(item) for item in value) if t)
    if isinstance(value, dict):
        for key in ("text", "parts", "content"):
            if key in value:
                return _text(value[key])
    return ""


def system_of(body):
    """The system prompt a request body carries, in any of the four wire formats."""
    for key in ("system", "instructions", "systemInstruction", "system_instruction"):
        if body.get(key):
            return _text(body[key])
    for message in body.get("messages") or body.get("input") or []:
        if isinstance(message, dict) and message.get("role") in ("system", "developer"):
            return _text(message.get("content"))
    return None


def _recorded_systems(cassette):
    """The system prompt of each recorded request, by the request's conversation so far."""
    document = yaml.safe_load(cassette.read_text(encoding="utf-8"))
    found = {}
    for interaction in document["interactions"]:
        body = body_value(interaction["request"])
        if isinstance(body, dict) and system_of(body):
            found.setdefault(signature(body), system_of(body))
    return found


def _eval(cli, server, connection, cassette, module, tmp_path, *options):
    from cli_support import ROOT

    target = str(ROOT / "tests" / "corpus" / "tools" / module)
    result = cli("eval", target, str(cassette), "-m", f"{connection}:recorded",
                 "--base-url", server.base_url(connection),
                 "--cache", str(tmp_path / f"{connection}.yaml"), "--json", *options)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("connection", CASES)
def test_each_request_carries_the_system_prompt_its_conversation_was_recorded_with(
        connection, cli, tmp_path):
    folder, module = CASES[connection]
    cassette = next((CORPUS / folder).glob("*.yaml"))
    recorded = _recorded_systems(cassette)
    assert recorded  # the cassette does hold system prompts
    with model_server(lambda wire, body: Text("noted")) as server:
        report = _eval(cli, server, connection, cassette, module, tmp_path)
    assert server.count() == report["summary"]["replies"] > 0
    for _, _, _, body in server.requests:
        assert system_of(body) == recorded[signature(body)]


def test_system_replaces_the_recorded_system_prompt(cli, tmp_path):
    folder, module = CASES["anthropic"]
    cassette = next((CORPUS / folder).glob("*.yaml"))
    with model_server(lambda wire, body: Text("noted")) as server:
        _eval(cli, server, "anthropic", cassette, module, tmp_path, "--system", "Be terse.")
    assert server.count() > 0
    assert {system_of(body) for _, _, _, body in server.requests} == {"Be terse."}


CRM = "sample_tools.crm:CrmTools"
QUERY = {"name": "长路", "limit": 5}


def _ask_each(cli, tmp_path, connection, transcript):
    """Every request eval sends for ``transcript``, through ``connection``'s SDK."""
    with model_server(lambda wire, body: Text("noted")) as server:
        result = cli("eval", CRM, str(transcript), "-m", f"{connection}:m", "--base-url",
                     server.base_url(connection), "--cache", str(tmp_path / "c.yaml"),
                     "--json")
        assert result.exit_code == 0, result.output
        return [body for _, _, _, body in server.requests]


def test_an_anthropic_documents_system_blocks_are_sent(cli, tmp_path):
    document = {"system": [{"type": "text", "text": "You are a CRM agent."},
                           {"type": "text", "text": "Be terse."}],
                "messages": [{"role": "user", "content": "查一下长路"},
                             {"role": "assistant", "content": [
                                 {"type": "tool_use", "id": "t1", "name": "queryCustomer",
                                  "input": QUERY}]}]}
    path = tmp_path / "anthropic.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    bodies = _ask_each(cli, tmp_path, "anthropic", path)
    assert [system_of(body) for body in bodies] == ["You are a CRM agent.\nBe terse."]


def test_a_gemini_documents_system_instruction_is_sent(cli, tmp_path):
    document = {"systemInstruction": {"parts": [{"text": "You are a CRM agent."}]},
                "contents": [{"role": "user", "parts": [{"text": "查一下长路"}]},
                             {"role": "model", "parts": [
                                 {"functionCall": {"name": "queryCustomer", "args": QUERY}}]}]}
    path = tmp_path / "gemini.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    bodies = _ask_each(cli, tmp_path, "gemini", path)
    assert [system_of(body) for body in bodies] == ["You are a CRM agent."]


def test_a_tau2_results_files_policy_goes_with_every_conversations_decisions(cli, tmp_path):
    def simulation(name):
        return {"id": name, "messages": [
            {"role": "assistant", "content": "Hi! How can I help you today?"},
            {"role": "user", "content": f"查一下{name}"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "name": "queryCustomer", "arguments": {"name": name, "limit": 5},
                 "requestor": "assistant"}]},
            {"role": "tool", "id": "c1", "content": f"customer:{name},limit:5",
             "requestor": "assistant"}]}

    results = {"info": {"environment_info": {"policy": "# CRM policy"}},
               "simulations": [simulation("长路"), simulation("小明")]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    bodies = _ask_each(cli, tmp_path, "openai", path)
    assert [system_of(body) for body in bodies] == ["# CRM policy"] * 2
