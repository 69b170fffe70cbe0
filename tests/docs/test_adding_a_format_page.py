"""``docs/adding-a-transcript-format.md`` stays true: its module runs as written, once
registered, and the page names every member of the protocols a format satisfies."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import open_transcript, registry
from agentforge_cli.replay.transcripts.format import ApiFormat, FileFormat, TranscriptFormat

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
    monkeypatch.setattr(registry, "FORMATS", (*registry.FORMATS, module))  # the one line
    return module


def test_the_pages_module_is_a_format_that_reads_and_rewrites(terse, tmp_path):
    assert isinstance(terse, TranscriptFormat)
    path = tmp_path / "t.jsonl"
    path.write_text('{"ask": "hi"}\n{"run": "x", "with": {}, "id": "a"}\n'
                    '{"got": "old", "id": "a"}\n', encoding="utf-8")
    transcript = open_transcript(path)
    assert transcript.format == "terse"
    assert [type(e).__name__ for e in transcript.events()] == [
        "UserMessage", "ToolCall", "ToolResult"]
    assert transcript.write_results({0: ("new", False)}) == 1
    assert path.read_text(encoding="utf-8").splitlines()[2] == '{"got": "new", "id": "a"}'


@pytest.mark.parametrize("protocol", [TranscriptFormat, FileFormat, ApiFormat])
def test_the_page_names_every_member_of_the_protocols(protocol):
    members = {name for name in vars(protocol) if not name.startswith("_")} | set(
        getattr(protocol, "__annotations__", {}))
    text = _page()
    assert members and {m for m in members if f"`{m}" not in text} == set()
    assert f"`{protocol.__name__}`" in text or protocol is TranscriptFormat
