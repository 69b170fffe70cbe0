"""``docs/adding-a-transcript-format.md`` stays true: its module runs as written, once
registered, and the page names every field of the values a format declares."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import pytest

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.replay.transcripts import open_transcript, registry
from agentforge_cli.replay.transcripts.format import ApiReading, FileReading, TranscriptFormat

PAGE = Path(__file__).parents[2] / "docs" / "adding-a-transcript-format.md"


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def _module_block() -> str:
    blocks = re.findall(r"```python\n(.*?)```", _page(), re.S)
    module = [block for block in blocks if "def record_events" in block]
    assert len(module) == 1, "the page shows the format module once"
    return module[0]


@pytest.fixture
def terse(tmp_path, monkeypatch):
    source = tmp_path / "terse_from_the_page.py"
    source.write_text(_module_block(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("terse_from_the_page", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(registry, "TRANSCRIPT_FORMATS", ExtensionPoint(
        "transcript format", "agentforge.transcript_formats", registry.transcript_formats(),
        check=registry.as_transcript_format))  # thrown away when the test ends
    registry.TRANSCRIPT_FORMATS.register(module.FORMAT)
    return module


def test_the_pages_module_is_a_format_that_reads_and_rewrites(terse, tmp_path):
    assert isinstance(terse.FORMAT, TranscriptFormat)
    path = tmp_path / "t.jsonl"
    path.write_text('{"ask": "hi"}\n{"run": "x", "with": {}, "id": "a"}\n'
                    '{"got": "old", "id": "a"}\n', encoding="utf-8")
    transcript = open_transcript(path)
    assert transcript.format == "terse"
    assert [type(e).__name__ for e in transcript.events()] == [
        "UserMessage", "ToolCall", "ToolResult"]
    assert transcript.write_results({0: ("new", False)}) == 1
    assert path.read_text(encoding="utf-8").splitlines()[2] == '{"got": "new", "id": "a"}'


def test_the_pages_module_migrates_its_calls(terse, tmp_path):
    from agentforge_cli.replay.transcripts.writing.migration import Migration

    path = tmp_path / "t.jsonl"
    path.write_text('{"run": "x", "with": {"q": 1}, "id": "a"}\n', encoding="utf-8")
    open_transcript(path).write({}, Migration.parse(["x=y"], ["y.q=query"]))
    assert path.read_text(encoding="utf-8") == '{"run": "y", "with": {"query": 1}, "id": "a"}\n'


@pytest.mark.parametrize("declared", [TranscriptFormat, FileReading, ApiReading])
def test_the_page_names_every_field_of_the_declared_values(declared):
    fields = {field.name for field in dataclasses.fields(declared)}
    text = _page()
    assert fields and {f for f in fields if f"`{f}" not in text} == set()
    assert f"`{declared.__name__}`" in text
