"""Reading and writing the fields of a message: what every format checks the same way.

Each reader takes the transcript ``path`` and the record's ``where`` so that a bad value
is reported as :class:`~agentforge_cli.replay.transcripts.errors.TranscriptError`
naming file and place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentforge_cli.replay.transcripts.files.json_text import dumps
from agentforge_cli.replay.transcripts.model import TranscriptError
from agentforge_cli.replay.transcripts.place import Place

__all__ = ["arguments_text", "content_text", "optional_bool", "optional_id",
           "replace_content"]


def content_text(value: Any) -> str:
    """The text of a message or result ``content``: a string, or text parts/blocks.

    Text blocks (``{"type": "text", "text": ...}``) are joined with newlines; any other
    block, and any other JSON value, is written as compact JSON text.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for block in value:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(
                    block.get("text"), str):
                parts.append(block["text"])
            elif isinstance(block, str):
                parts.append(block)
            else:
                parts.append(dumps(block))
        return "\n".join(parts)
    if value is None:
        return ""
    return dumps(value)


def replace_content(old: Any, text: str) -> Any:
    """New ``content`` holding ``text`` in the shape of the old one (string or blocks)."""
    if isinstance(old, list):
        return [{"type": "text", "text": text}]
    return text


def optional_id(value: Any, path: Path, where: Place, field: str) -> str | None:
    """A call id: a string (a number is accepted and written as text) or absent."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise TranscriptError(path, where, f'"{field}" must be a string, got {dumps(value)}')


def arguments_text(value: Any, path: Path, where: Place) -> str:
    """The raw argument string of a call: a string as is, an object as compact JSON."""
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return dumps(value)
    raise TranscriptError(path, where, "the call's arguments must be a JSON string or "
                          f"object, got {dumps(value)[:80]}")


def optional_bool(value: Any, path: Path, where: Place, field: str) -> bool | None:
    """``is_error``: true, false, or absent/null."""
    if value is None or isinstance(value, bool):
        return value
    raise TranscriptError(path, where, f'"{field}" must be true or false, got {dumps(value)}')

