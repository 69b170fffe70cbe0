"""``tools check`` on an MCP server's tools (``faulty_server.py``), through the installed
``agentforge`` run as a subprocess: a default its own schema refuses is an error, and a
finding about a server's tool is silenced by the project configuration, by tool name."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from test_mcp_faults import AGENTFORGE, FAULTY, _env, agentforge


def test_a_server_tools_default_its_schema_refuses_is_an_error() -> None:
    done = agentforge("tools", "check", "--json", f"{FAULTY} defaults")
    assert done.returncode == 1, done.stderr
    found = [(f["tool"], f["rule"], f["level"], f["path"])
             for f in json.loads(done.stdout)["findings"]]
    assert found == [("brew", "invalid-default", "error", "$.size"),
                     ("brew", "invalid-default", "error", "$.shots")]
    messages = [f["message"] for f in json.loads(done.stdout)["findings"]]
    assert "'huge' is not one of ['small', 'large']" in messages[0]
    assert "0 is less than the minimum of 1" in messages[1]


def test_the_configuration_silences_a_server_tools_findings(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.agentforge.lint]\n"
        'ignore = {listish = ["mcp:tool-unusable"], brew = ["invalid-default"]}\n')
    done = subprocess.run([str(AGENTFORGE), "tools", "check", "--json",
                           f"{FAULTY} badschema", f"{FAULTY} defaults"],
                          capture_output=True, text=True, cwd=tmp_path, env=_env(),
                          timeout=120)
    assert done.returncode == 1, done.stderr  # the nameless tool's error still counts
    document = json.loads(done.stdout)
    assert [(f["tool"], f["rule"]) for f in document["findings"]] == [
        ("#3", "mcp:tool-unusable")]
    assert [(f["tool"], f["rule"], f["silenced_by"]) for f in document["silenced"]] == [
        ("listish", "mcp:tool-unusable", "pyproject.toml: [tool.agentforge.lint] ignore"),
        ("brew", "invalid-default", "pyproject.toml: [tool.agentforge.lint] ignore"),
        ("brew", "invalid-default", "pyproject.toml: [tool.agentforge.lint] ignore"),
    ]
