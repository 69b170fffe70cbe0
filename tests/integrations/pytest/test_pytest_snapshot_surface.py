"""The plugin's snapshot check compares the whole surface of MCP targets, as ``tools check
--snapshot`` and ``tools diff`` do: resources, resource templates and prompts beside the
tools (an SDK server of ours, ``surface_server.py``, served as it is and changed); a
snapshot of Python tools is written byte for byte as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from agentforge_cli.integrations.mcp.client.options import HEADERS_VAR, TIMEOUT_VAR

pytest_plugins = ["pytester"]

HERE = Path(__file__).resolve().parents[1]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
SURFACE = f"mcp:{sys.executable} {HERE / 'surface_server.py'} stdio"
CHANGED = SURFACE.replace("mcp:", "mcp:env SURFACE_VARIANT=changed ", 1)

WITH_SPECS = '''
from agentforge_cli.integrations.pytest.plugin import assert_tools_match_snapshot

def test_surface(agentforge_specs):
    assert_tools_match_snapshot(agentforge_specs, "snapshots/surface.json")
'''

WITH_FIXTURE = '''
def test_surface(agentforge_snapshot):
    agentforge_snapshot("snapshots/surface.json")
'''

PYTHON_TOOLS = '''
from agentforge_cli import tool

@tool(name="lookup")
def lookup(name: str, limit: int = 10) -> str:
    """Look a name up."""
    return name
'''

PYTHON_SNAPSHOT = """{
  "tools": {
    "lookup": {
      "description": "Look a name up.",
      "parameters": {
        "additionalProperties": false,
        "properties": {
          "limit": {
            "default": 10,
            "type": "integer"
          },
          "name": {
            "type": "string"
          }
        },
        "required": [
          "name"
        ],
        "type": "object"
      }
    }
  },
  "version": 1
}
"""


def _plugin_args() -> list[str]:
    installed = any(ep.value == "agentforge_cli.integrations.pytest.plugin"
                    for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "agentforge_cli.integrations.pytest.plugin"]


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """``run(target, *args)``: pytest in ``pytester.path`` with the plugin, the tools of
    ``target``."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    for name in (TIMEOUT_VAR, HEADERS_VAR):
        monkeypatch.delenv(name, raising=False)
    pytester.syspathinsert()

    def run_pytest(target: str, *args: str) -> pytest.RunResult:
        monkeypatch.setenv("AGENTFORGE_TOOLS", target)
        return pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider",
                                             *args, timeout=300)

    return run_pytest


def _diff_messages(old: Path, new: Path) -> list[str]:
    """The messages ``tools diff OLD NEW`` gives its breaking findings."""
    environment = {k: v for k, v in os.environ.items() if k != "AGENTFORGE_TOOLS"}
    diff = subprocess.run([str(AGENTFORGE), "tools", "diff", str(old), str(new), "--json"],
                          capture_output=True, text=True, cwd=ROOT, env=environment,
                          timeout=120)
    return [f["message"] for f in json.loads(diff.stdout)["findings"]
            if f["level"] == "breaking"]


@pytest.mark.parametrize("test", [WITH_SPECS, WITH_FIXTURE], ids=["specs", "fixture"])
def test_a_removed_prompt_argument_fails_as_tools_diff_says(pytester, run, test):
    pytester.makepyfile(test_af_surface=test)
    run(SURFACE, "--agentforge-update-snapshots").assert_outcomes(passed=1)
    written = pytester.path / "snapshots" / "surface.json"
    data = json.loads(written.read_text(encoding="utf-8"))
    assert sorted(data) == ["prompts", "resourceTemplates", "resources", "tools", "version"]
    assert data["prompts"]["review"]["arguments"][1]["name"] == "language"
    run(SURFACE).assert_outcomes(passed=1)

    failed = run(CHANGED)
    failed.assert_outcomes(failed=1)
    output = failed.stdout.str()
    assert "the tools differ from the snapshot" in output
    changed = pytester.path / "changed.json"
    run(CHANGED, "--agentforge-update-snapshots")  # the changed server, written down
    changed.write_bytes(written.read_bytes())
    run(SURFACE, "--agentforge-update-snapshots")
    messages = _diff_messages(written, changed)
    assert ('prompt "review", argument "language": the argument was removed; a prompts/get '
            "that sends it may be refused") in messages
    assert messages and all(f"breaking: {message}" in output for message in messages)


def test_a_snapshot_of_python_tools_is_written_as_before(pytester, run):
    pytester.makepyfile(af_python_tools=PYTHON_TOOLS, test_af_surface=WITH_SPECS)
    run("af_python_tools", "--agentforge-update-snapshots").assert_outcomes(passed=1)
    written = (pytester.path / "snapshots" / "surface.json").read_text(encoding="utf-8")
    assert written == PYTHON_SNAPSHOT  # what the plugin wrote before snapshots held more
    run("af_python_tools").assert_outcomes(passed=1)
