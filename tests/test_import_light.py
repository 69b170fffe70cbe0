"""The core imports the standard library only, and lazily."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("typer", "rich", "click", "pydantic")
FRAMEWORKS = ("langchain_core", "pydantic_ai", "agents", "fastmcp", "mcp", "smolagents")
"""The libraries whose tools are targets: imported only when such a target is used."""


def loaded_after(code: str) -> list[str]:
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               cwd=ROOT, check=False, timeout=60)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


def heavy_in(modules: list[str]) -> list[str]:
    return [m for m in modules if m.split(".")[0] in (*HEAVY, *FRAMEWORKS)]


@pytest.mark.parametrize("code", [
    "from agentforge_cli import tool, P",
    "import agentforge_cli",
    "import agentforge_cli.integrations",
])
def test_declaring_tools_imports_nothing_heavy(code):
    modules = loaded_after(code)
    assert heavy_in(modules) == []
    ours = {m for m in modules if m.startswith("agentforge_cli")}
    # the rest of the core is loaded lazily
    for lazy in ("agentforge_cli.core.run.executor", "agentforge_cli.core.run.discovery",
                 "agentforge_cli.core.run.service",
                 "agentforge_cli.core.define.definition", "agentforge_cli.core.define.handlers",
                 "agentforge_cli.core.define.handlers.registry",
                 "agentforge_cli.core.bind.arguments",
                 "agentforge_cli.core.observe.calllog", "agentforge_cli.cli"):
        assert lazy not in ours, f"{lazy} imported eagerly"
    assert "docstring_parser" not in modules
    assert "asyncio" not in modules


def test_decorating_a_tool_stays_light():
    code = (
        "from typing import Annotated\n"
        "from agentforge_cli import tool, P\n"
        "class Crm:\n"
        "    @tool(name='q')\n"
        "    def q(self, name: Annotated[str, P('who')]) -> str:\n"
        "        return name\n"
    )
    modules = loaded_after(code)
    assert heavy_in(modules) == []
    assert "agentforge_cli.core.run.executor" not in modules


def test_whole_core_at_work_imports_no_heavy_dependency():
    code = (
        "import pkgutil, importlib, agentforge_cli\n"
        # walk_packages would import cli's own packages (rich) to walk into them
        "def walk(path, prefix):\n"
        "    for info in pkgutil.iter_modules(path, prefix):\n"
        "        if info.name == 'agentforge_cli.cli':\n"
        "            continue\n"
        "        module = importlib.import_module(info.name)\n"
        "        if info.ispkg:\n"
        "            walk(module.__path__, info.name + '.')\n"
        "walk(agentforge_cli.__path__, 'agentforge_cli.')\n"
        "from agentforge_cli import ToolService, ToolExecutionRequest, build_local_tools, "
        "tool, P\n"
        "@tool\n"
        "def f(a: int, b: str = 'x') -> dict:\n"
        "    '''Doc.\n\n    Args:\n        a: An int.\n    '''\n"
        "    return {'a': a, 'b': b}\n"
        "s = ToolService().tools(build_local_tools([f], logging=True))\n"
        "assert s.execute(ToolExecutionRequest(name='f', arguments='{\"a\":1}')).text"
        " == '{\"a\":1,\"b\":\"x\"}'\n"
    )
    assert heavy_in(loaded_after(code)) == []


def test_pyproject_bans_heavy_imports_in_the_core():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lint = config["tool"]["ruff"]["lint"]
    assert "TID251" in lint["select"] or "TID" in lint["select"]
    banned = lint["flake8-tidy-imports"]["banned-api"]
    for name in HEAVY:
        assert name in banned
    ignores = lint.get("per-file-ignores", {})
    exempt = [pattern for pattern, rules in ignores.items() if "TID251" in rules]
    assert any(pattern.startswith("agentforge_cli/cli") for pattern in exempt)
    assert not any(pattern.rstrip("*/") == "agentforge_cli" for pattern in exempt)


def ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *args],
                          input=stdin, capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=120)


def test_core_passes_the_banned_import_check():
    completed = ruff("--select", "TID251", "agentforge_cli")
    assert completed.returncode == 0, completed.stdout + completed.stderr


@pytest.mark.parametrize("line", ["import rich", "from typer import Typer", "import click",
                                  "from pydantic import BaseModel"])
def test_banned_import_in_a_core_file_is_reported(line):
    completed = ruff("--select", "TID251", "--stdin-filename", "agentforge_cli/fake_core.py",
                     "-", stdin=line + "\n")
    assert completed.returncode != 0
    assert "TID251" in completed.stdout


def test_cli_may_import_typer_and_rich():
    completed = ruff("--select", "TID251", "--stdin-filename", "agentforge_cli/cli/fake.py",
                     "-", stdin="import rich\nimport typer\n")
    assert completed.returncode == 0, completed.stdout


def test_a_cold_listing_loads_no_drawing_it_does_not_draw():
    """`tools list --format json`, the cold-start row of `make bench`: what only another
    command draws (a rich table, the --log handler and logging), the other `tools`
    sub-commands and the provider registry (needed by other formats and the help) are not
    imported: nor is rich, since nothing is drawn."""
    modules = loaded_after(
        "import contextlib, io, sys\n"
        "sys.argv = ['agentforge', 'tools', 'list', 'sample_tools.crm:CrmTools', '--format',"
        " 'json']\n"
        "from agentforge_cli.cli.app import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main()\n")
    assert "agentforge_cli.integrations.targets.loading" in modules  # the command did run
    for drawn_elsewhere in ("rich.table", "logging", "agentforge_cli.cli.render.tool_log_handler",
                            "rich", "agentforge_cli.cli.render", "agentforge_cli.cli.check_cmd",
                            "agentforge_cli.cli.fuzz_cmd", "agentforge_cli.cli.audit_cmd",
                            "agentforge_cli.schema.providers"):
        assert drawn_elsewhere not in modules, f"{drawn_elsewhere} loaded by a cold listing"
