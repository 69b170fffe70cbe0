"""The transcript format registry: its order is the ``before`` each format declares,
auto-detection still picks each sample's format, and a format registered from code is
read through ``agentforge replay --format``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import CRM, TRANSCRIPTS

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.replay.transcripts import (
    Claim,
    ToolResult,
    TranscriptFormat,
    UserMessage,
    open_transcript,
    registry,
)
from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.reading.calls import CallBook, named_call


def test_the_registry_order_satisfies_every_before():
    names = registry.format_names()
    declared = [(fmt.name, later) for fmt in registry.transcript_formats()
                for later in fmt.before]
    assert declared, "no format declares its place"
    for earlier, later in declared:
        assert later in names, f"{earlier} is declared before {later}, which is not registered"
        assert names.index(earlier) < names.index(later), (earlier, later)


def test_a_before_moves_a_format_ahead_of_the_one_it_names():
    tau2, openai = registry.find_format("tau2"), registry.find_format("openai")
    assert tau2 is not None and openai is not None and "openai" in tau2.before
    given = [openai, tau2]  # listed the other way round: the declaration still holds
    reordered = ExtensionPoint("transcript format", "none", given)
    assert reordered.names() == ("tau2", "openai")


SAMPLES = {
    "crm.jsonl": "agentforge",
    "crm_anthropic.json": "anthropic",
    "crm_conversations.jsonl": "conversations",
    "crm_drift.jsonl": "agentforge",
    "crm_gemini.json": "gemini",
    "crm_malformed.jsonl": "agentforge",
    "crm_mcp.jsonl": "mcp",
    "crm_mismatch.jsonl": "agentforge",
    "crm_openai.json": "openai",
    "crm_responses.json": "openai-responses",
    "crm_vcr_anthropic.yaml": "vcr",
    "crm_vcr_gemini.yaml": "vcr",
    "crm_vcr_openai.yaml": "vcr",
    "crm_vcr_responses.yaml": "vcr",
    "greeting.jsonl": "agentforge",
    "shop.jsonl": "agentforge",
}
"""Each sample transcript and the format auto-detection picked for it before the
registry declared its order as data."""


@pytest.mark.parametrize(("name", "expected"), SAMPLES.items())
def test_auto_detection_picks_each_samples_format(name, expected):
    assert open_transcript(TRANSCRIPTS / name).format == expected


def _claims(data):
    return Claim.OWN if isinstance(data, dict) and "say" in data else Claim.NO


def _record_events(record, book):
    data, where = record.data, record.where
    if record.blank:
        return []
    if "call" in data:
        return [named_call({"name": data["call"], "arguments": data["args"]}, None, data,
                           book, where)]
    if "result" in data:
        return [ToolResult(call_index=book.result(None, where), id=None,
                           content=data["result"], is_error=None, where=where)]
    return [UserMessage(content=data["say"], where=where)]


TINY = TranscriptFormat(name="tiny", title="tiny lines", claims=_claims,
                        start=CallBook.start, record_events=_record_events)
"""A read-only format defined here: ``{"say"}``, ``{"call", "args"}`` and ``{"result"}``
lines."""


@pytest.fixture
def registered(monkeypatch) -> TranscriptFormat[CallBook]:
    """:data:`TINY` registered with ``register()`` (into a copy of the registry that the
    test's end throws away)."""
    copy = ExtensionPoint("transcript format", "agentforge.transcript_formats",
                          registry.TRANSCRIPT_FORMATS.entries(),
                          check=registry.as_transcript_format)
    monkeypatch.setattr(registry, "TRANSCRIPT_FORMATS", copy)
    return registry.TRANSCRIPT_FORMATS.register(TINY)


def _tiny_file(tmp_path: Path) -> Path:
    path = tmp_path / "talk.jsonl"
    path.write_text('{"say": "查一下客户"}\n'
                    '{"call": "queryCustomer", "args": {"name": "长路", "limit": 5}}\n'
                    '{"result": "customer:长路,limit:5"}\n', encoding="utf-8")
    return path


def test_a_format_registered_in_code_is_replayed_by_name(cli, registered, tmp_path):
    path = _tiny_file(tmp_path)
    assert registry.format_names()[-1] == "tiny"
    result = cli("replay", str(path), "-t", CRM, "--format", "tiny", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["format"] == "tiny"
    assert data["summary"] == {"matched": 1, "mismatched": 0, "unrecorded": 0}


def test_a_format_without_rewrite_is_refused_by_update(cli, registered, tmp_path):
    path = _tiny_file(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("limit:5", "stale"),
                    encoding="utf-8")
    before = path.read_bytes()
    result = cli("replay", str(path), "-t", CRM, "--format", "tiny", "--update")
    assert result.exit_code == 3
    assert ("--update does not write into tiny lines; replay it without --update"
            in " ".join(result.stderr.split()))
    assert path.read_bytes() == before


def test_registering_something_that_is_no_format_is_refused(registered):
    with pytest.raises(TypeError, match="a transcript format is a TranscriptFormat value"):
        registry.TRANSCRIPT_FORMATS.register(Record({"say": "x"}))
