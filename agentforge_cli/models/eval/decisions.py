"""The decisions of a transcript: each model turn that made tool calls, with what the
model had seen before it.

A decision is a run of calls the model made together (its parallel calls), read from the
transcript's events; its context is every message, call and result before it in the
same conversation, the text the model wrote in the same turn excluded (it is part of the
answer). A call whose result was never recorded gets one saying so, because an API
refuses a conversation with an unanswered call. Calls without ids (Gemini) get
``call_<index>``. Private reasoning is left out. The system prompt a conversation was
recorded with (its last before the decision) goes with it; one the file gives for all its
conversations (``SystemPrompt.file_wide``) is where each conversation starts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from agentforge_cli.models.prompt import Answered, Asked, Call, Item, Said
from agentforge_cli.replay.transcripts import (
    AssistantMessage,
    ConversationStart,
    Event,
    SystemPrompt,
    ToolCall,
    ToolResult,
    UserMessage,
)

__all__ = ["NO_RESULT", "Decision", "find_decisions"]

NO_RESULT = "(no result was recorded for this call)"


@dataclass(frozen=True, slots=True)
class Decision:
    """One recorded model turn that made tool calls."""

    number: int
    """From 1, in the transcript's order."""
    conversation: int
    where: str
    """Where its first call is in the file (``line 3, ...``)."""
    context: tuple[Item, ...]
    recorded: tuple[Call, ...]
    system: str | None = None
    """The recorded system prompt, if the transcript keeps one."""


@dataclass(slots=True)
class _Thread:
    """One conversation being read: its items, and its calls by index."""

    items: list[Item] = field(default_factory=list)
    calls: dict[int, Call] = field(default_factory=dict)
    waiting: list[int] = field(default_factory=list)
    system: str | None = None


def _call(event: ToolCall) -> Call:
    return Call(event.id or f"call_{event.index}", event.name, event.arguments)


def _answered(thread: _Thread, items: list[Item]) -> list[Item]:
    """``items`` with a placeholder result for each call still waiting."""
    missing = [Answered(thread.calls[index], NO_RESULT) for index in thread.waiting]
    if not missing:
        return items
    # the placeholders go right after the turn that made the calls
    out: list[Item] = []
    for item in items:
        out.append(item)
        if isinstance(item, Asked):
            out.extend(answer for answer in missing if answer.call in item.calls)
    return out


def find_decisions(events: Iterable[Event]) -> Iterator[Decision]:
    """Every decision of the events, in order."""
    threads: dict[int, _Thread] = {}
    file_wide: str | None = None  # the system prompt every conversation starts with

    def thread_of(conversation: int) -> _Thread:
        found = threads.get(conversation)
        if found is None:
            found = threads[conversation] = _Thread(system=file_wide)
        return found

    number = 0
    pending: tuple[int, list[ToolCall], str, list[Item]] | None = None  # conv, calls, text, ctx

    def finish() -> Decision | None:
        nonlocal pending, number
        if pending is None:
            return None
        conversation, events_, text, context = pending
        pending = None
        thread = threads[conversation]
        calls = tuple(_call(event) for event in events_)
        number += 1
        decision = Decision(number, conversation, str(events_[0].where),
                            tuple(_answered(thread, context)), calls, thread.system)
        thread.items.append(Asked(calls, text))
        for event, call in zip(events_, calls, strict=True):
            thread.calls[event.index] = call
            thread.waiting.append(event.index)
        return decision

    current = 0
    for event in events:
        if isinstance(event, ToolCall):
            thread = thread_of(event.conversation)
            if pending is not None and pending[0] == event.conversation:
                pending[1].append(event)
                continue
            done = finish()
            if done is not None:
                yield done
            text = ""
            last = thread.items[-1] if thread.items else None
            if isinstance(last, Said) and last.role == "assistant":
                text = last.text  # the same turn's text: part of the answer
                thread.items.pop()
            pending = (event.conversation, [event], text, list(thread.items))
            continue
        done = finish()
        if done is not None:
            yield done
        if isinstance(event, ConversationStart):
            current = event.conversation
            thread_of(current)
        elif isinstance(event, UserMessage):
            thread_of(current).items.append(Said("user", event.content))
        elif isinstance(event, AssistantMessage) and not event.thinking:
            thread_of(current).items.append(Said("assistant", event.content))
        elif isinstance(event, ToolResult):
            _record_result(threads, event)
        elif isinstance(event, SystemPrompt):
            if event.file_wide:
                file_wide = event.content
            thread_of(current).system = event.content
    done = finish()
    if done is not None:
        yield done


def _record_result(threads: dict[int, _Thread], event: ToolResult) -> None:
    for thread in threads.values():
        if event.call_index in thread.calls:
            call = thread.calls[event.call_index]
            if event.call_index in thread.waiting:
                thread.waiting.remove(event.call_index)
            thread.items.append(Answered(call, event.content, bool(event.is_error)))
            return
