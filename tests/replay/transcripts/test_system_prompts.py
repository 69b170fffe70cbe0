"""System prompts are read as events of their own (what eval sends again), and replay
passes them over: its trace and verdicts are those of the same transcript without them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import (
    ConversationStart,
    SystemPrompt,
    open_transcript,
)

REPOSITORY = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("AGENTFORGE_CORPUS") or REPOSITORY.parent / "shared" / "corpus")
CRM = "sample_tools.crm:CrmTools"
CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function",
     "function": {"name": "queryCustomer", "arguments": '{"name":"长路","limit":5}'}}]}
RESULT = {"role": "tool", "tool_call_id": "c1", "content": "customer:长路,limit:5"}
WRONG = {"role": "tool", "tool_call_id": "c2", "content": "not what it answers"}
CALL2 = {**CALL, "tool_calls": [{**CALL["tool_calls"][0], "id": "c2"}]}


def _jsonl(path, *messages):
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages),
                    encoding="utf-8")
    return path


def _systems(path, fmt="auto"):
    return [(type(e).__name__, getattr(e, "content", None)) for e in
            open_transcript(path, fmt).events()
            if isinstance(e, SystemPrompt | ConversationStart)]


def _json(path, document):
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


ANTHROPIC = [{"role": "user", "content": "查一下"},
             {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                                                "name": "queryCustomer",
                                                "input": {"name": "长路", "limit": 5}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                           "content": "customer:长路,limit:5"}]}]
GEMINI = [{"role": "user", "parts": [{"text": "查一下"}]},
          {"role": "model", "parts": [{"functionCall": {"name": "queryCustomer",
                                                        "args": {"name": "长路", "limit": 5}}}]},
          {"role": "user", "parts": [{"functionResponse": {
              "name": "queryCustomer", "response": {"result": "customer:长路,limit:5"}}}]}]


@pytest.mark.parametrize(("document", "expected"), [
    ({"system": "be brief", "messages": ANTHROPIC}, "be brief"),
    ({"messages": ANTHROPIC, "system": [{"type": "text", "text": "be brief"},
                                        {"type": "text", "text": "be kind"}]},
     "be brief\nbe kind"),
    ({"systemInstruction": {"parts": [{"text": "be brief"}]}, "contents": GEMINI}, "be brief"),
    ({"contents": GEMINI, "system_instruction": {"role": "user", "parts": [
        {"text": "be brief"}, {"text": "be kind"}]}}, "be brief\nbe kind"),
])
def test_a_documents_envelope_gives_its_system_prompt(tmp_path, document, expected):
    path = _json(tmp_path / "d.json", document)
    assert _systems(path) == [("SystemPrompt", expected)]
    event = next(e for e in open_transcript(path).events() if isinstance(e, SystemPrompt))
    assert str(event.where) == next(k for k in document if k not in ("messages", "contents"))


def test_each_conversation_of_a_file_gives_its_envelopes_system_prompt(tmp_path):
    path = _jsonl(tmp_path / "many.jsonl", {"system": "be brief", "messages": ANTHROPIC},
                  {"messages": ANTHROPIC})
    assert _systems(path) == [("ConversationStart", None), ("SystemPrompt", "be brief"),
                              ("ConversationStart", None)]


@pytest.mark.parametrize(("fmt", "messages"), [
    ("langchain", [{"type": "system", "data": {"content": "be brief"}},
                   {"type": "human", "data": {"content": "hi"}}]),
    ("cohere", [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]),
    ("ollama", [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]),
    ("tau2", [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]),
    ("anthropic", [{"role": "system", "content": "be brief"}, *ANTHROPIC]),
])
def test_a_system_message_is_the_system_prompt_in_every_family(tmp_path, fmt, messages):
    path = _json(tmp_path / "m.json", messages)
    assert _systems(path, fmt) == [("SystemPrompt", "be brief")]


def test_a_tau2_results_files_policy_is_every_conversations_system_prompt():
    results = next((CORPUS / "tau2-telecom").glob("*.json"))
    events = [e for e in open_transcript(results).events() if isinstance(e, SystemPrompt)]
    assert len(events) == 1  # given once, for the whole file
    assert events[0].file_wide
    assert events[0].content.startswith("<main_policy>\n# Telecom Agent Policy")
    assert str(events[0].where) == "info.environment_info.policy"


def test_openai_system_and_developer_messages_are_the_system_prompt(tmp_path):
    path = _jsonl(tmp_path / "t.jsonl", {"role": "system", "content": "be brief"},
                  {"role": "user", "content": "hi"},
                  {"role": "developer", "content": [{"type": "text", "text": "be kind"}]})
    assert _systems(path) == [("SystemPrompt", "be brief"), ("SystemPrompt", "be kind")]


def test_responses_system_messages_are_the_system_prompt(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"input": [
        {"type": "message", "role": "developer", "content": [
            {"type": "input_text", "text": "use the tools"}]},
        {"type": "message", "role": "user", "content": "hi"}]}), encoding="utf-8")
    assert _systems(path) == [("SystemPrompt", "use the tools")]


@pytest.mark.parametrize(("folder", "first"), [
    ("crewai-research-anthropic", "You are a strategic planning assistant."),  # system
    ("crewai-research-gemini", "You are a strategic planning assistant."),  # systemInstruction
    ("crewai-research-openai", "You are a strategic planning assistant."),  # a system message
    ("mira-responses-stream", "Use parallel tool calling."),  # instructions
])
def test_a_cassette_gives_each_conversation_its_system_prompt_once(folder, first):
    cassette = next((CORPUS / folder).glob("*.yaml"))
    found = _systems(cassette)
    assert found[0][0] == "SystemPrompt" and found[0][1].startswith(first)
    # one system prompt at the start of each conversation, not one a request
    starts = [i for i, (kind, _) in enumerate(found) if kind == "ConversationStart"]
    assert len(found) == 2 * len(starts) + 1
    assert all(found[i + 1][0] == "SystemPrompt" for i in starts)


def _replayed(cli, path, *options):
    done = cli("replay", str(path), "-t", CRM, *options)
    assert done.exit_code in (0, 1), done.output
    return done.exit_code, done.stdout


def test_replay_passes_system_prompts_over(cli, tmp_path):
    plain = _jsonl(tmp_path / "a" / "t.jsonl", {"role": "user", "content": "查一下"},
                   CALL, RESULT, CALL2, WRONG, {"role": "assistant", "content": "done"})
    told = _jsonl(tmp_path / "b" / "t.jsonl", {"role": "user", "content": "查一下"},
                  CALL, RESULT, CALL2, WRONG, {"role": "assistant", "content": "done"},
                  {"role": "system", "content": "be brief"})
    between = _jsonl(tmp_path / "c" / "t.jsonl", {"role": "system", "content": "be brief"},
                     {"role": "user", "content": "查一下"}, CALL,
                     {"role": "developer", "content": "a reminder"}, RESULT, CALL2, WRONG,
                     {"role": "assistant", "content": "done"})
    code, trace = _replayed(cli, plain)
    assert code == 1  # the second result is not what the tool answers
    assert "✗ mismatched" in trace
    told_code, told_trace = _replayed(cli, told)

    def flat(text):  # a path may wrap where the terminal width falls
        return "".join(text.split())

    assert told_code == code
    assert flat(told_trace) == flat(trace).replace(f"{tmp_path}/a/", f"{tmp_path}/b/")

    def verdicts(path):
        report = json.loads(_replayed(cli, path, "--json")[1])
        return report["summary"], [(c["name"], c["status"]) for c in report["calls"]]

    assert verdicts(between) == verdicts(plain) == verdicts(told)


def test_replay_passes_an_envelopes_system_prompt_over(cli, tmp_path):
    wrong = [*ANTHROPIC[:2], {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "not what it answers"}]}]
    for messages in (ANTHROPIC, wrong):
        plain = _json(tmp_path / "a" / "t.json", {"messages": messages})
        told = _json(tmp_path / "b" / "t.json", {"system": [{"type": "text", "text": "x"}],
                                                  "messages": messages})
        code, trace = _replayed(cli, plain)
        told_code, told_trace = _replayed(cli, told)
        assert (told_code, "".join(told_trace.split())) == (
            code, "".join(trace.split()).replace(f"{tmp_path}/a/", f"{tmp_path}/b/"))
        plain_json = json.loads(_replayed(cli, plain, "--json")[1])
        told_json = json.loads(_replayed(cli, told, "--json")[1])
        assert told_json["summary"] == plain_json["summary"]
        for report in (plain_json, told_json):
            for call in report["calls"]:
                call.pop("duration_ms")
        assert told_json["calls"] == plain_json["calls"]
