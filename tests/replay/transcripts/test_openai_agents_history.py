"""The OpenAI Agents SDK's ``result.to_input_list()`` is Responses items: a history made
by the SDK itself (with a scripted model, offline) replays all-matched, and its updated
results are items the SDK takes back as input."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any


def agents_history(path: Path, *, found: str = "found") -> Path:
    from agents import Agent, RunConfig, Runner, function_tool
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    @function_tool
    def lookup(city: str) -> str:
        """Look a city up."""
        return f"{city}: {found}"

    class Scripted(Model):
        """Calls ``lookup`` for Paris, then answers."""

        def __init__(self) -> None:
            self.turn = 0

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            self.turn += 1
            if self.turn == 1:
                out: list[Any] = [ResponseFunctionToolCall(
                    type="function_call", call_id="c1", name="lookup", id="fc_1",
                    arguments='{"city": "Paris"}', status="completed")]
            else:
                out = [ResponseOutputMessage(
                    type="message", id="m1", role="assistant", status="completed",
                    content=[ResponseOutputText(type="output_text", text="Found.",
                                                annotations=[])])]
            return ModelResponse(output=out, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    agent = Agent(name="cities", model=Scripted(), tools=[lookup])
    result = asyncio.run(Runner.run(agent, "Paris?",
                                    run_config=RunConfig(tracing_disabled=True)))
    path.write_text(json.dumps(result.to_input_list()), encoding="utf-8")
    return path


def test_an_agents_sdk_history_replays_all_matched(cli, tmp_path, city_tools):
    path = agents_history(tmp_path / "history.json")
    done = cli("replay", str(path), "-t", city_tools, "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "openai-responses"
    assert data["summary"]["matched"] == 1 and sum(data["summary"].values()) == 1


def test_updated_results_are_input_the_sdk_takes(cli, tmp_path, city_tools):
    from agents.items import TResponseInputItem
    from pydantic import TypeAdapter

    path = agents_history(tmp_path / "history.json", found="gone")
    assert cli("replay", str(path), "-t", city_tools).exit_code == 1
    assert cli("replay", str(path), "-t", city_tools, "--update").exit_code == 0
    items = TypeAdapter(list[TResponseInputItem]).validate_json(path.read_text(
        encoding="utf-8"))
    outputs = [item["output"] for item in items if item.get("type") == "function_call_output"]
    assert outputs == ["Paris: found"]
