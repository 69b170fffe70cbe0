"""The command line facing hostile tools (``tests/integrations/hostile_tools.py``): a tool's
``sys.exit`` is a tool error with the documented exit code, never the process's exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import ROOT

AGENTFORGE = Path(sys.executable).with_name("agentforge")
HOSTILE = str(ROOT / "tests" / "integrations" / "hostile_tools.py")


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTFORGE_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120, errors="replace")


@pytest.mark.parametrize(("name", "arguments", "raised"), [
    ("argparse_cli", '{"argv": "--bogus"}', "SystemExit(2)"),
    ("exit_zero", "{}", "SystemExit(0)"),
    ("interrupt", "{}", "KeyboardInterrupt"),
    ("async_exit", '{"code": 0}', "SystemExit(0)"),
])
def test_tools_call_reports_the_exit_as_a_tool_error(name, arguments, raised) -> None:
    done = run("tools", "call", name, arguments, "-t", HOSTILE)
    assert done.returncode == 1, done
    assert f'Tool "{name}" raised {raised}' in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def _line(**fields) -> str:
    return json.dumps(fields, ensure_ascii=False) + "\n"


def test_replay_goes_on_after_a_tool_exit_and_reports_it(tmp_path: Path) -> None:
    transcript = tmp_path / "exit.jsonl"
    transcript.write_text(
        _line(type="tool_call", id="c1", name="argparse_cli", arguments='{"argv":"--x"}')
        + _line(type="tool_result", id="c1", content="alice", is_error=False)
        + _line(type="tool_call", id="c2", name="ping", arguments="{}")
        + _line(type="tool_result", id="c2", content="pong", is_error=False),
        encoding="utf-8")
    junit = tmp_path / "report.xml"
    done = run("replay", str(transcript), "-t", HOSTILE, "--json", "--junit", str(junit))
    assert done.returncode == 1, done
    report = json.loads(done.stdout)
    assert "SystemExit(2)" in json.dumps(report)
    assert junit.exists() and "SystemExit(2)" in junit.read_text(encoding="utf-8")
    plain = run("replay", str(transcript), "-t", HOSTILE)
    assert plain.returncode == 1, plain
    assert "SystemExit(2)" in plain.stdout and "pong" in plain.stdout
