"""A folder a command runs from holds modules named like the libraries agentforge imports
(``yaml.py``, ``rich.py``, ``mcp.py``...): none of them is imported. Only a target that
names a module there loads it. Run as the installed ``agentforge`` command, the way a user
runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import ROOT, TRANSCRIPTS

AGENTFORGE = Path(sys.executable).parent / "agentforge"
if not AGENTFORGE.exists():  # pragma: no cover - a python outside the virtualenv
    AGENTFORGE = Path(shutil.which("agentforge") or AGENTFORGE)

SHADOWS = ("yaml", "rich", "mcp", "typer", "click", "pydantic", "anyio", "httpx",
           "jsonschema", "json", "enum", "typing", "docstring_parser", "zstandard")
"""Libraries and standard modules a command may import, lazily or at start."""

TOOLS = '''\
from helpers import greeting

from agentforge_cli import tool


class CrmTools:
    @tool(name="queryCustomer", description="look a customer up")
    def queryCustomer(self, name: str, limit: int) -> str:
        return greeting(name, limit)
'''


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A folder with a module of each name in SHADOWS (each leaves a marker file when
    imported), the target ``mytools`` and its neighbour ``helpers``, and a cassette."""
    for name in SHADOWS:
        (tmp_path / f"{name}.py").write_text(
            f"open({str(tmp_path / ('IMPORTED-' + name))!r}, 'w').close()\n")
    (tmp_path / "mytools.py").write_text(TOOLS)
    (tmp_path / "helpers.py").write_text(
        "def greeting(name, limit):\n    return f'customer:{name},limit:{limit}'\n")
    shutil.copy(TRANSCRIPTS / "crm_vcr_openai.yaml", tmp_path / "cassette.yaml")
    shutil.copy(TRANSCRIPTS / "crm.jsonl", tmp_path / "crm.jsonl")
    return tmp_path


def run(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_RECORD")}
    environment.update({"NO_COLOR": "1", "COLUMNS": "80", "PYTHONIOENCODING": "utf-8",
                        "PYTHONPATH": str(ROOT)})
    return subprocess.run([str(AGENTFORGE), *args], cwd=cwd, env=environment, input=stdin,
                          capture_output=True, text=True, timeout=120)


def imported(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("IMPORTED-*"))


MCP_LIST = "\n".join(json.dumps(message) for message in [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]) + "\n"

COMMANDS = {
    "replay cassette": (("replay", "cassette.yaml", "-t", "mytools:CrmTools"), 0),
    "replay jsonl": (("replay", "crm.jsonl", "-t", "mytools:CrmTools"), 0),
    "tools list": (("tools", "list", "mytools:CrmTools"), 0),
    "tools check": (("tools", "check", "mytools:CrmTools"), 0),
    "tools call": (("tools", "call", "queryCustomer", '{"name":"a","limit":2}',
                    "-t", "mytools:CrmTools"), 0),
    "an error rendered": (("tools", "call", "queryCustomr", "-t", "mytools:CrmTools"), 2),
    "a file target": (("tools", "list", "mytools.py:CrmTools"), 0),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_module_of_the_working_directory_is_imported_but_the_target(hostile, name):
    args, code = COMMANDS[name]
    done = run(hostile, *args)
    assert imported(hostile) == []
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    if code == 0 and args[0] == "tools" and args[1] != "check":
        assert "queryCustomer" in done.stdout or "customer:a,limit:2" in done.stdout


def test_serve_imports_nothing_from_the_working_directory(hostile):
    done = run(hostile, "serve", "mytools:CrmTools", stdin=MCP_LIST)
    assert imported(hostile) == []
    assert "queryCustomer" in done.stdout, done.stderr


def test_the_target_is_still_found_in_the_working_directory(hostile):
    done = run(hostile, "tools", "call", "queryCustomer", '{"name":"b","limit":"3"}',
               "-t", "mytools:CrmTools")
    assert (done.returncode, done.stdout) == (0, "customer:b,limit:3\n"), done.stderr


def test_main_takes_the_working_directory_off_the_path_python_c_puts_first(hostile):
    """``python -c`` puts the working directory first: the libraries imported after
    ``main`` starts (all but the few its module imports) come from the environment."""
    for before_main in ("typer", "click", "typing", "enum", "json"):  # app.py's own imports
        (hostile / f"{before_main}.py").unlink()
    environment = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    environment.pop("AGENTFORGE_TOOLS", None)
    code = ("import sys; from agentforge_cli.cli.app import main; "
            "sys.argv[0] = 'agentforge'; main()")
    done = subprocess.run([sys.executable, "-c", code, "replay", "cassette.yaml", "-t",
                           "mytools:CrmTools"], cwd=hostile, env=environment,
                          capture_output=True, text=True, timeout=120)
    assert imported(hostile) == []
    assert done.returncode == 0, done.stderr
