"""Recording families replay knows by sight but does not read (yet): a file of one is
refused naming the family, never as a malformed file of another format nor by its keys
alone.

:func:`unread_family` is asked about a record no format claims (detection's refusal) and
about a record a format failed to read (a Gemini CLI session's first message reads as
agentforge's ``user`` line, its second does not). Standard library only.
"""

from __future__ import annotations

from typing import Any

__all__ = ["refusal", "unread_family"]


def _gemini_cli(data: dict[str, Any]) -> bool:
    """A Gemini CLI session (``~/.gemini/tmp/<project>/chats/session-*.json`` or its JSONL
    form): the session's header (``sessionId`` and ``projectHash``), or one of its
    messages (``type: gemini``, or ``toolCalls`` beside a ``type``)."""
    return ("sessionId" in data and "projectHash" in data) or data.get("type") == "gemini" or (
        "type" in data and isinstance(data.get("toolCalls"), list))


_FAMILIES = (("a Gemini CLI session", _gemini_cli),)


def unread_family(data: Any) -> str | None:
    """The family a record belongs to, when it is one replay knows and does not read
    (``a Gemini CLI session``), else ``None``."""
    if not isinstance(data, dict):
        return None
    return next((name for name, seen in _FAMILIES if seen(data)), None)


def refusal(family: str) -> str:
    """What a refusal of a file of ``family`` says."""
    return f"this is {family}, which replay does not read yet"
