"""``agentforge replay`` over several transcripts: folders, ``-`` (stdin), ``.gz``,
``--match``, and one JSON / JUnit report for them all."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cli_support import CRM, TRANSCRIPTS

REWORDED = (
    '{"type":"tool_call","id":"a","name":"queryCustomer","arguments":"{\\"name\\":\\"x\\",'
    '\\"limit\\":1}"}\n'
    '{"type":"tool_result","id":"a","content":"another framework\'s words","is_error":false}\n'
)
DOUBLE_ENCODED = (
    '[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":'
    '{"name":"get_profile","arguments":"{}"}}]},'
    '{"role":"tool","tool_call_id":"a","content":"\\"{\\\\\\"name\\\\\\": \\\\\\"x\\\\\\"}\\""}]'
)
PROFILE_TOOL = """
    from agentforge_cli import tool

    @tool
    def get_profile() -> dict:
        \"\"\"The profile.\"\"\"
        return {"name": "x"}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """crm.jsonl, a mismatch, and a gzip-compressed OpenAI transcript in a subfolder; a
    hidden folder and a text file that are not collected."""
    root = tmp_path / "recordings"
    (root / "openai").mkdir(parents=True)
    shutil.copy(TRANSCRIPTS / "crm.jsonl", root / "a_crm.jsonl")
    shutil.copy(TRANSCRIPTS / "crm_mismatch.jsonl", root / "b_mismatch.jsonl")
    (root / "openai" / "c.json.gz").write_bytes(
        gzip.compress((TRANSCRIPTS / "crm_openai.json").read_bytes()))
    (root / ".cache").mkdir()
    shutil.copy(TRANSCRIPTS / "crm_mismatch.jsonl", root / ".cache" / "old.jsonl")
    (root / "notes.txt").write_text("not a transcript", encoding="utf-8")
    return root


def test_a_folder_replays_every_transcript_in_one_report(cli, folder):
    result = cli("replay", str(folder), "-t", CRM)
    assert result.exit_code == 1
    out = result.stdout
    joined = out.replace("\n", "")  # long paths fold at 80 columns
    for name in ("a_crm.jsonl (agentforge)", "b_mismatch.jsonl (agentforge)",
                 "c.json.gz (openai)"):
        assert name in joined
    assert ".cache" not in out and "notes" not in out
    assert out.rstrip().endswith("all 3 transcripts, 1 failed\nstatus        calls\n"
                                 "matched           3\nmismatched        1\n"
                                 "unrecorded        1\ntotal             5\n"
                                 "✗ 1 of 5 calls differs from the recording")


def test_several_paths_json_gives_each_file_and_the_total(cli, folder):
    result = cli("replay", str(folder / "a_crm.jsonl"), str(folder / "openai"), "-t", CRM,
                 "--json", "--match", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [f["transcript"] for f in data["files"]] == [
        str(folder / "a_crm.jsonl"), str(folder / "openai" / "c.json.gz")]
    assert [f["summary"]["matched"] for f in data["files"]] == [1, 1]
    assert data["summary"] == {"matched": 2, "mismatched": 0, "unrecorded": 0}
    assert (data["transcripts"], data["failed_transcripts"], data["match"]) == (2, 0, "json")


def test_junit_has_a_suite_per_transcript_in_a_new_directory(cli, folder, tmp_path):
    report = tmp_path / "out" / "replay.xml"
    result = cli("replay", str(folder), "-t", CRM, "--junit", str(report))
    assert result.exit_code == 1
    suites = ElementTree.parse(report).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == [
        f"replay {folder / 'a_crm.jsonl'}", f"replay {folder / 'b_mismatch.jsonl'}",
        f"replay {folder / 'openai' / 'c.json.gz'}"]
    assert [s.get("failures") for s in suites] == ["0", "1", "0"]


def test_a_folder_without_transcripts_fails(cli, tmp_path):
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    result = cli("replay", str(tmp_path), "-t", CRM)
    assert result.exit_code == 1
    assert f"error: no transcript found in {tmp_path}" in " ".join(result.stderr.split())
    assert result.stdout == ""


def test_an_unreadable_transcript_is_reported_and_the_others_still_run(cli, folder):
    (folder / "broken.jsonl").write_text('{"type":"user","content":"hi"}\n{"type": \n',
                                        encoding="utf-8")
    result = cli("replay", str(folder), "-t", CRM, "--json")
    assert result.exit_code == 3
    data = json.loads(result.stdout)
    broken = next(f for f in data["files"] if "broken" in f["transcript"])
    assert "line 2: invalid JSON" in broken["error"]
    assert data["summary"]["matched"] == 3 and data["failed_transcripts"] == 2


def test_update_writes_each_file(cli, folder):
    result = cli("replay", str(folder / "a_crm.jsonl"), str(folder / "b_mismatch.jsonl"),
                 "-t", CRM, "--update")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("updated 2 recorded results in the transcript") == 1
    again = cli("replay", str(folder), "-t", CRM, "--json")
    assert json.loads(again.stdout)["summary"] == {"matched": 5, "mismatched": 0,
                                                   "unrecorded": 0}


def test_a_compressed_transcript_is_read_but_not_updated(cli, folder):
    path = folder / "openai" / "c.json.gz"
    assert cli("replay", str(path), "-t", CRM).exit_code == 0
    (folder / "m.jsonl.gz").write_bytes(
        gzip.compress((TRANSCRIPTS / "crm_mismatch.jsonl").read_bytes()))
    result = cli("replay", str(folder / "m.jsonl.gz"), "-t", CRM, "--update")
    assert result.exit_code == 3
    assert "a compressed transcript cannot be updated" in result.stderr


def test_stdin_is_read_with_a_dash(cli):
    text = (TRANSCRIPTS / "crm_mismatch.jsonl").read_text(encoding="utf-8")
    result = cli("replay", "-", "-t", CRM, "--json", input=text)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["transcript"] == "-" and data["summary"]["mismatched"] == 1
    broken = cli("replay", "-", "-t", CRM, input='{"type":"user","content":"hi"}\n{"type": \n')
    assert broken.exit_code == 3
    assert "error: cannot read transcript -, line 2: invalid JSON" in broken.stderr
    assert cli("replay", "-", "-t", CRM, "--update", input=text).exit_code == 2


def test_match_status_passes_results_worded_by_another_framework(cli, tmp_path):
    path = tmp_path / "other.jsonl"
    path.write_text(REWORDED, encoding="utf-8")
    assert cli("replay", str(path), "-t", CRM).exit_code == 1
    result = cli("replay", str(path), "-t", CRM, "--match", "status")
    assert result.exit_code == 0, result.stdout
    assert f"{path} (agentforge, match status)" in result.stdout.replace("\n", "")
    assert json.loads(cli("replay", str(path), "-t", CRM, "--match", "STATUS",
                          "--json").stdout)["match"] == "status"


def test_match_json_reads_a_result_encoded_twice(cli, tmp_path, write_module):
    module = write_module("profile_tools", PROFILE_TOOL)
    path = tmp_path / "twice.json"
    path.write_text(DOUBLE_ENCODED, encoding="utf-8")
    assert cli("replay", str(path), "-t", str(module)).exit_code == 1
    result = cli("replay", str(path), "-t", str(module), "--match", "json")
    assert result.exit_code == 0, result.stdout
    assert "✓ matched" in result.stdout


def test_an_unknown_match_mode_is_a_usage_error(cli):
    result = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM, "--match", "fuzzy")
    assert result.exit_code == 2
