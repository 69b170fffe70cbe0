"""YAML cassettes nested deeper than the interpreter's stack: a clear error naming the file
and line, for that file only (the other transcripts still replay), from the command and
from ``pytest --agentforge-replay``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CRM, ROOT, TRANSCRIPTS

from agentforge_cli.replay.transcripts import TranscriptError, open_transcript
from agentforge_cli.replay.transcripts.files import cassettes

SAMPLE = TRANSCRIPTS / "crm_vcr_openai.yaml"
"""A cassette with tool calls: the deep value is added to it as a top-level key."""
SAMPLE_LINES = len(SAMPLE.read_text().splitlines())


def block_cassette(path: Path, depth: int) -> Path:
    """The sample with mappings nested ``depth`` deep after it, in block style (one
    level a line: level N is on line SAMPLE_LINES + 1 + N)."""
    lines = ["deep:"] + [" " * (2 + 2 * level) + "a:" for level in range(depth)]
    lines.append(" " * (2 + 2 * depth) + "end")
    path.write_text(SAMPLE.read_text() + "\n".join(lines) + "\n")
    return path


def flow_cassette(path: Path, depth: int) -> Path:
    """The same with lists nested ``depth`` deep on one line (flow style)."""
    path.write_text(SAMPLE.read_text() + f"deep: {'[' * depth}{']' * depth}\n")
    return path


@pytest.mark.parametrize("make, depth, line", [(block_cassette, 2000, SAMPLE_LINES + 201),
                                               (flow_cassette, 600, SAMPLE_LINES + 1)])
def test_the_command_names_the_file_and_replays_the_others(cli, tmp_path, make, depth, line):
    deep = make(tmp_path / "deep.yaml", depth)
    result = cli("replay", str(deep), str(TRANSCRIPTS / "crm.jsonl"), "-t", CRM)
    assert result.exit_code == 3
    assert (f"cannot read transcript {deep}, line {line}: YAML nested more than 200 "
            "levels deep (the limit)") in result.stderr
    assert "unexpected" not in result.stderr
    assert "crm.jsonl (agentforge)" in result.stdout  # replayed all the same


def test_nesting_up_to_the_limit_reads(tmp_path):
    path = block_cassette(tmp_path / "deep.yaml", cassettes.MAX_YAML_NESTING - 1)
    assert len(list(open_transcript(path).events())) == len(
        list(open_transcript(SAMPLE).events()))


def test_a_reader_without_a_limit_still_ends_in_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(cassettes, "MAX_YAML_NESTING", 10**6)
    path = block_cassette(tmp_path / "deep.yaml", 5000)
    with pytest.raises(TranscriptError) as info:
        list(open_transcript(path).events())
    assert info.value.reason == "nested too deeply to read"


def test_pytest_fails_that_file_and_runs_the_others(tmp_path):
    block_cassette(tmp_path / "block.yaml", 2000)
    flow_cassette(tmp_path / "flow.yaml", 650)
    shutil.copy(TRANSCRIPTS / "crm.jsonl", tmp_path / "crm.jsonl")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AGENTFORGE_TOOLS", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--agentforge-replay", "block.yaml", "--agentforge-replay", "flow.yaml",
         "--agentforge-replay", "crm.jsonl", "--agentforge-tools", CRM],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    output = done.stdout + done.stderr
    assert "INTERNALERROR" not in output
    assert done.returncode == 1, output
    assert "2 failed, 1 passed" in output
    assert (f"block.yaml, line {SAMPLE_LINES + 201}: YAML nested more than 200 levels "
            "deep") in output
    assert len(output.splitlines()) < 40
