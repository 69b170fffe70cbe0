"""Files the commands write back: through symbolic links, and when writing fails."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from cli_support import CRM, TRANSCRIPTS

SHOP = "sample_tools.shop"


def _linked(tmp_path, name):
    """``tmp_path/real/name`` and a link ``tmp_path/name`` to it."""
    target = tmp_path / "real" / name
    target.parent.mkdir()
    link = tmp_path / name
    link.symlink_to(target)
    return link, target


def test_replay_update_through_a_link_rewrites_its_target(cli, tmp_path):
    link, target = _linked(tmp_path, "t.jsonl")
    shutil.copy(TRANSCRIPTS / "crm_mismatch.jsonl", target)
    result = cli("replay", str(link), "-t", CRM, "--update")
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    again = cli("replay", str(target), "-t", CRM, "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["summary"]["mismatched"] == 0


def test_update_snapshot_through_a_link_rewrites_its_target(cli, tmp_path):
    link, target = _linked(tmp_path, "tools.lock.json")
    target.write_text('{"tools": {}}\n', encoding="utf-8")
    result = cli("tools", "check", SHOP, "--snapshot", str(link), "--update-snapshot")
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert json.loads(target.read_text(encoding="utf-8"))["tools"]


def _refuse_writing(monkeypatch, refused):
    """``os.replace`` onto a file named in ``refused`` fails as on a read-only file."""
    real = os.replace

    def replace(source, destination):
        if os.path.basename(destination) in refused:
            raise PermissionError(13, "Permission denied")
        return real(source, destination)

    monkeypatch.setattr(os, "replace", replace)


def test_replay_update_of_an_unwritable_transcript_names_it(cli, tmp_path, monkeypatch):
    path = tmp_path / "t.jsonl"
    shutil.copy(TRANSCRIPTS / "crm_mismatch.jsonl", path)
    before = path.read_bytes()
    _refuse_writing(monkeypatch, {"t.jsonl"})
    result = cli("replay", str(path), "-t", CRM, "--update")
    assert result.exit_code == 2, result.output
    assert f"error: cannot write transcript {path}: permission denied" in result.stderr
    assert "unexpected" not in result.stderr
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.jsonl"]  # no temporary file left


@pytest.mark.parametrize("json_output", [False, True])
def test_replay_update_goes_on_after_an_unwritable_transcript(cli, tmp_path, monkeypatch,
                                                              json_output):
    for name in ("a.jsonl", "b.jsonl"):
        shutil.copy(TRANSCRIPTS / "crm_mismatch.jsonl", tmp_path / name)
    _refuse_writing(monkeypatch, {"a.jsonl"})
    result = cli("replay", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "-t", CRM,
                 "--update", *(["--json"] if json_output else []))
    assert result.exit_code == 2, result.output
    message = f"cannot write transcript {tmp_path / 'a.jsonl'}: permission denied"
    if json_output:
        report = json.loads(result.stdout)
        assert report["files"][0]["error"] == message
        assert report["failed_transcripts"] == 1
        assert "error" not in report["files"][1]
    else:
        assert f"error: {message}" in result.stderr
        assert "1 failed" in result.stdout
    again = cli("replay", str(tmp_path / "b.jsonl"), "-t", CRM, "--json")
    assert json.loads(again.stdout)["summary"]["mismatched"] == 0, "b was updated"


def test_unwritable_snapshot_and_junit_report_name_the_file(cli, tmp_path, monkeypatch):
    _refuse_writing(monkeypatch, {"tools.lock.json", "report.xml"})
    snapshot = tmp_path / "tools.lock.json"
    result = cli("tools", "check", SHOP, "--snapshot", str(snapshot), "--update-snapshot")
    assert result.exit_code == 2, result.output
    assert str(snapshot) in result.stderr and "ermission denied" in result.stderr
    junit = tmp_path / "report.xml"
    result = cli("replay", str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM, "--junit", str(junit))
    assert result.exit_code == 2, result.output
    assert str(junit) in result.stderr and "ermission denied" in result.stderr
