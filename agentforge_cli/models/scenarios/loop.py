"""One scenario run live: the prompt sent with the tools; each call the model makes is
executed through the ``ToolService`` (with its binding: an argument error is a result
the model can learn from) and the results fed back, until the model answers without a
call or the scenario's maximum of steps (requests) is reached."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.core.define.spec import ToolExecutionRequest
from agentforge_cli.models.model import Model
from agentforge_cli.models.prompt import Answered, Asked, Call, Item, Prompt, Said
from agentforge_cli.models.scenarios.cases import Scenario

__all__ = ["Executed", "ScenarioRun", "run_scenario"]


@dataclass(frozen=True, slots=True)
class Executed:
    """One call the model made, and what the tool answered."""

    step: int
    call: Call
    result: str
    is_error: bool


@dataclass(slots=True)
class ScenarioRun:
    """What happened in one run of a scenario, and the expectations it missed."""

    steps: int = 0
    calls: list[Executed] = field(default_factory=list)
    text: str = ""
    """The model's last text (its final answer when it stopped calling)."""
    out_of_steps: bool = False
    failures: list[str] = field(default_factory=list)
    cached: int = 0
    """Steps answered from the cassette."""

    @property
    def passed(self) -> bool:
        return not self.failures


def run_scenario(scenario: Scenario, service: Any, model: Model, tools: list[dict[str, Any]],
                 tools_lock: threading.Lock) -> ScenarioRun:
    """Run ``scenario`` once; ``tools_lock`` keeps tool calls one at a time across
    concurrent runs (the tools need not be thread-safe).

    Raises:
        ModelError: A request failed.
    """
    run = ScenarioRun()
    items: list[Item] = [Said("user", scenario.prompt)]
    while run.steps < scenario.max_steps:
        reply = model.ask(Prompt(scenario.system, tuple(items), tools))
        run.steps += 1
        run.cached += reply.cached
        run.text = reply.text
        if not reply.calls:
            return run
        items.append(Asked(reply.calls, reply.text))
        for call in reply.calls:
            with tools_lock:
                text, is_error = service.execute(ToolExecutionRequest(
                    id=call.id, name=call.name, arguments=call.arguments))
            run.calls.append(Executed(run.steps, call, text, is_error))
            items.append(Answered(call, text, is_error))
    run.out_of_steps = True
    return run
