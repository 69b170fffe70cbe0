"""Envelopes: the JSON objects that hold a transcript's records under an array
(``{"messages": [...]}``, ``{"contents": [...]}``, ``{"input": [...], "output": [...]}``),
read into records and put back around rewritten ones; and the system prompt an envelope
gives beside them (:func:`envelope_prompt`)."""

from __future__ import annotations

from typing import Any

from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.model import SystemPrompt
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

__all__ = ["ENVELOPE_KEYS", "PROMPT_KEYS", "envelope_keys", "envelope_prompt",
           "envelope_records", "envelope_values", "prompt_text"]

ENVELOPE_KEYS = ("messages", "contents", "input", "output", "traj", "simulations", "loglines",
                 "history")
"""The arrays a JSON object transcript may hold its records in: chat ``messages``, Gemini
``contents``, OpenAI Responses ``input`` and ``output``, a tau-bench trajectory's chat
messages (``traj``), a tau2-bench results file's conversations (``simulations``), a
Claude Code web session's lines (``loglines``), a SWE-agent trajectory's chat messages
(``history``), read in this order."""


PROMPT_KEYS = ("system", "systemInstruction", "system_instruction", "instructions", "info")
"""Where an envelope gives its system prompt, in this order: Anthropic's ``system`` (a
string or text blocks), Gemini's ``systemInstruction`` (a content; ``system_instruction``
as the Python SDK dumps it), a Responses request's ``instructions``, and a tau2-bench
results file's ``info.environment_info.policy`` (the policy its agent was prompted
with)."""


def prompt_text(value: Any) -> str:
    """A system prompt's text: a string, text blocks or parts, a Gemini content (text
    parts joined with newlines); empty when it holds none."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text for item in value if (text := prompt_text(item)))
    if isinstance(value, dict):
        for key in ("text", "parts", "content"):
            if key in value:
                return prompt_text(value[key])
    return ""


def envelope_prompt(data: Any, where: Place = WHOLE_FILE, *,
                    file_wide: bool = False) -> SystemPrompt | None:
    """The system prompt an envelope gives beside its records (:data:`PROMPT_KEYS`), at
    ``system`` (after ``where``), or ``None``."""
    if not isinstance(data, dict):
        return None
    for key in PROMPT_KEYS[:-1]:
        text = prompt_text(data.get(key))
        if text:
            return SystemPrompt(content=text, where=where.at(key), file_wide=file_wide)
    info = data.get("info")
    environment = info.get("environment_info") if isinstance(info, dict) else None
    policy = environment.get("policy") if isinstance(environment, dict) else None
    if isinstance(policy, str) and policy:
        return SystemPrompt(content=policy, where=where.at("info", "environment_info",
                                                           "policy"), file_wide=file_wide)
    return None


def envelope_keys(data: Any) -> tuple[str, ...]:
    """The :data:`ENVELOPE_KEYS` a JSON object holds its records under: ``messages``
    alone, else every other one that is an array (and a string ``input``, a Responses
    request's one user message); none for a record (an object with ``type``/``role``)."""
    if not isinstance(data, dict):
        return ()
    if isinstance(data.get("messages"), list):
        return ("messages",)
    if "type" in data or "role" in data:
        return ()
    keys = tuple(key for key in ENVELOPE_KEYS if isinstance(data.get(key), list))
    if isinstance(data.get("input"), str):
        keys = tuple(key for key in ENVELOPE_KEYS if key == "input" or key in keys)
    return keys


def envelope_records(data: dict[str, Any], keys: tuple[str, ...],
                     where: Place = WHOLE_FILE) -> list[Record]:
    """The records under ``keys`` (from :func:`envelope_keys`), in order, each at
    ``contents[2]`` (after ``where``, when given: ``line 3, contents[2]``)."""
    records: list[Record] = []
    for key in keys:
        items = data[key]
        if isinstance(items, str):  # a Responses request's "input": one user message
            records.append(Record({"role": "user", "content": items}, where.at(key),
                                  len(records)))
            continue
        start = len(records)
        records.extend(Record(item, where.at(key, i), start + i)
                       for i, item in enumerate(items))
    return records


def envelope_values(data: dict[str, Any], keys: tuple[str, ...],
                    records: list[Record]) -> dict[str, Any]:
    """``data`` with ``records`` (rewritten, from :func:`envelope_records`) put back: each
    under the key it was read from, told by its position among the records read (a record
    keeps its ``position`` when rewritten), a new record (no ``where``) under its
    predecessor's; a string ``input`` stays a string while unchanged."""
    ends: list[tuple[int, str]] = []  # the position after each key's records, and the key
    count = 0
    for key in keys:
        items = data[key]
        count += 1 if isinstance(items, str) else len(items)
        ends.append((count, key))
    groups: dict[str, list[Any]] = {key: [] for key in keys}
    key = keys[0]
    for record in records:
        if record.where:  # read from the envelope: its position tells the key
            key = next((found for end, found in ends if record.position < end), key)
        groups[key].append(record.data)
    values = dict(data)
    for key, items in groups.items():
        original = data.get(key)
        keep = isinstance(original, str) and items == [{"role": "user", "content": original}]
        values[key] = original if keep else items
    return values
