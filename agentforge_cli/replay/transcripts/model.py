"""The common event model every transcript format is read into, and its one error.

A conversation is a sequence of four kinds of events::

    UserMessage        what the person said
    AssistantMessage   what the model said (its reasoning or its final answer)
    ToolCall           the model asked for a tool: id, name, the raw argument *string*
    ToolResult         what the tool answered, recorded: content and (where the format
                       records it) whether it was an error

A call recorded in an MCP session may carry the requests the server made of its client
while it ran (``ToolCall.asked``: :class:`ServerRequest`, each with the client's recorded
answer), which a replay answers again from the recording.

``SystemPrompt`` (the instructions the model was given: a ``system`` or ``developer``
message, a request's ``system``, ``systemInstruction`` or ``instructions``) where a format
records one; replay passes it over, ``eval`` sends it again. In a file holding more than
one conversation, ``ConversationStart`` comes before each conversation's first event
(``ToolCall.conversation`` names the conversation a call belongs to: 0 for a file of one
conversation).

Calls are numbered in the order they appear (``ToolCall.index``); a ``ToolResult`` names
the call it answers by that number (``call_index``), whatever way the format pairs them
(ids, or position).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.replay.transcripts.errors import TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

__all__ = [
    "AssistantMessage",
    "ConversationStart",
    "Event",
    "ServerRequest",
    "SystemPrompt",
    "ToolCall",
    "ToolResult",
    "TranscriptError",
    "UserMessage",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class UserMessage:
    """Text the user sent."""

    content: str
    """The text."""
    where: Place = WHOLE_FILE
    """Where it is in the file (``line 1``, ``messages[0]``)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class AssistantMessage:
    """Text the model wrote: reasoning before a call, or its final answer."""

    content: str
    """The text."""
    where: Place = WHOLE_FILE
    """Where it is in the file."""
    thinking: bool = False
    """The text is the model's private reasoning (Anthropic ``thinking`` blocks)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SystemPrompt:
    """The system prompt the conversation was given, from where it is first recorded
    (a later one replaces it)."""

    content: str
    """The text."""
    where: Place = WHOLE_FILE
    """Where it is in the file."""
    file_wide: bool = False
    """Given once for the whole file (a document's envelope: a tau2-bench results file's
    policy), so every conversation in it starts with it."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ServerRequest:
    """A request an MCP server made of its client during a call (``roots/list``,
    ``elicitation/create``, ``sampling/createMessage``), with the client's recorded
    answer: a result, an error, or neither (none was recorded)."""

    method: str
    """The request's method."""
    params: Any
    """Its ``params`` as recorded (``None`` when it had none)."""
    result: Any = None
    """The client's recorded ``result`` (``None``: it answered with an error, or not at
    all)."""
    error: Any = None
    """The client's recorded JSON-RPC ``error``, if it answered with one."""
    where: Place = WHOLE_FILE
    """Where the request is in the file."""
    standing: bool = False
    """A ``roots/list`` answered before the call began (outside every call, or during an
    earlier one): the recorded client's roots, which answer any ``roots/list`` the call
    lacks (a server asks for the roots when it chooses, and keeps them)."""

    @property
    def answered(self) -> bool:
        """The recording holds the client's answer."""
        return self.result is not None or self.error is not None


# Hot path (ToolCall, ToolResult): two events a replayed call. Not frozen (a frozen
# __init__ pays an object.__setattr__ per field, a third of building one) and may be built
# positionally, in field order; nothing changes an event once built: readers make a new
# one (dataclasses.replace).
@dataclass(slots=True)
class ToolCall:
    """One function call the model made."""

    index: int
    """Position among the transcript's calls, from 0."""
    id: str | None
    """The call id the model chose, if the format records one."""
    name: str
    """The tool called."""
    arguments: str
    """The raw JSON argument string, as the model wrote it (an object input is written
    as compact JSON text)."""
    raw: Any = field(default=None, compare=False, repr=False)
    """The record the call was read from (a JSONL line, a ``tool_calls`` entry, a
    ``tool_use`` block)."""
    where: Place = WHOLE_FILE
    """Where it is in the file."""
    conversation: int = 0
    """The conversation it belongs to (:class:`ConversationStart`), 0 in a file of one."""
    asked: tuple[ServerRequest, ...] | None = None
    """The requests the server made of the client while the call ran, in order, as an MCP
    session records them; ``None`` when the format records no such requests."""


@dataclass(slots=True)
class ToolResult:
    """The recorded answer to a call."""

    call_index: int
    """``ToolCall.index`` of the call it answers."""
    id: str | None
    """The call id it names, if any."""
    content: str
    """The text the model received."""
    is_error: bool | None
    """Whether it reported an error; ``None`` when the format does not record it."""
    where: Place = WHOLE_FILE
    """Where it is in the file."""
    part: int | None = None
    """Its position in its record's list of parts, where a record holds several (an
    Anthropic message's content blocks, a Gemini content's parts): what ``--update``
    rewrites."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ConversationStart:
    """A new conversation begins in a file that holds several (a trajectory of a
    many-conversation file, a conversation rebuilt from a cassette's requests).

    Replay gives each conversation its own tools when the target can make them afresh.
    """

    conversation: int
    """Its number, from 1 in order of appearance (0 is a file's only conversation)."""
    where: Place = WHOLE_FILE
    """Where it starts in the file."""
    alongside: bool = False
    """Earlier conversations may go on after it starts (a cassette's conversations
    interleave); ``False``: every earlier conversation is over (their tools may go)."""


Event = (UserMessage | AssistantMessage | ToolCall | ToolResult | ConversationStart
         | SystemPrompt)
"""Anything a transcript yields."""
