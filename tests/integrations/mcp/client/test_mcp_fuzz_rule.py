"""Which MCP tools ``tools fuzz`` calls: by default only those marked ``readOnlyHint: true``
(and not ``openWorldHint: true``); every other one is skipped with its reason, unless named
with ``--tool`` or ``--include-destructive`` is given. Against real servers: the repository's
own ``agentforge serve`` of annotated tools, and the reference server-everything.

The command line runs as a subprocess (the installed ``agentforge``), as a user runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
SERVED = f"mcp:{AGENTFORGE} serve {HERE / 'fuzz_served_tools.py'}"
EVERYTHING = ROOT / ".venv" / "node" / "node_modules" / ".bin" / "mcp-server-everything"


def fuzz(target: str, *options: str) -> tuple[int, dict, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "AGENTFORGE_MCP_TIMEOUT")}
    done = subprocess.run([str(AGENTFORGE), "tools", "fuzz", target, "--examples", "5",
                           "--seed", "1", "--json", *options], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=180)
    return done.returncode, json.loads(done.stdout), done.stderr


def by_name(document: dict) -> dict[str, dict]:
    return {tool["name"]: tool for tool in document["tools"]}


def test_only_the_read_only_tool_of_a_served_module_is_called(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    code, document, stderr = fuzz(SERVED, "--env", f"NOTES_FILE={notes}")
    assert code == 0, stderr
    tools = by_name(document)
    assert [name for name, tool in tools.items() if not tool["skipped"]] == ["look"]
    assert tools["look"]["counts"]["ok"] == 5
    assert tools["look"]["guarded"] is False  # it runs in the server's process
    reasons = {name: tool["skipped"] for name, tool in tools.items() if tool["skipped"]}
    assert reasons["remember"] == ("destructiveHint: false means additive (it may create or "
                                   "write), not harmless: name it with --tool or run with "
                                   "--include-destructive to call it")
    assert reasons["browse"].startswith("open-world (openWorldHint: true): it reaches "
                                        "outside systems: ")
    assert reasons["bare"].startswith("no annotations, which MCP reads as destructive and "
                                      "open-world: ")
    assert reasons["forget"].startswith("destructive (destructiveHint): ")
    for name in reasons:
        assert f"skipped {name}: {reasons[name]}" in stderr
    assert tools["remember"]["examples"] == 0 and not notes.exists()
    # named, it is called
    code, document, stderr = fuzz(SERVED, "--env", f"NOTES_FILE={notes}", "--tool", "remember")
    assert code == 0, stderr
    (remember,) = document["tools"]
    assert remember["skipped"] is None and remember["counts"]["ok"] == 5
    assert len(notes.read_text(encoding="utf-8").splitlines()) >= 5


def test_server_everything_its_read_only_tools_are_called_the_others_skipped() -> None:
    if not EVERYTHING.exists():
        pytest.fail(f"{EVERYTHING} is missing: run make install (it installs the Node "
                    "reference servers)")
    _, document, stderr = fuzz(f"mcp:{EVERYTHING}", "--timeout", "2")
    tools = by_name(document)
    assert tools["echo"]["skipped"] is None and tools["echo"]["counts"]["ok"] == 5
    # readOnlyHint false, destructiveHint false, openWorldHint false: it changes the
    # server's state, additively
    assert tools["toggle-simulated-logging"]["skipped"].startswith(
        "destructiveHint: false means additive")
    assert tools["toggle-simulated-logging"]["examples"] == 0
    # it fetches a URL it is given
    assert "open-world (openWorldHint: true)" in tools["gzip-file-as-resource"]["skipped"]
    called = {name for name, tool in tools.items() if not tool["skipped"]}
    assert "gzip-file-as-resource" not in called and "toggle-subscriber-updates" not in called
    assert "skipped gzip-file-as-resource: " in stderr
