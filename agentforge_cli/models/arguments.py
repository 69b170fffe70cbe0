"""Argument texts and objects, both ways: the APIs that take a call's arguments as an
object (Anthropic, Gemini) get the recorded text parsed as the binder parses it."""

from __future__ import annotations

import json
from typing import Any

from agentforge_cli.core.bind.arguments import parse_arguments
from agentforge_cli.errors import ArgumentError

__all__ = ["as_object", "as_text"]


def as_object(arguments: str) -> dict[str, Any]:
    """The argument object of a recorded text (repaired as the binder repairs it); an
    empty object for a text that is no object at all."""
    try:
        value = parse_arguments(arguments)
    except ArgumentError:
        return {}
    return value if isinstance(value, dict) else {}


def as_text(arguments: Any) -> str:
    """An argument object as compact JSON text."""
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False,
                      separators=(",", ":"))
