"""The pytest plugin, run inside throw-away test sessions (``pytester``)."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

import pytest

pytest_plugins = ["pytester"]

TOOLS_V1 = '''
from typing import Annotated
from agentforge_cli import P, tool

@tool(name="queryCustomer")
def query_customer(name: Annotated[str, P("customer name")],
                   limit: Annotated[int, P("rows", maximum=100)] = 10) -> str:
    """Look a customer up."""
    return f"customer:{name},limit:{limit}"
'''

# breaking: a lower maximum and a new required parameter
TOOLS_BREAKING = TOOLS_V1.replace("maximum=100", "maximum=50").replace(
    "limit: Annotated",
    'region: Annotated[str, P("region")],\n                   limit: Annotated')

# not breaking: an optional parameter and a higher maximum
TOOLS_COMPATIBLE = TOOLS_V1.replace("maximum=100", "maximum=500").replace(
    "= 10) -> str:", "= 10,\n                   region: str = \"cn\") -> str:")

USES_SERVICE = '''
from agentforge_cli import ToolExecutionRequest

def test_call(agentforge_service):
    result = agentforge_service.execute(ToolExecutionRequest(
        id="1", name="queryCustomer", arguments='{"name": "长路", "limit": "5"}'))
    assert result.text == "customer:长路,limit:5"

def test_specs(agentforge_specs):
    assert [s.name for s in agentforge_specs] == ["queryCustomer"]
'''

SNAPSHOT_TEST = '''
from agentforge_cli.integrations.pytest.plugin import assert_tools_match_snapshot

def test_schema(agentforge_specs):
    assert_tools_match_snapshot(agentforge_specs, "snapshots/tools.json")
'''


def _plugin_args() -> list[str]:
    """Load the plugin by hand unless its ``pytest11`` entry point is installed."""
    installed = any(ep.value == "agentforge_cli.integrations.pytest.plugin"
                    for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "agentforge_cli.integrations.pytest.plugin"]


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """``run(*args)``: pytest in ``pytester.path`` with the plugin loaded."""
    monkeypatch.delenv("AGENTFORGE_TOOLS", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # tool modules are rewritten
    pytester.syspathinsert()

    def run_pytest(*args: str) -> pytest.RunResult:
        return pytester.runpytest(*_plugin_args(), "-p", "no:cacheprovider", *args)

    return run_pytest


def test_service_fixture_from_the_ini_option(pytester, run):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_service=USES_SERVICE)
    pytester.makeini("[pytest]\nagentforge_tools = af_sample_tools\n")
    run().assert_outcomes(passed=2)


def test_service_fixture_from_the_command_line(pytester, run):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_service=USES_SERVICE)
    run("--agentforge-tools", "af_sample_tools.py").assert_outcomes(passed=2)
    run("--agentforge-tools", "af_sample_tools", "--agentforge-tools", "af_sample_tools.py"
        ).assert_outcomes(passed=2)


def test_service_fixture_from_pyproject(pytester, run):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_service=USES_SERVICE)
    pytester.makepyprojecttoml('[tool.agentforge]\ntools = ["af_sample_tools:query_customer"]\n')
    run().assert_outcomes(passed=2)


def test_service_fixture_from_the_environment(pytester, run, monkeypatch):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_service=USES_SERVICE)
    monkeypatch.setenv("AGENTFORGE_TOOLS", "af_sample_tools")
    run().assert_outcomes(passed=2)


CLASS_TOOLS = '''
from agentforge_cli import tool

class CrmTools:
    @tool(name="queryCustomer")
    def query(self, name: str) -> str:
        """Look a customer up."""
        return f"customer:{name}"
'''


def test_one_class_named_twice_gives_one_instance_as_in_the_cli(pytester, run):
    # the plugin and the CLI share one target loader: a class reached through two target
    # strings is instantiated once, so its tools are not defined twice
    pytester.makepyfile(af_class_tools=CLASS_TOOLS, test_af_specs='''
def test_specs(agentforge_specs):
    assert [s.name for s in agentforge_specs] == ["queryCustomer"]
''')
    result = run("--agentforge-tools", "af_class_tools:CrmTools",
                 "--agentforge-tools", "af_class_tools.py:CrmTools")
    result.assert_outcomes(passed=1)


def test_no_target_fails_with_a_hint(pytester, run):
    pytester.makepyfile(test_af_service=USES_SERVICE)
    result = run()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*agentforge: no tool target given*",
                                 "*hint: set agentforge_tools*"])


def test_a_bad_target_fails_with_the_load_error(pytester, run):
    pytester.makepyfile(test_af_service=USES_SERVICE)
    result = run("--agentforge-tools", "missing_module")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*cannot load target 'missing_module'*"])
    # one short message per failure: no chained exceptions behind it
    assert "During handling" not in result.stdout.str()
    assert "direct cause" not in result.stdout.str()
    assert result.stdout.str().count("cannot load target") == 2 + 2  # report + summary


def test_snapshot_missing_then_created_then_checked(pytester, run):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_snapshot=SNAPSHOT_TEST)
    pytester.makeini("[pytest]\nagentforge_tools = af_sample_tools\n")
    missing = run()
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*snapshot file*tools.json does not exist*",
                                  "*--agentforge-update-snapshots*"])
    # one hint, the plugin's own: not the command line's flag, and no chained error
    assert "--update-snapshot)" not in missing.stdout.str()
    assert "During handling" not in missing.stdout.str()

    run("--agentforge-update-snapshots").assert_outcomes(passed=1)
    snapshot = pytester.path / "snapshots" / "tools.json"
    assert '"queryCustomer"' in snapshot.read_text(encoding="utf-8")
    run().assert_outcomes(passed=1)


def test_a_breaking_change_fails_with_the_classified_report(pytester, run):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_snapshot=SNAPSHOT_TEST)
    pytester.makeini("[pytest]\nagentforge_tools = af_sample_tools\n")
    run("--agentforge-update-snapshots").assert_outcomes(passed=1)

    pytester.makepyfile(af_sample_tools=TOOLS_BREAKING)
    result = run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*the tools differ from the snapshot*(2 breaking*",
        '*breaking: tool "queryCustomer", parameter "limit": maximum lowered from 100 to 50*',
        '*breaking: tool "queryCustomer", parameter "region": a new required parameter*',
        "*if the change is intended, run pytest --agentforge-update-snapshots*",
    ])

    run("--agentforge-update-snapshots").assert_outcomes(passed=1)
    run().assert_outcomes(passed=1)


def test_a_compatible_change_passes(pytester, run):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_snapshot=SNAPSHOT_TEST)
    pytester.makeini("[pytest]\nagentforge_tools = af_sample_tools\n")
    run("--agentforge-update-snapshots").assert_outcomes(passed=1)
    pytester.makepyfile(af_sample_tools=TOOLS_COMPATIBLE)
    run().assert_outcomes(passed=1)


def test_fail_on_warning_and_the_snapshot_fixture(pytester, run):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_snapshot='''
def test_schema(agentforge_snapshot):
    agentforge_snapshot("tools.json", fail_on="info")
''')
    pytester.makeini("[pytest]\nagentforge_tools = af_sample_tools\n")
    run("--agentforge-update-snapshots").assert_outcomes(passed=1)
    pytester.makepyfile(af_sample_tools=TOOLS_COMPATIBLE)
    result = run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*info: tool \"queryCustomer\", parameter \"region\"*"])


def test_helper_accepts_targets_and_modules(pytester, run):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_snapshot='''
import af_sample_tools
from agentforge_cli.integrations.pytest.plugin import assert_tools_match_snapshot

def test_by_target_string():
    assert_tools_match_snapshot("af_sample_tools", "a.json", update=True)
    assert_tools_match_snapshot(["af_sample_tools.py"], "a.json")

def test_by_module():
    assert_tools_match_snapshot(af_sample_tools, "b.json", update=True)
    assert_tools_match_snapshot([af_sample_tools.query_customer], "b.json")
''')
    run().assert_outcomes(passed=2)


def test_options_are_listed_in_help(run):
    result = run("--help")
    result.stdout.fnmatch_lines(["*--agentforge-tools=TARGET*",
                                 "*--agentforge-update-snapshots*",
                                 "*agentforge_tools*"])



@pytest.mark.parametrize(("table", "args", "strict"), [
    ("", (), True),
    ("", ("--agentforge-strict",), True),
    ("", ("--agentforge-lenient",), False),
    ("strict = false\n", (), False),
    ("strict = true\n", (), True),
    ("strict = true\n", ("--agentforge-lenient",), False),
    ("strict = false\n", ("--agentforge-strict",), True),
])
def test_strict_binding_from_the_flag_or_the_project(pytester, run, table, args, strict):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_strict=f'''
from agentforge_cli import ToolExecutionRequest

def test_binding(agentforge_service):
    result = agentforge_service.execute(ToolExecutionRequest(
        id="1", name="queryCustomer", arguments='{{"limit": 5}}'))
    assert result.is_error is {strict}, result.text
''')
    pytester.makepyprojecttoml(f'[tool.agentforge]\ntools = ["af_sample_tools"]\n{table}')
    run(*args).assert_outcomes(passed=1)


def test_a_malformed_project_setting_fails_the_fixture(pytester, run):
    pytester.makepyfile(af_sample_tools=TOOLS_V1, test_af_service=USES_SERVICE)
    pytester.makepyprojecttoml('[tool.agentforge]\ntools = ["af_sample_tools"]\n'
                               'strict = "yes"\n')
    result = run()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*pyproject.toml: [[]tool.agentforge[]] strict must be true "
                                 "or false, got 'yes'"])
    assert "set agentforge_tools" not in result.stdout.str()  # not "no target" advice
