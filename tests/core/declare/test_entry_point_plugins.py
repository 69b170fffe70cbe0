"""Other packages extend agentforge through entry points: the examples of
docs/extending.md, packaged with the page's ``[project.entry-points]`` and installed with
pip into a fresh virtual environment, add a type handler, a provider export, a framework
adapter and a transcript format that the command line of that environment uses, with no
import of theirs. Importing ``agentforge_cli`` reads no entry point; the first use does.

The environment sees this one's packages (agentforge's dependencies, pip, setuptools)
through a ``.pth`` file and this checkout through ``PYTHONPATH``, so nothing is
downloaded."""

from __future__ import annotations

import json
import os
import re
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "extending.md"
CRM = "sample_tools.crm:CrmTools"

MINITOOLS = '''
class Tool:
    def __init__(self, name, doc, schema, run):
        self.name, self.doc, self.schema, self.run = name, doc, schema, run
'''

TARGET = '''
import ipaddress

import minitools

from agentforge_cli import tool


@tool
def ping(host: ipaddress.IPv4Address) -> str:
    """Ping a host."""
    return f"pong from {host}"


def add(a: int, b: int) -> int:
    return a + b


adding = minitools.Tool("add", "Add two numbers.", {
    "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"]}, add)
'''

LAZY = '''
import importlib.metadata as metadata
read = []
real = metadata.entry_points
metadata.entry_points = lambda **kw: read.append(kw.get("group", "every group")) or real(**kw)
from agentforge_cli import P, tool
print(read)
from agentforge_cli import build_local_tools
import targets
build_local_tools([targets.ping])
print(read)
'''


def plugin_project(where: Path) -> Path:
    """The page's example modules (its setup module aside: entry points replace it), the
    made-up library they adapt, and a ``pyproject.toml`` with the page's entry points."""
    page = PAGE.read_text(encoding="utf-8")
    project = where / "agentforge-examples"
    project.mkdir()
    modules = ["minitools"]
    for name, source in re.findall(r"```python\n# (\w+)\.py\n(.*?)```", page, re.S):
        if name != "agentforge_examples_setup":
            (project / f"{name}.py").write_text(source, encoding="utf-8")
            modules.append(name)
    (project / "minitools.py").write_text(MINITOOLS, encoding="utf-8")
    (entry_points,) = re.findall(r"```toml\n(.*?)```", page, re.S)
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
        '[project]\nname = "agentforge-examples"\nversion = "0.1"\n\n'
        "[tool.hatch.build.targets.wheel]\n"
        f"only-include = {json.dumps([f'{name}.py' for name in modules])}\n\n"
        f"{entry_points}",
        encoding="utf-8")
    return project


@pytest.fixture(scope="module")
def plugged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh environment with the examples installed by pip."""
    where = tmp_path_factory.mktemp("plugins")
    env = where / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env)
    python = env / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    env_site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                              capture_output=True, text=True, check=True).stdout.strip()
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(env_site) / "our_packages.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(plugin_project(where))],
        capture_output=True, text=True, timeout=300, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    (where / "targets.py").write_text(TARGET, encoding="utf-8")
    return python


def run(python: Path | str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python`` running ``args`` with this checkout's agentforge, and the module
    ``targets`` importable when ``python`` is the plugged environment's."""
    targets = Path(python).parents[2]  # <where>/venv/bin/python -> <where>
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(targets)]),
           "NO_COLOR": "1", "COLUMNS": "80", "TERM": "dumb"}
    env.pop("AGENTFORGE_TOOLS", None)
    return subprocess.run([str(python), *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120, check=False)


def agentforge(python: Path | str, *args: str) -> subprocess.CompletedProcess[str]:
    return run(python, "-c", "from agentforge_cli.cli.app import main; main()", *args)


def test_the_provider_of_a_plugin_lists_and_checks(plugged):
    listed = agentforge(plugged, "tools", "list", CRM, "--format", "acme")
    assert listed.returncode == 0, listed.stderr
    (entry,) = json.loads(listed.stdout)
    assert (entry["fn"], sorted(entry["args"]["properties"])) == (
        "queryCustomer", ["limit", "name"])
    assert "the name is refused: use 1 to 40 lowercase letters or '_'" in listed.stderr
    checked = agentforge(plugged, "tools", "check", CRM, "--provider", "acme", "--json")
    assert checked.returncode == 1, checked.stderr
    found = json.loads(checked.stdout)
    assert found["providers"] == ["acme"]
    assert [f["rule"] for f in found["findings"]] == ["acme:name"]


def test_without_the_plugin_the_provider_is_unknown():
    listed = agentforge(sys.executable, "tools", "list", CRM, "--format", "acme")
    assert listed.returncode == 2
    assert "acme" not in listed.stderr.split("choose one of", 1)[-1].split("\n")[0]


TINYLOG = ('{"say": "查一下客户"}\n'
           '{"call": "queryCustomer", "args": {"name": "长路", "limit": 5}}\n'
           '{"result": "customer:长路,limit:5"}\n')


def test_the_transcript_format_of_a_plugin_replays(plugged, tmp_path):
    talk = tmp_path / "talk.jsonl"
    talk.write_text(TINYLOG, encoding="utf-8")
    for named in ((), ("--format", "tinylog")):  # detected, and named
        replayed = agentforge(plugged, "replay", str(talk), "-t", CRM, "--json", *named)
        assert replayed.returncode == 0, replayed.stderr
        data = json.loads(replayed.stdout)
        assert (data["format"], data["summary"]["matched"]) == ("tinylog", 1)
    without = agentforge(sys.executable, "replay", str(talk), "-t", CRM, "--json")
    assert without.returncode == 2, without.stderr  # no installed format reads it


def test_the_type_handler_of_a_plugin_gives_a_schema_and_a_coercion(plugged):
    listed = agentforge(plugged, "tools", "list", "targets:ping", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    (ping,) = json.loads(listed.stdout)
    assert ping["parameters"]["properties"]["host"] == {"type": "string", "format": "ipv4"}
    called = agentforge(plugged, "tools", "call", "ping", '{"host": " 10.0.0.1 "}',
                        "-t", "targets:ping")
    assert (called.returncode, called.stdout.strip()) == (0, "pong from 10.0.0.1")
    refused = agentforge(plugged, "tools", "call", "ping", '{"host": "10.0.0.300"}',
                         "-t", "targets:ping")
    assert refused.returncode == 1
    assert 'Argument "host" is not an IPv4 address: <10.0.0.300>' in (
        refused.stdout + refused.stderr)


def test_the_framework_adapter_of_a_plugin_makes_targets(plugged):
    called = agentforge(plugged, "tools", "call", "add", '{"a": 1, "b": 2}',
                        "-t", "targets:adding")
    assert (called.returncode, called.stdout.strip()) == (0, "3"), called.stderr


def test_importing_agentforge_reads_no_entry_point_and_first_use_does(plugged):
    done = run(plugged, "-c", LAZY)
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.splitlines()
    assert json.loads(before.replace("'", '"')) == []
    # one scan of every installed package's entry points, shared by all registries
    assert json.loads(after.replace("'", '"')) == ["every group"]
