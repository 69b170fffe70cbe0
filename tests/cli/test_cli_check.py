"""``tools list --format <provider>``, ``tools check`` and ``tools diff``: CliRunner, then
the installed ``agentforge`` entry point run as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CRM, ROOT
from rich.cells import cell_len

AGENTFORGE = Path(sys.executable).with_name("agentforge")

TOOLS_V1 = '''
from typing import Annotated, Literal
from agentforge_cli import P, tool

@tool
def reserve(sku: Annotated[str, P("The product SKU")],
            quantity: Annotated[int, P("How many units", maximum=100)] = 1,
            priority: Annotated[Literal["low", "normal", "high"], P("Queue priority")] = "normal",
            ) -> str:
    """Reserve stock for an order."""
    return f"{sku}:{quantity}:{priority}"

@tool
def release(sku: Annotated[str, P("The product SKU")]) -> str:
    """Release a reservation."""
    return sku

@tool
def cancel(order_id: Annotated[str, P("The order")]) -> str:
    """Cancel an order."""
    return order_id
'''

# breaking: a lower maximum, an enum value removed, a new required parameter, a tool removed
TOOLS_BREAKING = (
    TOOLS_V1.replace("maximum=100", "maximum=10")
    .replace('Literal["low", "normal", "high"]', 'Literal["normal", "high"]')
    .replace('def release(sku: Annotated[str, P("The product SKU")])',
             'def release(sku: Annotated[str, P("The product SKU")],\n'
             '            reason: Annotated[str, P("Why")])')
    .split("@tool\ndef cancel")[0]
)
BREAKING_LINES = [("reserve", "quantity"), ("reserve", "priority"), ("release", "reason"),
                  ("cancel", "")]

# compatible: a higher maximum, an enum value added, an optional parameter, a new tool
TOOLS_COMPATIBLE = (
    TOOLS_V1.replace("maximum=100", "maximum=500")
    .replace('Literal["low", "normal", "high"]', 'Literal["low", "normal", "high", "urgent"]')
    .replace('def release(sku: Annotated[str, P("The product SKU")])',
             'def release(sku: Annotated[str, P("The product SKU")],\n'
             '            reason: Annotated[str, P("Why")] = "")')
    + '''
@tool
def audit(note: Annotated[str, P("A note")] = "") -> str:
    """Audit the stock."""
    return note
'''
)

MAPPING_TOOL = '''
from typing import Annotated
from agentforge_cli import P, tool

@tool
def restock(levels: Annotated[dict[str, int], P("Units per SKU")]) -> str:
    """Add stock."""
    return str(levels)
'''


def breaking_line(output: str, tool: str, parameter: str) -> str:
    """The one output line naming a breaking change of ``tool``/``parameter``."""
    found = [line for line in output.splitlines()
             if line.startswith("breaking") and f" {tool} " in f"{line} "
             and (not parameter or f" {parameter} " in f"{line} ")]
    assert len(found) == 1, (tool, parameter, output)
    return found[0]


def assert_fits_80_columns(output: str) -> None:
    for line in output.splitlines():
        assert cell_len(line) <= 80, line
        assert line == line.rstrip(), repr(line)


# -- tools list --format <provider> ------------------------------------------------------------


def test_list_openai(cli):
    result = cli("tools", "list", CRM, "--format", "openai")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    [entry] = json.loads(result.stdout)
    assert entry["type"] == "function"
    assert entry["function"]["name"] == "queryCustomer"
    assert entry["function"]["parameters"]["required"] == ["name", "limit"]
    assert "strict" not in entry["function"]


def test_list_openai_strict(cli):
    result = cli("tools", "list", CRM, "--format", "openai", "--strict")
    assert result.exit_code == 0, result.stderr
    [entry] = json.loads(result.stdout)
    assert entry["function"]["strict"] is True
    assert entry["function"]["parameters"]["additionalProperties"] is False


def test_list_anthropic_gemini_mcp(cli):
    anthropic = cli("tools", "list", CRM, "--format", "anthropic")
    assert anthropic.exit_code == 0
    assert [sorted(e) for e in json.loads(anthropic.stdout)] == [
        ["description", "input_schema", "name"]]
    gemini = cli("tools", "list", CRM, "--format", "gemini")
    assert gemini.exit_code == 0
    assert json.loads(gemini.stdout)[0]["parameters"]["properties"]["limit"] == {
        "type": "integer", "description": "返回条数"}
    mcp = cli("tools", "list", CRM, "--format", "mcp")
    assert mcp.exit_code == 0
    tools = json.loads(mcp.stdout)["tools"]
    assert [(t["name"], t["inputSchema"]["type"]) for t in tools] == [("queryCustomer",
                                                                       "object")]


def test_list_provider_warnings_go_to_stderr(cli):
    result = cli("tools", "list", "sample_tools.shop", "--format", "gemini")
    assert result.exit_code == 0, result.stderr
    exported = json.loads(result.stdout)  # stdout is the JSON and nothing else
    assert "restock" in [entry["name"] for entry in exported]
    warnings = result.stderr.splitlines()
    assert warnings and all(line.startswith("warning: gemini: ") for line in warnings)
    assert any('tool "restock", parameter "levels"' in line and "free-form-object" in line
               for line in warnings)


def test_list_export_failure_exits_1_with_the_message(cli):
    result = cli("tools", "list", "sample_tools.shop", "--format", "openai", "--strict")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("error: cannot export 1 schema part for openai-strict")
    assert 'tool "restock", parameter "levels"' in result.stderr
    assert "agentforge tools check --provider openai-strict" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("fmt", ["anthropic", "gemini", "mcp"])
def test_strict_with_another_provider_is_a_usage_error(cli, fmt):
    result = cli("tools", "list", CRM, "--format", fmt, "--strict")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"--strict with --format {fmt}" in result.stderr
    # refused before anything is loaded
    assert cli("tools", "list", "sample_tools.nope", "--format", fmt, "--strict").exit_code == 2


def test_strict_still_builds_table_and_json(cli):
    assert cli("tools", "list", CRM, "--strict").exit_code == 0
    assert cli("tools", "list", CRM, "--format", "json", "--strict").exit_code == 0


def test_unknown_format_names_the_provider_formats(cli):
    result = cli("tools", "list", CRM, "--format", "claude")
    assert result.exit_code == 2
    assert ("table, json, openai, openai-responses, anthropic, gemini, gemini-json-schema, "
            "mcp") in result.stderr


def test_format_and_provider_names_ignore_case(cli):
    exported = cli("tools", "list", CRM, "--format", "OpenAI")
    assert exported.exit_code == 0, exported.stderr
    assert exported.stdout == cli("tools", "list", CRM, "--format", "openai").stdout
    strict = cli("tools", "list", CRM, "--format", "OPENAI", "--strict")
    assert strict.exit_code == 0, strict.stderr
    assert '"strict": true' in strict.stdout
    checked = cli("tools", "check", CRM, "--provider", "Gemini,OpenAI-Strict")
    assert checked.exit_code == 0, checked.stderr
    assert "providers: gemini, openai-strict" in checked.stdout
    unknown = cli("tools", "list", CRM, "--format", "Claude")
    assert unknown.exit_code == 2
    assert "unknown --format 'Claude'" in unknown.stderr


# -- tools check: lint -----------------------------------------------------------------------


def test_check_without_provider_runs_the_neutral_rules(cli):
    result = cli("tools", "check", CRM, "sample_tools.shop")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ("✓ check passed: no findings\n"
                             "  11 tools · no provider selected\n")


def test_check_provider_error_exits_1(cli):
    result = cli("tools", "check", "sample_tools.shop", "--provider", "openai-strict")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].split() == ["level", "tool", "parameter", "message"]
    [row] = [line for line in result.stdout.splitlines() if line.startswith("error")]
    assert row.split()[:3] == ["error", "restock", "levels"]
    assert "[openai-strict:free-form-object]" in result.stdout
    assert "✗ check failed: 1 error, 1 warning" in result.stdout
    assert "providers: openai-strict" in result.stdout
    assert_fits_80_columns(result.stdout)


def test_check_warnings_pass_unless_fail_on_warning(cli):
    args = ("tools", "check", "sample_tools.shop", "--provider", "gemini")
    passed = cli(*args)
    assert passed.exit_code == 0, passed.stdout
    assert "✓ check passed: 6 warnings" in passed.stdout
    assert next(line.split()[:3] for line in passed.stdout.splitlines()
                if line.startswith("warning")) == ["warning", "check_stock", "skus"]
    failed = cli(*args, "--fail-on", "warning")
    assert failed.exit_code == 1
    assert "✗ check failed: 6 warnings" in failed.stdout
    assert "--fail-on warning" in failed.stdout


def test_check_json(cli):
    result = cli("tools", "check", "sample_tools.shop", "--provider", "openai-strict,gemini",
                 "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert data["summary"] == {"breaking": 0, "error": 1, "warning": 7, "info": 0}
    assert data["providers"] == ["openai-strict", "gemini"]
    assert (data["tools"], data["snapshot"], data["fail_on"]) == (10, None, "error")
    [error] = [f for f in data["findings"] if f["level"] == "error"]
    assert error == {
        "tool": "restock", "rule": "openai-strict:free-form-object", "level": "error",
        "path": "$.levels", "message": error["message"]}
    assert error["message"].startswith('tool "restock", parameter "levels": ')


def test_check_every_provider_on_the_samples(cli):
    for provider in ("openai", "anthropic", "mcp"):
        result = cli("tools", "check", CRM, "sample_tools.shop", "sample_tools.weather",
                     "--provider", provider)
        assert result.exit_code == 0, (provider, result.stdout)


@pytest.mark.parametrize("args, message", [
    (("--provider", "claude"), "--provider: unknown provider 'claude'"),
    (("--fail-on", "info"), "Invalid value for '--fail-on'"),
    (("--update-snapshot",), "--update-snapshot needs --snapshot FILE"),
])
def test_check_usage_errors(cli, args, message):
    result = cli("tools", "check", CRM, *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_check_providers_from_pyproject(cli, tmp_path, monkeypatch, write_module):
    write_module("mapping_tools", MAPPING_TOOL)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentforge]\ntools = ["mapping_tools.py"]\n'
        'providers = ["openai-strict", "gemini"]\n')
    monkeypatch.chdir(tmp_path)
    configured = cli("tools", "check", "--json")
    assert configured.exit_code == 1
    data = json.loads(configured.stdout)
    assert data["providers"] == ["openai-strict", "gemini"]
    assert {f["rule"] for f in data["findings"]} == {"openai-strict:free-form-object",
                                                     "gemini:free-form-object"}
    flag_wins = cli("tools", "check", "--provider", "anthropic", "--json")
    assert flag_wins.exit_code == 0
    assert json.loads(flag_wins.stdout)["providers"] == ["anthropic"]


@pytest.mark.parametrize("setting, message", [
    ('providers = ["openai", "claude"]', "[tool.agentforge] providers: unknown provider "
                                         "'claude'"),
    ("providers = 5", "[tool.agentforge] providers must be a list of strings"),
])
def test_bad_providers_in_pyproject(cli, tmp_path, monkeypatch, setting, message):
    (tmp_path / "pyproject.toml").write_text(f"[tool.agentforge]\n{setting}\n")
    monkeypatch.chdir(tmp_path)
    result = cli("tools", "check", str(ROOT / "sample_tools" / "weather.py"))
    assert result.exit_code == 2
    assert message in result.stderr
    assert str(tmp_path / "pyproject.toml") in result.stderr


def test_check_load_failure_exits_3(cli):
    result = cli("tools", "check", "sample_tools.nope")
    assert result.exit_code == 3
    assert "no module named 'sample_tools.nope'" in result.stderr


# -- tools check: snapshots ------------------------------------------------------------------


def test_snapshot_lifecycle(cli, tmp_path, write_module):
    v1 = str(write_module("inventory_v1", TOOLS_V1))
    breaking = str(write_module("inventory_breaking", TOOLS_BREAKING))
    compatible = str(write_module("inventory_compatible", TOOLS_COMPATIBLE))
    snapshot = tmp_path / "snapshots" / "tools.lock.json"

    missing = cli("tools", "check", v1, "--snapshot", str(snapshot))
    assert missing.exit_code == 3
    assert missing.stdout == ""
    assert "snapshot file not found" in missing.stderr
    assert "--update-snapshot" in missing.stderr

    written = cli("tools", "check", v1, "--snapshot", str(snapshot), "--update-snapshot")
    assert written.exit_code == 0, written.stderr
    assert "[snapshot-updated]" in written.stdout
    assert sorted(json.loads(snapshot.read_text())["tools"]) == ["cancel", "release",
                                                                 "reserve"]
    again = cli("tools", "check", v1, "--snapshot", str(snapshot), "--update-snapshot")
    assert again.exit_code == 0
    assert "(already up to date)" in again.stdout

    same = cli("tools", "check", v1, "--snapshot", str(snapshot))
    assert same.exit_code == 0
    assert same.stdout.startswith("✓ check passed: no findings\n")

    broken = cli("tools", "check", breaking, "--snapshot", str(snapshot))
    assert broken.exit_code == 1
    for tool, parameter in BREAKING_LINES:
        breaking_line(broken.stdout, tool, parameter)
    assert "bound-tightened" in breaking_line(broken.stdout, "reserve", "quantity")
    assert "✗ check failed: 4 breaking" in broken.stdout
    assert_fits_80_columns(broken.stdout)

    ok = cli("tools", "check", compatible, "--snapshot", str(snapshot))
    assert ok.exit_code == 0, ok.stdout
    assert "breaking" not in ok.stdout
    info = [line.split()[:2] for line in ok.stdout.splitlines() if line.startswith("info")]
    assert ["info", "audit"] in info and ["info", "release"] in info
    assert "✓ check passed:" in ok.stdout


def test_snapshot_json_output(cli, tmp_path, write_module):
    v1 = str(write_module("json_v1", TOOLS_V1))
    breaking = str(write_module("json_breaking", TOOLS_BREAKING))
    snapshot = str(tmp_path / "tools.lock.json")
    written = cli("tools", "check", v1, "--snapshot", snapshot, "--update-snapshot", "--json")
    assert written.exit_code == 0
    data = json.loads(written.stdout)
    assert [f["rule"] for f in data["findings"]] == ["snapshot-updated"]
    assert data["snapshot"] == snapshot

    result = cli("tools", "check", breaking, "--snapshot", snapshot, "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["summary"]["breaking"] == 4
    assert {(f["tool"], f["path"]) for f in data["findings"] if f["level"] == "breaking"} == {
        ("reserve", "$.quantity"), ("reserve", "$.priority"), ("release", "$.reason"),
        ("cancel", "")}


def test_unreadable_snapshots(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json", encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"something": "else"}', encoding="utf-8")
    for path, message in ((bad, "not valid JSON at line 1"),
                          (other, "not an agentforge snapshot"),
                          (tmp_path, "cannot read snapshot")):
        result = cli("tools", "check", CRM, "--snapshot", str(path))
        assert result.exit_code == 3, (path, result.stderr)
        assert message in result.stderr
        assert "Traceback" not in result.stderr
    cannot_write = cli("tools", "check", CRM, "--snapshot", str(tmp_path), "--update-snapshot")
    assert cannot_write.exit_code == 2
    assert "cannot write the snapshot" in cannot_write.stderr


def test_update_snapshot_creates_directories_or_names_what_is_in_the_way(cli, tmp_path):
    nested = tmp_path / "locks" / "v1" / "tools.lock.json"
    written = cli("tools", "check", CRM, "--snapshot", str(nested), "--update-snapshot")
    assert written.exit_code == 0, written.stderr
    assert json.loads(nested.read_text())["tools"]
    (tmp_path / "file").write_text("")
    blocked = cli("tools", "check", CRM, "--snapshot", str(tmp_path / "file" / "t.json"),
                  "--update-snapshot")
    assert blocked.exit_code == 2
    assert blocked.stderr == (f"error: cannot write the snapshot "
                              f"{str(tmp_path / 'file' / 't.json')!r}: "
                              f"{tmp_path / 'file'} is a file, not a directory\n")


def test_a_mutable_default_is_reported(cli, write_module):
    path = write_module("labels_tool", '''
        from typing import Annotated
        from agentforge_cli import P, tool

        @tool
        def label(issue: Annotated[int, P("The issue")],
                  labels: Annotated[list[str], P("Labels to add")] = []) -> str:
            """Label an issue."""
            labels.append("triage")
            return str(labels)
        ''')
    result = cli("tools", "check", str(path))
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if line.startswith("warning"))
    assert row.split()[:3] == ["warning", "label", "labels"]
    assert "[mutable-default]" in result.stdout
    assert cli("tools", "check", str(path), "--fail-on", "warning").exit_code == 1


REFUSED_DEFAULTS = {
    "langchain": ('''
        from typing import Literal
        from langchain_core.tools import tool

        @tool(parse_docstring=True)
        def forecast(days: int, unit: Literal["celsius", "fahrenheit"] = "kelvin") -> str:
            """Forecast the weather.

            Args:
                days: How many days ahead.
                unit: The temperature unit.
            """
            return unit
        ''', "unit", "'kelvin' is not one of ['celsius', 'fahrenheit']"),
    "fastmcp": ('''
        from typing import Annotated
        from fastmcp import FastMCP
        from pydantic import Field

        server = FastMCP("weather")

        @server.tool
        def forecast(days: Annotated[int, Field(ge=1, le=7, description="Days.")] = 10) -> str:
            """Forecast the weather."""
            return str(days)
        ''', "days", "10 is greater than the maximum of 7"),
    "agentforge": ('''
        from typing import Annotated, Literal
        from agentforge_cli import P, tool

        @tool
        def forecast(mode: Annotated[Literal["fast", "safe"], P("Speed.")] = "turbo") -> str:
            """Forecast the weather."""
            return mode
        ''', "mode", "'turbo' is not one of ['fast', 'safe']"),
}


@pytest.mark.parametrize("library", list(REFUSED_DEFAULTS))
def test_a_default_its_own_type_refuses_fails_the_check(cli, write_module, library):
    source, parameter, reason = REFUSED_DEFAULTS[library]
    path = write_module(f"refused_default_{library}", source)
    result = cli("tools", "check", str(path), "--json")
    assert result.exit_code == 1, result.output
    [found] = json.loads(result.stdout)["findings"]
    assert (found["tool"], found["rule"], found["level"], found["path"]) == (
        "forecast", "invalid-default", "error", f"$.{parameter}")
    assert found["message"].startswith(f'tool "forecast", parameter "{parameter}": the '
                                       "default ")
    assert reason in found["message"]


def test_wide_terminal_gives_the_rule_a_column(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "140")
    result = cli("tools", "check", "sample_tools.shop", "--provider", "openai-strict")
    assert result.stdout.splitlines()[0].split() == ["level", "tool", "parameter", "rule",
                                                     "message"]
    row = next(line for line in result.stdout.splitlines() if line.startswith("error"))
    assert row.split()[:4] == ["error", "restock", "levels", "openai-strict:free-form-object"]


# -- tools diff ------------------------------------------------------------------------------


@pytest.fixture
def snapshots(cli, tmp_path, write_module) -> dict[str, str]:
    paths = {}
    for name, source in (("v1", TOOLS_V1), ("breaking", TOOLS_BREAKING),
                         ("compatible", TOOLS_COMPATIBLE)):
        module = str(write_module(f"diff_{name}", source))
        path = tmp_path / f"{name}.json"
        done = cli("tools", "check", module, "--snapshot", str(path), "--update-snapshot")
        assert done.exit_code == 0
        paths[name] = str(path)
    return paths


def test_diff_breaking_exits_1(cli, snapshots):
    result = cli("tools", "diff", snapshots["v1"], snapshots["breaking"])
    assert result.exit_code == 1
    for tool, parameter in BREAKING_LINES:
        breaking_line(result.stdout, tool, parameter)
    assert "✗ breaking changes: 4 breaking" in result.stdout
    # long paths wrap at 80 columns, anywhere: compare without the whitespace
    assert f"{snapshots['v1']}->{snapshots['breaking']}" in "".join(result.stdout.split())
    assert_fits_80_columns(result.stdout)


def test_diff_compatible_exits_0(cli, snapshots):
    result = cli("tools", "diff", snapshots["v1"], snapshots["compatible"])
    assert result.exit_code == 0
    assert "breaking" not in result.stdout.replace("no breaking change", "")
    assert "✓ no breaking change: 4 info" in result.stdout
    same = cli("tools", "diff", snapshots["v1"], snapshots["v1"])
    assert (same.exit_code, same.stdout.splitlines()[0]) == (0, "✓ no differences")
    reverse = cli("tools", "diff", snapshots["compatible"], snapshots["v1"])
    assert reverse.exit_code == 1  # undoing a compatible change breaks callers


def test_diff_json(cli, snapshots):
    result = cli("tools", "diff", snapshots["v1"], snapshots["breaking"], "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert (data["ok"], data["old"], data["new"]) == (False, snapshots["v1"],
                                                      snapshots["breaking"])
    assert sorted(data["summary"].items()) == [("breaking", 4), ("error", 0), ("info", 0),
                                               ("warning", 0)]


def test_diff_accepts_the_json_listing(cli, snapshots, tmp_path):
    listing = tmp_path / "listing.json"
    listing.write_text(cli("tools", "list", str(tmp_path / "diff_v1.py"), "--format",
                           "json").stdout, encoding="utf-8")
    result = cli("tools", "diff", str(listing), snapshots["v1"])
    assert (result.exit_code, result.stdout.splitlines()[0]) == (0, "✓ no differences")


def test_diff_unloadable_files_exit_3(cli, snapshots, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    for old, new, message in ((snapshots["v1"], str(tmp_path / "nope.json"), "not found"),
                              (str(bad), snapshots["v1"], "not valid JSON")):
        result = cli("tools", "diff", old, new)
        assert result.exit_code == 3
        assert message in result.stderr
        assert result.stdout == ""


# -- the installed entry point ---------------------------------------------------------------


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "FORCE_COLOR")}
    env.update(NO_COLOR="1", COLUMNS="80", PYTHONIOENCODING="utf-8", PYTHONWARNINGS="error")
    return subprocess.run([str(AGENTFORGE), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=60, check=False)


def test_entry_point_provider_formats():
    assert AGENTFORGE.exists(), "the agentforge entry point is not installed (make install)"
    done = run("tools", "list", CRM, "--format", "anthropic")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["input_schema"]["required"] == ["name", "limit"]
    failed = run("tools", "list", "sample_tools.shop", "--format", "openai", "--strict")
    assert (failed.returncode, failed.stdout) == (1, "")
    assert 'parameter "levels"' in failed.stderr
    assert run("tools", "list", CRM, "--format", "mcp", "--strict").returncode == 2


def test_entry_point_check_and_diff(tmp_path):
    module = tmp_path / "inventory.py"
    module.write_text(TOOLS_V1, encoding="utf-8")
    lock = "tools.lock.json"
    missing = run("tools", "check", "inventory.py", "--snapshot", lock, cwd=tmp_path)
    assert missing.returncode == 3
    assert "snapshot file not found" in missing.stderr
    written = run("tools", "check", "inventory.py", "--snapshot", lock, "--update-snapshot",
                  cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert run("tools", "check", "inventory.py", "--snapshot", lock,
               cwd=tmp_path).returncode == 0

    module.write_text(TOOLS_BREAKING, encoding="utf-8")
    broken = run("tools", "check", "inventory.py", "--snapshot", lock, cwd=tmp_path)
    assert broken.returncode == 1
    for tool, parameter in BREAKING_LINES:
        breaking_line(broken.stdout, tool, parameter)
    assert "Traceback" not in broken.stderr

    module.write_text(TOOLS_COMPATIBLE, encoding="utf-8")
    assert run("tools", "check", "inventory.py", "--snapshot", lock,
               cwd=tmp_path).returncode == 0

    module.write_text(TOOLS_BREAKING, encoding="utf-8")
    listed = run("tools", "list", "inventory.py", "--format", "json", cwd=tmp_path)
    (tmp_path / "new.json").write_text(listed.stdout, encoding="utf-8")
    diff = run("tools", "diff", lock, "new.json", cwd=tmp_path)
    assert diff.returncode == 1
    breaking_line(diff.stdout, "reserve", "quantity")
    assert run("tools", "diff", lock, lock, cwd=tmp_path).returncode == 0
    assert run("tools", "diff", lock, "nope.json", cwd=tmp_path).returncode == 3
    as_json = run("tools", "diff", lock, "new.json", "--json", cwd=tmp_path)
    assert json.loads(as_json.stdout)["summary"]["breaking"] == 4
    assert as_json.stderr == ""


def test_diff_with_a_missing_file_says_how_to_write_a_snapshot(cli, tmp_path):
    old = tmp_path / "v1.json"
    assert cli("tools", "check", CRM, "--snapshot", str(old), "--update-snapshot"
               ).exit_code == 0
    missing = tmp_path / "v2.json"
    result = cli("tools", "diff", str(old), str(missing))
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: snapshot file not found: {missing}\n"
        f"  write one with: agentforge tools list TARGET --format json > {missing}\n")
    assert "--update-snapshot" not in result.stderr
    check = cli("tools", "check", CRM, "--snapshot", str(missing))
    assert check.stderr == (f"error: snapshot file not found: {missing} (create it with "
                            "--update-snapshot)\n")
