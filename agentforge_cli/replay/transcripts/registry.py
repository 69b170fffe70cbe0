"""The transcript formats replay knows, in auto-detection order: :data:`TRANSCRIPT_FORMATS`.

It is the one list: ``open_transcript`` detects and looks formats up in it, and
``agentforge replay --format`` takes its choices and help from it. Adding a format is one
module declaring a :class:`~agentforge_cli.replay.transcripts.format.TranscriptFormat` and
one entry here (or ``TRANSCRIPT_FORMATS.register(FORMAT)`` from code, or an entry point in
the ``agentforge.transcript_formats`` group from another package). The order is the list's,
each entry moved ahead of the formats its ``before`` names (the reason is next to each
``before``); it only decides a record two formats both claim as their own. Read it through
the functions below (not a copy taken at import), so that what is registered at the time
of the call counts.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.replay.transcripts.format import TranscriptFormat
from agentforge_cli.replay.transcripts.formats import (
    agentforge,
    anthropic,
    bedrock,
    call_log,
    claude_code,
    claude_code_web,
    codex,
    cohere,
    conversations,
    gemini,
    gemini_cli,
    inspect_log,
    langchain,
    mcp,
    mcp_log,
    nock,
    ollama,
    openai,
    openai_responses,
    otel,
    pydantic_ai,
    swe_agent,
    tau2,
    vcr,
)

__all__ = ["TRANSCRIPT_FORMATS", "as_transcript_format", "file_names", "find_format",
           "format_names", "join_file_names", "join_titles", "transcript_formats"]


def as_transcript_format(entry: object) -> TranscriptFormat[Any]:
    """``entry``, checked to be a :class:`TranscriptFormat` (what the registry takes)."""
    if not isinstance(entry, TranscriptFormat):
        raise TypeError(f"a transcript format is a TranscriptFormat value, not "
                        f"{type(entry).__name__}")
    return entry


TRANSCRIPT_FORMATS: ExtensionPoint[TranscriptFormat[Any]] = ExtensionPoint(
    "transcript format", "agentforge.transcript_formats", [
        agentforge.FORMAT,
        tau2.FORMAT,
        openai.FORMAT,
        anthropic.FORMAT,
        openai_responses.FORMAT,
        gemini.FORMAT,
        gemini_cli.FORMAT,
        bedrock.FORMAT,
        cohere.FORMAT,
        ollama.FORMAT,
        claude_code.FORMAT,
        claude_code_web.FORMAT,
        codex.FORMAT,
        swe_agent.FORMAT,
        pydantic_ai.FORMAT,
        langchain.FORMAT,
        mcp.FORMAT,
        mcp_log.FORMAT,
        otel.FORMAT,
        inspect_log.FORMAT,
        vcr.FORMAT,
        nock.FORMAT,
        call_log.FORMAT,
        conversations.FORMAT,
    ], check=as_transcript_format)
"""Every format, in the order auto-detection asks them (the first to claim a record as
its own wins); the formats that read their files themselves are asked about a file, in
the same order, before any record is read."""


def transcript_formats() -> tuple[TranscriptFormat[Any], ...]:
    """The registered formats, in registry order (what a reading is given)."""
    return TRANSCRIPT_FORMATS.entries()


def format_names() -> tuple[str, ...]:
    """The registered formats' names, in registry order."""
    return TRANSCRIPT_FORMATS.names()


def find_format(name: str) -> TranscriptFormat[Any] | None:
    """The format called ``name``, or ``None``."""
    return TRANSCRIPT_FORMATS.get(name)


def file_names() -> tuple[str, ...]:
    """The file name patterns a folder search collects (``*.json``, ``mcp*.log``): every
    registered format's ``names``, in registry order, each once."""
    return tuple(dict.fromkeys(name for fmt in TRANSCRIPT_FORMATS.entries()
                               for name in fmt.names))


def join_file_names() -> str:
    """``*.json, *.jsonl, ... and *.yml``: :func:`file_names`, for help and messages."""
    names = file_names()
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def join_titles() -> str:
    """``agentforge JSONL, OpenAI chat messages or Anthropic messages``: every format's
    title, in registry order, for help and messages."""
    titles = [fmt.title for fmt in TRANSCRIPT_FORMATS.entries()]
    return titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " or " + titles[-1]
