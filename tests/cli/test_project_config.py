"""``[tool.agentforge]`` settings for a whole project: ``strict`` and ``timeout``, read by
``tools call``, ``replay``, ``serve`` and ``tools fuzz`` (the command line wins), and the
table's validation."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from cli_support import CRM

SLOW_TOOLS = '''
import time
from agentforge_cli import tool

@tool
def nap(seconds: float) -> str:
    """Sleep."""
    time.sleep(seconds)
    return "awake"
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``project("strict = true")``: a pyproject.toml with that [tool.agentforge] table in
    a fresh directory, which becomes the working directory."""

    def make(table: str) -> Path:
        (tmp_path / "slow_tools.py").write_text(SLOW_TOOLS, encoding="utf-8")
        path = tmp_path / "pyproject.toml"
        path.write_text("[tool.agentforge]\n" + textwrap.dedent(table), encoding="utf-8")
        monkeypatch.chdir(tmp_path)
        return path

    return make


MISSING_LIMIT = ('Required parameter "limit" of tool "queryCustomer" is missing; '
                 "queryCustomer takes name (string), limit (integer)\n")


def test_config_strict_makes_tools_call_strict_and_the_flags_win(cli, project):
    project("strict = true\n")
    strict = cli("tools", "call", "queryCustomer", '{"name":"a"}', "-t", CRM)
    assert (strict.exit_code, strict.stdout) == (1, MISSING_LIMIT)
    lenient = cli("tools", "call", "queryCustomer", '{"name":"a"}', "-t", CRM, "--lenient")
    assert (lenient.exit_code, lenient.stdout) == (0, "customer:a,limit:0\n")
    project("strict = false\n")
    forced = cli("tools", "call", "queryCustomer", '{"name":"a"}', "-t", CRM, "--strict")
    assert (forced.exit_code, forced.stdout) == (1, MISSING_LIMIT)
    lenient = cli("tools", "call", "queryCustomer", '{"name":"a"}', "-t", CRM)
    assert (lenient.exit_code, lenient.stdout) == (0, "customer:a,limit:0\n")
    project("")
    default = cli("tools", "call", "queryCustomer", '{"name":"a"}', "-t", CRM)
    assert (default.exit_code, default.stdout) == (1, MISSING_LIMIT)


def test_config_timeout_bounds_tools_call_and_the_flag_wins(cli, project):
    project("timeout = 0.05\n")
    timed_out = cli("tools", "call", "nap", '{"seconds":1}', "-t", "slow_tools.py")
    assert (timed_out.exit_code, timed_out.stdout) == (
        1, 'Tool "nap" timed out after 0.05 s\n')
    given = cli("tools", "call", "nap", '{"seconds":0.2}', "-t", "slow_tools.py",
                "--timeout", "5")
    assert (given.exit_code, given.stdout) == (0, "awake\n")


def _recorder(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[dict]:
    """Record the options ``module.name`` is called with, then call it."""
    seen: list[dict] = []
    real = getattr(module, name)

    def record(*args: Any, **options: Any) -> Any:
        seen.append(options)
        return real(*args, **options)

    monkeypatch.setattr(module, name, record)
    return seen


def test_config_strict_and_timeout_reach_replay(cli, project, monkeypatch):
    from cli_support import TRANSCRIPTS

    from agentforge_cli.integrations.targets import loading as targets

    project("strict = true\ntimeout = 30\n")
    seen = _recorder(monkeypatch, targets, "load_supply")
    transcript = str(TRANSCRIPTS / "crm.jsonl")
    assert cli("replay", transcript, "-t", CRM).exit_code == 0
    assert cli("replay", transcript, "-t", CRM, "--lenient").exit_code == 0
    assert [(s["strict"], s["timeout"]) for s in seen] == [(True, 30), (False, 30)]


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    from agentforge_cli.integrations.mcp.server import tool_server as mcp_server

    services: list[Any] = []
    monkeypatch.setattr(mcp_server, "run_stdio",
                        lambda service, **options: services.append(service))
    return services


def test_serve_is_strict_unless_the_config_or_the_flag_says_lenient(cli, project, served):
    project("")
    assert cli("serve", CRM).exit_code == 0
    project("strict = false\ntimeout = 2.5\n")
    assert cli("serve", CRM).exit_code == 0
    assert cli("serve", CRM, "--strict").exit_code == 0
    assert cli("serve", CRM, "--lenient", "--timeout", "1").exit_code == 0
    shown = [(s.executor("queryCustomer").strict, s.executor("queryCustomer").timeout)
             for s in served]
    assert shown == [(True, None), (False, 2.5), (True, 2.5), (False, 1.0)]


def test_config_strict_reaches_fuzz(cli, project, monkeypatch):
    from agentforge_cli.fuzz import engine

    services: list[Any] = []
    monkeypatch.setattr(engine, "fuzz_service",
                        lambda service, *args, **kw: services.append(service) or [])
    project("strict = true\ntimeout = 3\n")
    assert cli("tools", "fuzz", CRM, "--examples", "1").exit_code == 0
    assert cli("tools", "fuzz", CRM, "--examples", "1", "--lenient", "--timeout", "1"
               ).exit_code == 0
    shown = [(s.executor("queryCustomer").strict, s.executor("queryCustomer").timeout)
             for s in services]
    assert shown == [(True, 3), (False, 1.0)]


@pytest.mark.parametrize(("table", "problem"), [
    ('strict = "yes"\n', "[tool.agentforge] strict must be true or false, got 'yes'"),
    ("timeout = -1\n", "[tool.agentforge] timeout must be a positive number of seconds, "
                       "got -1"),
    ("timeout = true\n", "[tool.agentforge] timeout must be a positive number of seconds, "
                         "got True"),
    ('tools = "a", \n', None),
])
def test_a_malformed_setting_names_the_key_and_the_file(cli, project, table, problem):
    if problem is None:  # a TOML syntax error
        path = project(table)
        result = cli("tools", "call", "queryCustomer", "-t", CRM)
        assert result.exit_code == 2
        assert f"cannot read {path}" in result.stderr
        return
    path = project(table)
    result = cli("tools", "call", "queryCustomer", "-t", CRM)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}: {problem}")
    assert result.stdout == ""


def test_an_unknown_key_lists_the_keys(cli, project):
    path = project("stict = true\n")
    result = cli("tools", "call", "queryCustomer", "-t", CRM)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {path}: unknown key 'stict' in [tool.agentforge]; the keys are: "
        "budget, clients, lint, models, providers, replay, serve, strict, timeout, tools\n"
        "  did you mean 'strict'?\n")
