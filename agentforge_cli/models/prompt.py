"""What a connection sends and receives, whatever the provider: a conversation of
messages, calls and results, and the model's reply.

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Answered", "Asked", "Call", "Item", "Prompt", "Reply", "Said", "Usage"]


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call: the id the model gave it (or one made up), the tool, the argument
    JSON text."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class Said:
    """Text of the user or of the model."""

    role: str  # "user" or "assistant"
    text: str


@dataclass(frozen=True, slots=True)
class Asked:
    """A model turn that made tool calls, with the text it wrote alongside."""

    calls: tuple[Call, ...]
    text: str = ""


@dataclass(frozen=True, slots=True)
class Answered:
    """A tool's answer to a call."""

    call: Call
    content: str
    is_error: bool = False


Item = Said | Asked | Answered


@dataclass(frozen=True, slots=True)
class Prompt:
    """One request: the system prompt, the conversation so far and the tools, as the
    provider export of the connection (``tools list --format``) prints them."""

    system: str | None
    items: tuple[Item, ...]
    tools: list[dict[str, Any]]


@dataclass(slots=True)
class Usage:
    """Tokens a response counted (and the cost it reported, if it did)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    """US dollars, as the provider reported them with the response (OpenRouter's
    ``usage.cost``); not summed by :meth:`add` (a run's money is
    :class:`~agentforge_cli.models.prices.Spend`)."""

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens


@dataclass(frozen=True, slots=True)
class Reply:
    """What the model answered: its tool calls (in order), its text, the tokens."""

    calls: tuple[Call, ...]
    text: str = ""
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    """The response came from the cassette: no request was sent."""
