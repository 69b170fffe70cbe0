"""Framework message histories replayed against today's tools: pydantic-ai's
``all_messages_json()`` and LangChain's ``messages_to_dict``, each sample made by the real
library (offline: pydantic-ai's ``FunctionModel`` calls the tools without a network), a
malformed variant refused with file and place, and ``--update`` writing results back in
the library's own shape (read back by the library)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import TranscriptError, open_transcript


def pydantic_ai_history(path: Path, *, found: str = "found") -> Path:
    """A pydantic-ai run whose model calls ``lookup`` twice (Paris, then Oslo), saved."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turns = sum(1 for m in messages if isinstance(m, ModelResponse))
        if turns == 0:
            return ModelResponse(parts=[ToolCallPart("lookup", {"city": "Paris"}, "c1")])
        if turns == 1:
            return ModelResponse(parts=[ToolCallPart("lookup", '{"city": "Oslo"}', "c2")])
        return ModelResponse(parts=[TextPart("Both found.")])

    agent = Agent(FunctionModel(model))

    @agent.tool_plain
    def lookup(city: str) -> str:
        """Look a city up."""
        return f"{city}: {found}"

    result = asyncio.run(agent.run("Paris and Oslo?"))
    path.write_bytes(result.all_messages_json())
    return path


def langchain_history(path: Path, *, found: str = "found") -> Path:
    from langchain_core.messages import (
        AIMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
        messages_to_dict,
    )

    messages = [SystemMessage("You look cities up."), HumanMessage("Paris?"),
                AIMessage("", tool_calls=[{"name": "lookup", "args": {"city": "Paris"},
                                           "id": "c1"}]),
                ToolMessage(f"Paris: {found}", tool_call_id="c1"), AIMessage("Found.")]
    path.write_text(json.dumps(messages_to_dict(messages)), encoding="utf-8")
    return path


HISTORIES = [("pydantic-ai", pydantic_ai_history, 2), ("langchain", langchain_history, 1)]


@pytest.mark.parametrize(("fmt", "make", "calls"), HISTORIES)
def test_a_framework_history_replays_all_matched(cli, tmp_path, city_tools, fmt, make,
                                                  calls):
    path = make(tmp_path / "history.json")
    done = cli("replay", str(path), "-t", city_tools, "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == fmt
    assert data["summary"]["matched"] == calls and sum(data["summary"].values()) == calls


@pytest.mark.parametrize(("fmt", "make", "calls"), HISTORIES)
def test_update_writes_results_the_library_reads_back(cli, tmp_path, city_tools, fmt, make,
                                                       calls):
    path = make(tmp_path / "history.json", found="gone")
    assert cli("replay", str(path), "-t", city_tools).exit_code == 1
    assert cli("replay", str(path), "-t", city_tools, "--update").exit_code == 0
    assert cli("replay", str(path), "-t", city_tools).exit_code == 0
    text = path.read_text(encoding="utf-8")
    if fmt == "pydantic-ai":
        from pydantic_ai.messages import ModelMessagesTypeAdapter, ToolReturnPart

        messages = ModelMessagesTypeAdapter.validate_json(text)
        returns = [p.content for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        assert returns == ["Paris: found", "Oslo: found"]
    else:
        from langchain_core.messages import ToolMessage, messages_from_dict

        messages = messages_from_dict(json.loads(text))
        assert [m.content for m in messages if isinstance(m, ToolMessage)] == ["Paris: found"]


def test_a_pydantic_ai_retry_prompt_is_an_error_result(tmp_path):
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if sum(1 for m in messages if isinstance(m, ModelResponse)) == 0:
            return ModelResponse(parts=[ToolCallPart("lookup", {"city": "Atlantis"}, "c1")])
        return ModelResponse(parts=[TextPart("No such city.")])

    agent = Agent(FunctionModel(model))

    @agent.tool_plain(retries=2)
    def lookup(city: str) -> str:
        """Look a city up."""
        raise ModelRetry(f"{city} is not a city")

    path = tmp_path / "retry.json"
    path.write_bytes(asyncio.run(agent.run("Atlantis?")).all_messages_json())
    results = [e for e in open_transcript(path).events() if type(e).__name__ == "ToolResult"]
    assert [(r.is_error, "Atlantis is not a city" in r.content) for r in results] == [
        (True, True)]


def test_a_malformed_pydantic_ai_part_is_named(tmp_path):
    path = pydantic_ai_history(tmp_path / "history.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data[1]["parts"][0]["tool_name"] = None
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"messages\[1\], parts\[0\]: a tool call needs "
                                              'a "name" string'):
        list(open_transcript(path).events())


def test_a_langchain_message_without_content_is_named(tmp_path):
    path = langchain_history(tmp_path / "history.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    del data[3]["data"]["content"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TranscriptError, match=r'messages\[3\], data: a "tool" message needs '
                                              '"content"'):
        list(open_transcript(path).events())
