"""``AGENTFORGE_RECORD`` naming a place nothing can be written to: one warning on stderr
with the path, recording off, and the program (a command too) goes on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CRM, ROOT

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools
from agentforge_cli.core.observe import recording
from sample_tools.crm import CrmTools

AGENTFORGE = Path(sys.executable).parent / "agentforge"


def unwritable(tmp_path: Path, how: str) -> Path:
    """A file in the way of the directory, or the directory is that file."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    return blocker / "sub" if how == "under a file" else blocker


@pytest.mark.parametrize("how", ["under a file", "a file"])
def test_services_still_answer_and_it_is_said_once(tmp_path, monkeypatch, capsys, how):
    place = unwritable(tmp_path, how)
    monkeypatch.setenv("AGENTFORGE_RECORD", str(place))
    monkeypatch.setattr(recording, "_SHARED", {})
    results = []
    for n in range(2):
        service = ToolService().tools(build_local_tools([CrmTools()]))
        assert service.recorder is None
        results.append(service.execute(ToolExecutionRequest(
            id=f"c{n}", name="queryCustomer", arguments='{"name":"a","limit":1}')).text)
    assert results == ["customer:a,limit:1"] * 2
    err = capsys.readouterr().err
    assert err.count("warning") == 1
    assert f"AGENTFORGE_RECORD={str(place)!r} cannot be written to" in err
    assert f"{tmp_path / 'a-file'} is a file, not a directory" in err
    assert "calls are not being recorded" in err


@pytest.mark.parametrize("args", [("tools", "call", "queryCustomer", '{"name":"a","limit":1}',
                                   "-t", CRM),
                                  ("tools", "list", CRM)])
def test_a_command_runs_without_recording(tmp_path, args):
    place = unwritable(tmp_path, "under a file")
    env = {**os.environ, "AGENTFORGE_RECORD": str(place), "PYTHONPATH": str(ROOT),
           "NO_COLOR": "1"}
    done = subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "customer:a,limit:1" in done.stdout or "queryCustomer" in done.stdout
    assert done.stderr.count(str(place)) == 1
    assert "unexpected" not in done.stderr
