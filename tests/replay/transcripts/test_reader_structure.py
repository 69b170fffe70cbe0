"""The transcript readers' structure: every format through declared interfaces, the state
of reading a file in that file's book (never in a module), and the cassette reader asking
the registered formats instead of naming them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import agentforge_cli.replay.transcripts as transcripts
from agentforge_cli.replay.transcripts import registry
from agentforge_cli.replay.transcripts.format import TranscriptFormat
from agentforge_cli.replay.transcripts.reading.calls import CallBook

FOLDER = Path(transcripts.__file__).parent
MUTABLE_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "WeakKeyDictionary",
                 "WeakValueDictionary", "Counter", "deque"}


def _module_level_mutables(tree: ast.Module) -> list[str]:
    found = []
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target",
                                                                                 None)]
        if value is None or any(getattr(t, "id", None) == "__all__" for t in targets):
            continue
        call = value.func if isinstance(value, ast.Call) else None
        name = getattr(call, "id", getattr(call, "attr", None))
        if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp
                      | ast.SetComp) or name in MUTABLE_CALLS:
            found.append(f"line {node.lineno}")
    return found


def test_no_reader_keeps_state_in_its_module():
    offenders = {}
    for path in sorted(FOLDER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports_weakref = any(isinstance(n, ast.Import | ast.ImportFrom) and "weakref" in (
            getattr(n, "module", None) or "" if isinstance(n, ast.ImportFrom)
            else " ".join(a.name for a in n.names)) for n in ast.walk(tree))
        places = _module_level_mutables(tree) + (["imports weakref"] if imports_weakref else [])
        if places:
            offenders[path.name] = places
    assert offenders == {}


def test_the_cassette_reader_names_no_other_format():
    tree = ast.parse((FOLDER / "formats" / "vcr.py").read_text(encoding="utf-8"))
    others = {fmt.record_events.__module__.rsplit(".", 1)[-1]
              for fmt in registry.transcript_formats() if fmt.name != "vcr"}
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.update(alias.name for alias in node.names)
            imported.add((node.module or "").rsplit(".", 1)[-1])
        elif isinstance(node, ast.Import):
            imported.update(alias.name.rsplit(".", 1)[-1] for alias in node.names)
    assert others and not imported & others


def test_every_registered_format_keeps_to_the_declared_interfaces(tmp_path):
    formats = registry.transcript_formats()
    for fmt in formats:
        assert isinstance(fmt, TranscriptFormat), fmt.name
        book = fmt.start(tmp_path / "t", formats)
        assert isinstance(book, CallBook), fmt.name
        assert book.finish() == [], fmt.name  # a book that read nothing has nothing left
        if fmt.api is not None:
            assert fmt.api.paths and all(p.startswith(("/", ":")) for p in fmt.api.paths)
    assert [fmt.name for fmt in formats if fmt.files is not None] == [
        "mcp-log", "otel", "inspect", "vcr", "call-log"]
    assert {fmt.name for fmt in formats if fmt.api is not None} == {
        "openai", "anthropic", "openai-responses", "gemini", "bedrock", "cohere", "ollama"}
    assert {fmt.name for fmt in formats if fmt.rewrite is None} == {
        "claude-code", "claude-code-web", "codex", "swe-agent", "mcp-log", "otel", "inspect",
        "vcr", "nock", "call-log"}


def test_no_format_downcasts_its_reading_state():
    """Each format's functions take its own state class (``start`` makes it), so none
    checks the class of what it is given."""
    for path in sorted(FOLDER.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "raise TypeError" not in text or path.name == "registry.py", path.name


def test_a_read_only_format_is_refused_in_one_place(tmp_path):
    from agentforge_cli.replay.transcripts.errors import TranscriptError

    refusals = [path.name for path in sorted(FOLDER.rglob("*.py"))
                if '"--update ' in path.read_text(encoding="utf-8")]
    assert refusals == ["format.py"]
    plain = next(fmt for fmt in registry.transcript_formats() if fmt.name == "codex")
    with pytest.raises(TranscriptError) as refused:
        plain.rewriter(tmp_path / "rollout.jsonl")
    assert refused.value.reason == ("--update does not write into a Codex rollout; replay it "
                                    "without --update")


def test_two_files_read_at_once_keep_their_own_state(tmp_path):
    """Pairing by name (Gemini) lives in each file's book: reading two files interleaved
    gives what reading each alone gives."""
    from agentforge_cli.replay.transcripts import open_transcript

    text = ('{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}\n'
            '{"role": "user", "parts": [{"functionResponse": {"name": "f", '
            '"response": {"result": "ok"}}}]}\n')
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text(text, encoding="utf-8")
    two.write_text(text, encoding="utf-8")
    first, second = open_transcript(one).events(), open_transcript(two).events()
    mixed = [next(first), next(second), next(first), next(second)]
    alone = list(open_transcript(one).events())
    assert mixed[0::2] == alone and mixed[1::2] == alone


def test_read_progress_counts_records_of_every_container():
    """The progress bar follows what was read, not a place parsed back from text: it
    reaches the count of records for JSONL, JSON documents and cassettes alike."""
    from cli_support import TRANSCRIPTS

    from agentforge_cli.replay.transcripts import open_transcript

    for name in ("crm.jsonl", "crm_openai.json", "crm_gemini.json", "crm_vcr_openai.yaml",
                 "crm_conversations.jsonl"):
        transcript = open_transcript(TRANSCRIPTS / name)
        total = transcript.count_records()
        seen = []
        for _ in transcript.events():
            seen.append(transcript.progress.records)
        assert total > 1 and seen == sorted(seen), name
        assert transcript.progress.records == total, name


def test_each_container_is_one_record_source():
    """Reading, counting and writing back are the container's record source's, for every
    container: the transcript only picks the source."""
    from cli_support import TRANSCRIPTS

    from agentforge_cli.replay.transcripts import open_transcript
    from agentforge_cli.replay.transcripts.files.sources import (
        DocumentSource,
        FileSource,
        JsonlSource,
        RecordSource,
    )

    for name, kind in (("crm.jsonl", JsonlSource), ("crm_openai.json", DocumentSource),
                       ("crm_vcr_openai.yaml", FileSource)):
        source = open_transcript(TRANSCRIPTS / name).source
        assert type(source) is kind and isinstance(source, RecordSource), name
        assert source.count() == sum(1 for _ in source.records()) > 0, name
    assert DocumentSource(TRANSCRIPTS / "crm_openai.json").checked_first
    assert not JsonlSource(TRANSCRIPTS / "crm.jsonl").checked_first
