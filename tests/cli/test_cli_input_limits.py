"""Input read from standard input or a file is bounded before it is read whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cli_support import CRM, ROOT, TRANSCRIPTS

from agentforge_cli.core.bind.arguments import DEFAULT_MAX_ARGUMENT_CHARS

AGENTFORGE = Path(sys.executable).parent / "agentforge"
LIMIT = f"more than the limit of {DEFAULT_MAX_ARGUMENT_CHARS} characters"


def test_tools_call_refuses_an_endless_arguments_file(cli):
    result = cli("tools", "call", "-t", CRM, "queryCustomer", "@/dev/zero")
    assert result.exit_code == 2, result.output
    assert f"the arguments file '/dev/zero' are {LIMIT}" in result.stderr


def test_tools_call_refuses_too_long_standard_input(cli):
    result = cli("tools", "call", "-t", CRM, "queryCustomer", "-",
                 input="x" * (DEFAULT_MAX_ARGUMENT_CHARS + 1))
    assert result.exit_code == 2, result.output
    assert f"the arguments on standard input are {LIMIT}" in result.stderr


def test_tools_call_reads_arguments_up_to_the_limit(cli, tmp_path):
    path = tmp_path / "args.json"
    path.write_text('{"name": "长路", "limit": 1}' + " " * 1000, encoding="utf-8")
    result = cli("tools", "call", "-t", CRM, "queryCustomer", f"@{path}")
    assert result.exit_code == 0, result.output


def test_replay_refuses_standard_input_over_the_transcript_limit(cli, monkeypatch):
    from agentforge_cli.replay.transcripts.files import limits

    text = (TRANSCRIPTS / "crm.jsonl").read_text(encoding="utf-8")
    monkeypatch.setattr(limits, "MAX_DOCUMENT_BYTES", len(text.encode()) - 1)
    result = cli("replay", "-", "-t", CRM, input=text)
    assert result.exit_code == 3, result.output
    assert "standard input is more than the" in result.stderr
    monkeypatch.setattr(limits, "MAX_DOCUMENT_BYTES", len(text.encode()))
    assert cli("replay", "-", "-t", CRM, input=text).exit_code == 0


def test_sigterm_while_spooling_standard_input_removes_the_spool(tmp_path):
    process = subprocess.Popen(
        [str(AGENTFORGE), "replay", "-", "-t", CRM], stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp_path), "NO_COLOR": "1"})
    process.stdin.write(b'{"type":"user","content":"waiting"}\n')
    process.stdin.flush()
    deadline = time.monotonic() + 30
    while not list(tmp_path.glob("agentforge-replay-*/stdin")):
        assert time.monotonic() < deadline and process.poll() is None, "never spooled"
        time.sleep(0.01)
    time.sleep(0.2)  # blocked reading standard input
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)
    process.stdin.close()
    process.stderr.close()
    assert process.returncode == -signal.SIGTERM
    assert list(tmp_path.iterdir()) == []
