"""The transcript formats replay knows, in auto-detection order.

:data:`FORMATS` is the one list: ``open_transcript`` detects and looks formats up in it,
and ``agentforge replay --format`` takes its choices and help from it. Adding a format is
one module satisfying :class:`~agentforge_cli.replay.transcripts.format.TranscriptFormat`
and one line here. Read it through the functions below (not a copy taken at import), so
that what is registered at the time of the call counts.
"""

from __future__ import annotations

from agentforge_cli.replay.transcripts.files import conversations
from agentforge_cli.replay.transcripts.format import TranscriptFormat
from agentforge_cli.replay.transcripts.formats import (
    agentforge,
    anthropic,
    bedrock,
    call_log,
    claude_code,
    codex,
    gemini,
    inspect_log,
    langchain,
    mcp,
    mcp_log,
    openai,
    openai_responses,
    otel,
    pydantic_ai,
    tau2,
    vcr,
)

__all__ = ["FORMATS", "find_format", "format_names", "join_titles"]

FORMATS: tuple[TranscriptFormat, ...] = (
    # Detection asks in this order, and --format lists the names in it. The order only
    # decides a record that two formats both claim as their own:
    # - agentforge first: its event lines (a "type", no "role") are unmistakable;
    # - tau2 before OpenAI: its calls ({"id", "name", "arguments": {...}}) and its tool
    #   messages ({"id", "requestor"}) are no OpenAI message's; OpenAI's reader would
    #   refuse them for lacking "function" / "tool_call_id";
    # - OpenAI before Anthropic: a message holding both OpenAI's tool_calls/tool roles and
    #   Anthropic's blocks is then read as OpenAI's, whose reader refuses Anthropic blocks
    #   by name ("use --format anthropic") instead of quietly dropping the OpenAI calls;
    # - OpenAI Responses after both chat formats: it owns only typed items
    #   ("type": "function_call", "message", ...), which neither chat format claims, and
    #   leaves its short {"role", "content"} messages to OpenAI chat (read the same way);
    # - Gemini: it owns contents with "parts", which no other format reads;
    # - Bedrock Converse: it owns messages with toolUse/toolResult blocks (untyped blocks,
    #   which neither chat format owns);
    # - Claude Code and Codex sessions: lines wrapping a message (a "message" with session
    #   ids, a "payload" of a rollout's line types), which no format above claims;
    # - pydantic-ai and LangChain histories: messages tagged "kind" (with "parts" whose
    #   parts are tagged "part_kind", unlike Gemini's) or "type" with "data";
    # - MCP: it owns JSON-RPC 2.0 messages ("jsonrpc": "2.0"), which no other
    #   format reads;
    # - MCP client logs: a text file of "Message from client/server:" lines, read by the
    #   format itself (opens/file_records) before any other is asked;
    # - OpenTelemetry traces: an OTLP JSON export ({"resourceSpans": ...}), read by the
    #   format itself;
    # - Inspect AI eval logs: a JSON object starting {"version": N, "status": ...}, read by
    #   the format itself before VCR (whose JSON cassettes may start with "version" too);
    # - VCR cassettes: a YAML file or a JSON object with "interactions" is read by the
    #   format itself (its opens/file_records), before any other is asked; it owns an
    #   interaction ({"request", "response"} objects), which no other format reads;
    # - agentforge call logs (serve --log): text with "Tool request:" lines, read by the
    #   format itself; after the cassettes, so that a YAML file is never searched for one;
    # - conversations last: it owns a whole conversation (an array of messages, an object
    #   holding one), which no other format takes for one record, and asks the others
    #   about each conversation's messages.
    agentforge,
    tau2,
    openai,
    anthropic,
    openai_responses,
    gemini,
    bedrock,
    claude_code,
    codex,
    pydantic_ai,
    langchain,
    mcp,
    mcp_log,
    otel,
    inspect_log,
    vcr.Cassettes(lambda: FORMATS),
    call_log,
    conversations.Conversations(lambda: FORMATS),
)
"""Every format, in the order auto-detection asks them (the first to claim a record as
its own wins)."""


def format_names() -> tuple[str, ...]:
    """The registered formats' names, in registry order."""
    return tuple(fmt.NAME for fmt in FORMATS)


def find_format(name: str) -> TranscriptFormat | None:
    """The format called ``name``, or ``None``."""
    return next((fmt for fmt in FORMATS if name == fmt.NAME), None)


def join_titles() -> str:
    """``agentforge JSONL, OpenAI chat messages or Anthropic messages``: every format's
    title, in registry order, for help and messages."""
    titles = [fmt.TITLE for fmt in FORMATS]
    return titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " or " + titles[-1]
