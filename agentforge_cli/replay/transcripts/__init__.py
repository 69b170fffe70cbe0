"""Recorded function-call conversations: read them, detect their format, write results back.

Every format is read into the event model of
:mod:`~agentforge_cli.replay.transcripts.model`. The formats are the ones registered in
:data:`~agentforge_cli.replay.transcripts.registry.TRANSCRIPT_FORMATS`, each a
:class:`~agentforge_cli.replay.transcripts.format.TranscriptFormat` value declared by its
module; their names are :func:`~agentforge_cli.replay.transcripts.registry.format_names`.

The chat formats come as a JSON array, as an object holding it (``{"messages": [...]}``,
``{"contents": [...]}``, ``{"input": [...], "output": [...]}``) or as JSONL.
JSONL is streamed: events are parsed and yielded line by line, so a replay may have run
the calls before a malformed line when it reaches it. A JSON document is streamed too, a
message at a time, and read through once, keeping nothing, before its first event is
yielded (so a malformed one runs nothing)::

    transcript = open_transcript("crm.jsonl")          # format="auto"
    for event in transcript.events():
        ...
    transcript.write_results({0: ("customer:长路,limit:5", False)})   # atomically

Standard library only.
"""

from __future__ import annotations

from agentforge_cli.replay.transcripts.format import Claim, TranscriptFormat
from agentforge_cli.replay.transcripts.model import (
    AssistantMessage,
    ConversationStart,
    Event,
    SystemPrompt,
    ToolCall,
    ToolResult,
    TranscriptError,
    UserMessage,
)
from agentforge_cli.replay.transcripts.transcript import Transcript, open_transcript

__all__ = [
    "AssistantMessage",
    "Claim",
    "ConversationStart",
    "Event",
    "SystemPrompt",
    "ToolCall",
    "ToolResult",
    "Transcript",
    "TranscriptError",
    "TranscriptFormat",
    "UserMessage",
    "open_transcript",
]
