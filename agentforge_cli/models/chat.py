"""The agent loop, live: a user message, the model's calls run through the
:class:`~agentforge_cli.ToolService` with the tools' own binding, their results (errors
included, so the model can correct itself) sent back, until the model answers with text
or ``max_steps`` requests have been made.

Each turn is reported as the events a replay reads (a user message, the model's text,
a call with its result), so ``chat`` prints the trace as ``replay`` does, and the
conversation is written as an agentforge JSONL transcript (:func:`transcript_lines`)
that ``replay`` and ``eval`` read. Nothing here prints.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentforge_cli.core.define.spec import ToolExecutionRequest
from agentforge_cli.models.prompt import Answered, Asked, Item, Prompt, Reply, Said

__all__ = ["Asking", "Chat", "TurnEnd", "transcript_lines"]


class Asking(Protocol):
    """What the loop needs of a model (an opened connection or a scripted model)."""

    name: str

    def export(self, specs: Iterable[Any], origins: Mapping[str, Any] | None = None
               ) -> list[dict[str, Any]]: ...

    def ask(self, prompt: Prompt) -> Reply: ...


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """How a turn ended: ``answered`` (the model wrote its answer) or not (the step bound
    was reached while it still made calls), and the requests it took."""

    answered: bool
    steps: int


@dataclass(slots=True)
class Chat:
    """One conversation with ``model`` over the tools of ``service``.

    ``on_event`` receives each event as it happens: a ``UserMessage``, an
    ``AssistantMessage`` (text beside calls, or the answer) and a ``CallReport`` per call
    run (the replay trace's entries).
    """

    model: Asking
    service: Any
    system: str | None = None
    max_steps: int = 10
    on_event: Callable[[Any], None] = lambda event: None
    items: list[Item] = field(default_factory=list)
    """The conversation so far, as the model is sent it."""
    _calls: int = 0

    def turn(self, message: str) -> TurnEnd:
        """Send the user's ``message`` and run the loop until the model answers.

        Raises:
            ModelError: The model could not be asked (the conversation keeps what
                happened before).
        """
        from agentforge_cli.replay.transcripts.model import AssistantMessage, UserMessage

        tools = self.model.export(self.service.specifications)
        self.items.append(Said("user", message))
        self.on_event(UserMessage(content=message))
        for step in range(1, self.max_steps + 1):
            reply = self.model.ask(Prompt(self.system, tuple(self.items), tools))
            if not reply.calls:
                self.items.append(Said("assistant", reply.text))
                self.on_event(AssistantMessage(content=reply.text))
                return TurnEnd(True, step)
            self.items.append(Asked(reply.calls, reply.text))
            if reply.text.strip():
                self.on_event(AssistantMessage(content=reply.text))
            for call in reply.calls:
                self.items.append(self._run(call))
        return TurnEnd(False, self.max_steps)

    def _run(self, call: Any) -> Answered:
        from agentforge_cli.replay.report import CallReport
        from agentforge_cli.replay.runner import describe_invocation
        from agentforge_cli.replay.transcripts.place import Place

        started = time.perf_counter()
        result = self.service.execute(ToolExecutionRequest(
            id=call.id, name=call.name, arguments=call.arguments))
        elapsed = (time.perf_counter() - started) * 1000
        self.on_event(CallReport(
            self._calls, call.id, call.name, call.arguments, Place(), result.text,
            result.is_error, elapsed,
            describe_invocation(self.service, call.name, call.arguments)))
        self._calls += 1
        return Answered(call, result.text, result.is_error)


def transcript_lines(items: Iterable[Item]) -> Iterator[str]:
    """The conversation as agentforge JSONL lines (arguments with secrets masked, as a
    :class:`~agentforge_cli.CallRecorder` writes them)."""
    from agentforge_cli.core.observe.masking import mask_arguments

    def line(**fields: Any) -> str:
        return json.dumps(fields, ensure_ascii=False, separators=(",", ":")) + "\n"

    for item in items:
        if isinstance(item, Said):
            yield line(type=item.role, content=item.text)
        elif isinstance(item, Asked):
            if item.text.strip():
                yield line(type="assistant", content=item.text)
            for call in item.calls:
                yield line(type="tool_call", id=call.id, name=call.name,
                           arguments=mask_arguments(call.arguments, as_recorded=True))
        else:
            yield line(type="tool_result", id=item.call.id, content=item.content,
                       is_error=item.is_error)
