"""Recorded calls migrated in place: found in their record by what the reader kept, the
name and arguments written where the format keeps them, the tool's name renamed where a
result repeats it; and a format that cannot migrate its calls refused by name."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.replay.transcripts import (
    ToolCall,
    ToolResult,
    TranscriptError,
    open_transcript,
    registry,
)
from agentforge_cli.replay.transcripts.formats import agentforge
from agentforge_cli.replay.transcripts.writing.migration import Migration

RENAME = Migration.parse(["lookup=find"], ["find.q=query"])


def _events(path: Path) -> list[tuple[str, str] | tuple[int, str]]:
    return [(e.name, e.arguments) if isinstance(e, ToolCall) else (e.call_index, e.content)
            for e in open_transcript(path).events() if isinstance(e, ToolCall | ToolResult)]


def test_openai_legacy_function_calls_and_their_named_answers(tmp_path):
    path = tmp_path / "legacy.json"
    path.write_text(json.dumps([
        {"role": "assistant", "content": None,
         "function_call": {"name": "lookup", "arguments": '{"q": "Oslo"}'}},
        {"role": "function", "name": "lookup", "content": "Oslo: found"}], indent=1),
        encoding="utf-8")
    open_transcript(path).write({}, RENAME)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data[0]["function_call"] == {"name": "find", "arguments": '{"query": "Oslo"}'}
    assert data[1]["name"] == "find"
    assert _events(path) == [("find", '{"query": "Oslo"}'), (0, "Oslo: found")]


def test_langchain_calls_kept_in_the_providers_shape(tmp_path):
    path = tmp_path / "history.json"
    path.write_text(json.dumps([
        {"type": "ai", "data": {"content": "", "additional_kwargs": {"tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "lookup", "arguments": '{"q":"Oslo"}'}}]}}},
        {"type": "tool", "data": {"content": "Oslo: found", "tool_call_id": "c1",
                                  "name": "lookup"}}]), encoding="utf-8")
    open_transcript(path).write({}, RENAME)
    assert _events(path) == [("find", '{"query":"Oslo"}'), (0, "Oslo: found")]
    assert json.loads(path.read_text(encoding="utf-8"))[1]["data"]["name"] == "find"


def test_a_result_naming_another_tool_keeps_its_name(tmp_path):
    path = tmp_path / "pai.json"
    path.write_text(json.dumps([
        {"kind": "response", "parts": [
            {"part_kind": "tool-call", "tool_name": "lookup", "args": {"q": "Oslo"},
             "tool_call_id": "c1"}]},
        {"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": "something else",
             "content": "Oslo: found", "tool_call_id": "c1"}]}]), encoding="utf-8")
    open_transcript(path).write({}, RENAME)
    parts = [message["parts"][0] for message in json.loads(path.read_text(encoding="utf-8"))]
    assert (parts[0]["tool_name"], parts[0]["args"]) == ("find", {"query": "Oslo"})
    assert parts[1]["tool_name"] == "something else"


@pytest.fixture
def unmigratable(monkeypatch):
    """The agentforge format under another name, writing results but not calls."""
    copy = ExtensionPoint("transcript format", "agentforge.transcript_formats",
                          registry.TRANSCRIPT_FORMATS.entries(),
                          check=registry.as_transcript_format)
    monkeypatch.setattr(registry, "TRANSCRIPT_FORMATS", copy)
    return copy.register(dataclasses.replace(agentforge.FORMAT, name="results-only",
                                             title="results-only lines", migrate=None,
                                             before=()))


def test_a_format_without_migrate_is_refused_before_any_call_runs(cli, unmigratable,
                                                                   tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"type":"tool_call","id":"a","name":"lookup","arguments":"{}"}\n',
                    encoding="utf-8")
    transcript = open_transcript(path, "results-only")
    with pytest.raises(TranscriptError, match="--update cannot rename or drop what "
                                              "results-only lines record of a call"):
        transcript.check_migration()
    with pytest.raises(TranscriptError, match="cannot rename or drop"):
        transcript.write({}, RENAME)
    assert transcript.write({0: ("found", False)}).results == 1  # results still written
    module = tmp_path / "counted.py"
    module.write_text("from agentforge_cli import tool\nRAN = []\n\n@tool\n"
                      "def find() -> str:\n    \"\"\"Find.\"\"\"\n"
                      "    open(__file__ + '.ran', 'w').close()\n    return 'x'\n",
                      encoding="utf-8")
    done = cli("replay", str(path), "-t", str(module), "--format", "results-only",
               "--update", "--rename-tool", "lookup=find")
    assert done.exit_code == 3
    assert "replay it without --rename-tool, --rename-arg and --drop-arg" in " ".join(
        done.stderr.split())
    assert not Path(f"{module}.ran").exists()
