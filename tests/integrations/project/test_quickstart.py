"""docs/quickstart.md, run: its commands in a copy of a user's project (a `src/` layout
with a class of tools) set it up, and `pytest` and `tools check` pass there with no
edit by hand."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from cli_support import ROOT

SAMPLE = Path(__file__).parent / "sample_project"
PAGE = ROOT / "docs" / "quickstart.md"


def page_commands() -> list[list[str]]:
    """The ```sh blocks' lines (the install line is a ```text block: it needs the
    network)."""
    blocks = re.findall(r"```sh\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    return [shlex.split(line) for block in blocks for line in block.splitlines() if line]


def run(words: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for name in ("AGENTFORGE_TOOLS", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "PYTEST_ADDOPTS"):
        env.pop(name, None)
    return subprocess.run(words, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_quickstart_gives_a_passing_project(tmp_path: Path):
    project = tmp_path / "helpdesk"
    shutil.copytree(SAMPLE, project)
    before = (project / "pyproject.toml").read_text(encoding="utf-8")
    commands = page_commands()
    assert [words[0] for words in commands] == ["agentforge", "pytest", "agentforge"]
    for words in commands:
        done = run(words, project)
        assert done.returncode == 0, (words, done.stdout, done.stderr)
        if words[0] == "pytest":
            # the project's test, the snapshot test, and a fuzz item for each of 3 tools
            assert "5 passed" in done.stdout, done.stdout
    after = (project / "pyproject.toml").read_text(encoding="utf-8")
    assert after.startswith(before)
    assert after[len(before):] == (
        '\n[tool.agentforge]\ntools = ["src/helpdesk/tools.py:HelpdeskTools"]\n')
    for written in ("tests/agentforge/tools.snapshot.json", "tests/agentforge/conftest.py",
                    "tests/agentforge/test_agentforge_tools.py",
                    ".github/workflows/agentforge.yml"):
        assert (project / written).is_file(), written


def test_recorded_calls_are_replayed_by_pytest(tmp_path: Path):
    project = tmp_path / "helpdesk"
    shutil.copytree(SAMPLE, project)
    assert run(["agentforge", "init"], project).returncode == 0
    (project / "tests" / "test_calls.py").write_text(
        "from agentforge_cli import ToolExecutionRequest\n\n"
        "def test_get(agentforge_service):\n"
        "    result = agentforge_service.execute(ToolExecutionRequest(\n"
        "        id='c1', name='get_ticket', arguments='{\"number\": \"101\"}'))\n"
        "    assert 'Printer' in result.text\n", encoding="utf-8")
    recorded = run(["pytest", "tests/test_calls.py", "--agentforge-record",
                    "tests/agentforge/transcripts"], project)
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    replayed = run(["pytest", "-v"], project)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert re.search(r"transcripts/agentforge-calls-\S+\.jsonl::agentforge_replay\[c1 "
                     r"get_ticket\] PASSED", replayed.stdout), replayed.stdout
