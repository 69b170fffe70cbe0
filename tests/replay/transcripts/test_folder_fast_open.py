"""Opening a short transcript on the fast path (one read, the first line parsed once,
the folder walked with ``os.scandir``) tells exactly what the general path tells: the
same format and container, the same error, the same files in the same order; and a
folder replays each file as it replays alone."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_support import CRM, TRANSCRIPTS

from agentforge_cli.replay.transcripts import open_transcript, transcript
from agentforge_cli.replay.transcripts.errors import TranscriptError
from agentforge_cli.replay.transcripts.files import collect, limits

AGENTFORGE = (TRANSCRIPTS / "crm.jsonl").read_bytes()
FIRST, _, REST = AGENTFORGE.partition(b"\n")
CASSETTE = yaml.safe_load((TRANSCRIPTS / "crm_vcr_openai.yaml").read_text(encoding="utf-8"))
OPENAI = json.loads((TRANSCRIPTS / "crm_openai.json").read_text(encoding="utf-8"))


def _one_line(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode() + b"\n"


CASES: dict[str, bytes] = {
    "agentforge.jsonl": AGENTFORGE,
    "crlf.jsonl": AGENTFORGE.replace(b"\n", b"\r\n"),
    "bom.jsonl": b"\xef\xbb\xbf" + AGENTFORGE,
    "blank_first.jsonl": b"\n  \n" + AGENTFORGE,
    "null_first.jsonl": b"null\n" + AGENTFORGE,
    "indented_first.jsonl": b"  " + AGENTFORGE,
    "no_newline.jsonl": FIRST,
    "bad_utf8_line.jsonl": FIRST + b"\n" + b'{"type":"user","content":"\xff"}\n' + REST,
    "bad_utf8_last_line.jsonl": AGENTFORGE.rstrip(b"\n") + b'\n{"type":"user","content":"\xff"}',
    "nan.jsonl": b'{"type":"user","content":NaN}\n' + REST,
    "trailing_garbage.jsonl": FIRST + b" x\n" + REST,
    "unknown_record.jsonl": b'{"hello":1}\n' + REST,
    "number.jsonl": b"1\n" + REST,
    "json_cassette.json": _one_line(CASSETTE),
    "versioned_cassette.json": _one_line({"version": 1, **CASSETTE}),
    "agentforge_named.yaml": AGENTFORGE,
    "envelope_one_line.json": _one_line(OPENAI),
    "array_one_line.json": _one_line(OPENAI["messages"]),
    "arrays_of_conversations.jsonl": _one_line(OPENAI["messages"]) * 2,
    "conversations.jsonl": (TRANSCRIPTS / "crm_conversations.jsonl").read_bytes(),
    "mcp.jsonl": (TRANSCRIPTS / "crm_mcp.jsonl").read_bytes(),
    "openai_lines.jsonl": b"".join(_one_line(m) for m in OPENAI["messages"]),
    "pretty.json": (TRANSCRIPTS / "crm_openai.json").read_bytes(),
    "whitespace_only.jsonl": b" \n\t\n",
    "empty.jsonl": b"",
}


def _outcome(path: Path, fmt: str = "auto") -> tuple[str, ...]:
    try:
        opened = open_transcript(path, fmt)
    except TranscriptError as exc:
        return (type(exc).__name__, str(exc))
    return (opened.format, opened.container, repr(opened.content is not None))


def _general(path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str = "auto") -> tuple[str, ...]:
    """The outcome with the fast steps switched off: a stat first, the file object read,
    the head read line by line, the container and the format detected from the records."""
    def refuse(_: Path) -> bytes:
        raise OSError("switched off")

    with monkeypatch.context() as patch:
        patch.setattr(transcript, "read_small_plain", refuse)
        patch.setattr(transcript, "_first_line", lambda content: None)
        return _outcome(path, fmt)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("fmt", ["auto", "agentforge", "openai"])
def test_the_fast_open_tells_what_the_general_one_tells(tmp_path, monkeypatch, name, fmt):
    path = tmp_path / name
    path.write_bytes(CASES[name])
    assert _outcome(path, fmt) == _general(path, monkeypatch, fmt)


@pytest.mark.parametrize("make", ["missing", "folder", "null_byte"])
def test_a_path_that_is_no_file_fails_as_before(tmp_path, monkeypatch, make):
    path = tmp_path / "x.jsonl"
    if make == "folder":
        path.mkdir()
    elif make == "null_byte":
        path = tmp_path / "x\0.jsonl"
    fast = _outcome(path)
    assert fast == _general(path, monkeypatch)
    assert fast[0] == "TranscriptError"


def test_a_short_file_read_through_a_pipe_is_read_whole(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)

    def write() -> None:  # the file in small pieces, each read apart
        with open(fifo, "wb", buffering=0) as stream:
            for start in range(0, len(AGENTFORGE), 100):
                stream.write(AGENTFORGE[start:start + 100])
                time.sleep(0.001)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert limits.read_small_plain(fifo) == AGENTFORGE
    finally:
        writer.join()


def _rglob_order(folder: Path) -> list[str]:
    """What the folder search returned before it walked with os.scandir."""
    found, wanted = [], collect.TranscriptFiles()
    for path in sorted(folder.rglob("*")):
        hidden = any(part.startswith(".") for part in path.relative_to(folder).parts)
        if not hidden and path.is_file() and wanted(path.parent, path.name):
            found.append(str(path))
    return found


def test_the_folder_walk_finds_what_rglob_found_in_its_order(tmp_path, monkeypatch):
    root = tmp_path / "r"
    for folder in ("a", "a-b", "a.b", "A", "a/b", "a/b-c", ".hidden/x", "a/.h", "ä"):
        (root / folder).mkdir(parents=True)
    for name in ("a/b/z.jsonl", "a/b-c/y.json", "a-b/x.yaml", "a.b/w.yml.gz", "A/v.JSONL",
                 "ä/u.json", "a/t.jsonl.gz", "s.jsonl", "a/.h/hidden.jsonl",
                 ".hidden/x/hidden.jsonl", "a/.dot.jsonl", "a/notes.txt", "a/b/z.jsonl.bak",
                 "a/app.log", "a/b/x.eval"):
        (root / name).write_text("x", encoding="utf-8")
    (root / "link_to_file.jsonl").symlink_to(root / "s.jsonl")
    (root / "link_to_folder").symlink_to(root / "a")  # listed, never searched
    (root / "a" / "broken.jsonl").symlink_to(root / "missing.jsonl")
    (root / "a" / "folder.jsonl").mkdir()
    monkeypatch.chdir(tmp_path)
    for given in (str(root), "r", "r/", "./r", "r/a"):
        expected = _rglob_order(Path(given))
        assert collect.collect_transcripts([given]) == (expected, [])
    assert "r/link_to_file.jsonl" in _rglob_order(Path("r"))


def _words(text: str) -> str:
    return " ".join(text.split())  # messages on stderr fold at 80 columns


def _entry(document: dict[str, Any]) -> dict[str, Any]:
    for call in document.get("calls", ()):
        call.pop("duration_ms", None)
    return document


def test_a_folder_replays_each_file_as_it_replays_alone(cli, tmp_path):
    """Files whose first bytes look like agentforge JSONL but are not read as such (a
    JSON cassette, one-line documents, JSONL of conversations, a ``.yaml`` name), files
    the fast path leaves to the general one, and plain transcripts, in one folder."""
    folder = tmp_path / "recordings"
    folder.mkdir()
    names = ("agentforge.jsonl", "bom.jsonl", "blank_first.jsonl", "json_cassette.json",
             "versioned_cassette.json", "envelope_one_line.json", "array_one_line.json",
             "conversations.jsonl", "mcp.jsonl", "openai_lines.jsonl",
             "bad_utf8_last_line.jsonl", "bad_utf8_line.jsonl", "nan.jsonl",
             "unknown_record.jsonl", "agentforge_named.yaml", "no_newline.jsonl")
    for name in names:
        (folder / name).write_bytes(CASES[name])
    (folder / "vcr.yaml").write_bytes((TRANSCRIPTS / "crm_vcr_openai.yaml").read_bytes())
    together = cli("replay", str(folder), "-t", CRM, "--json")
    files = json.loads(together.stdout)["files"]
    assert [Path(entry["transcript"]).name for entry in files] == sorted([*names, "vcr.yaml"])
    for entry in files:
        alone = cli("replay", entry["transcript"], "-t", CRM, "--json")
        error = entry.pop("error", None)  # alone, on stderr (and beside calls that ran)
        if "calls" in entry:
            document = json.loads(alone.stdout)
            assert document.pop("error", None) == error
            assert _entry(entry) == _entry(document)
        else:
            assert alone.stdout == ""
        assert (error is None) == (alone.exit_code == 0)
        if error is not None:
            assert _words(error) in _words(alone.stderr)
    formats = {Path(e["transcript"]).name: e.get("format") for e in files}
    assert formats["json_cassette.json"] == formats["versioned_cassette.json"] == "vcr"
    assert formats["agentforge.jsonl"] == "agentforge"
