"""A call to an MCP target is bounded: by default after ``DEFAULT_CALL_TIMEOUT`` seconds
(``McpOptions.call_timeout``), or by ``--timeout`` of ``tools call`` and ``replay``.

The server is ``agentforge serve tests/integrations/stdio_tools.py``, whose ``hang`` never returns;
each command runs as a subprocess and must stop the server when it exits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentforge_cli.core.define.spec import ToolExecutionRequest
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.mcp.client.lifecycle import close_all
from agentforge_cli.integrations.mcp.client.options import (
    DEFAULT_CALL_TIMEOUT,
    TIMEOUT_VAR,
    McpOptions,
)
from agentforge_cli.integrations.targets.loading import load_service

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
HANGING = f"mcp:{AGENTFORGE} serve {HERE / 'stdio_tools.py'}"


def agentforge(*args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", TIMEOUT_VAR)}
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120, stdin=subprocess.DEVNULL)


def test_the_default_call_timeout_is_an_option() -> None:
    assert DEFAULT_CALL_TIMEOUT == 60.0
    assert McpOptions().call_timeout == DEFAULT_CALL_TIMEOUT


def test_the_call_timeout_of_the_options_bounds_a_call(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.chdir(ROOT)
    try:
        service = load_service([HANGING], mcp_options=McpOptions(call_timeout=1))
        started = time.monotonic()
        with pytest.raises(TargetError, match=r"tools/call hang: no answer within 1 s"):
            service.execute(ToolExecutionRequest(name="hang"))
        assert time.monotonic() - started < 30
        assert service.execute(ToolExecutionRequest(name="echo", arguments='{"n": 2}')
                               ) == ("2", False)
    finally:
        close_all()


def test_replay_takes_a_timeout(tmp_path: Path) -> None:
    transcript = tmp_path / "hang.jsonl"
    events = [{"type": "user", "content": "wait"},
              {"type": "tool_call", "id": "call_1", "name": "hang", "arguments": "{}"},
              {"type": "tool_result", "id": "call_1", "content": "done", "is_error": False}]
    transcript.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    done = agentforge("replay", str(transcript), "-t", HANGING, "--timeout", "1")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "no answer within 1 s" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("value", ["0", "-1", "inf"])
def test_replay_refuses_a_bad_timeout(value: str) -> None:
    done = agentforge("replay", "sample_tools/transcripts/crm.jsonl", "-t",
                      "sample_tools.crm:CrmTools", "--timeout", value)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--timeout must be a positive number of seconds" in done.stderr
