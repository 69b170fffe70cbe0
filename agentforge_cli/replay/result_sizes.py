"""How large the recorded results of each tool are: what ``tools check --results`` reads.

Every transcript format replay reads works: each :class:`ToolResult` is paired with the
call it answers, and the texts are grouped by the tool called. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentforge_cli.core.define.tokens import SizeStats, size_stats
from agentforge_cli.replay.transcripts import ToolCall, ToolResult, open_transcript
from agentforge_cli.replay.transcripts.files.collect import collect_transcripts

__all__ = ["recorded_results", "result_sizes"]


def recorded_results(paths: Iterable[str]) -> dict[str, list[str]]:
    """Tool name -> the texts of its recorded results, in the order read, across the
    transcripts ``paths`` name (folders searched as replay searches them).

    Raises:
        TranscriptError: A file cannot be read as a transcript (no format reads it, a
            malformed line), or a folder holds no transcript.
    """
    from agentforge_cli.replay.transcripts import registry
    from agentforge_cli.replay.transcripts.errors import TranscriptError
    from agentforge_cli.replay.transcripts.place import WHOLE_FILE

    files, empty = collect_transcripts(list(paths))
    if empty:
        raise TranscriptError(empty[0], WHOLE_FILE, "no transcript in this folder (looked for "
                              f"{registry.join_file_names()} files)")
    texts: dict[str, list[str]] = {}
    for path in files:
        names: dict[int, str] = {}
        for event in open_transcript(path).events():
            if isinstance(event, ToolCall):
                names[event.index] = event.name
            elif isinstance(event, ToolResult) and event.call_index in names:
                texts.setdefault(names[event.call_index], []).append(event.content)
    return texts


def result_sizes(paths: Iterable[str]) -> dict[str, SizeStats]:
    """Tool name (sorted) -> the sizes of its recorded results (tokens estimated: a
    result goes to any model)."""
    texts = recorded_results(paths)
    return {tool: size_stats(texts[tool]) for tool in sorted(texts)}
