"""``replay.scrub_plan``: which scrubbers a service's tools get — the settings' and each
tool's ``@tool(volatile=...)``, checked — and nothing at all, not even an import, when no
rule applies."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_support import CRM, ROOT, TRANSCRIPTS

from agentforge_cli import ToolService, build_local_tools, tool
from agentforge_cli.errors import TargetConfigError
from agentforge_cli.replay.scrub_plan import scrubbing_for
from agentforge_cli.replay.scrub_rules import parse_rule
from agentforge_cli.replay.scrubbing import ScrubSettings


@tool(volatile=["$.operation_id", "durations"])
def rollback(version: str) -> str:
    """Roll back."""
    return version


@tool
def plain(text: str) -> str:
    """Echo."""
    return text


def service(*tools: object) -> ToolService:
    return ToolService().tools(build_local_tools(list(tools)))


def test_no_rule_anywhere_is_no_scrubbing():
    assert scrubbing_for(service(plain), None) is None
    assert scrubbing_for(service(plain), ScrubSettings(tools={"plain": ()})) is None


def test_the_declared_rules_add_to_the_settings_per_tool():
    settings = ScrubSettings(every=(parse_rule("uuids"),),
                             tools={"rollback": (parse_rule("re:v[0-9]+"),),
                                    "mcp_tool": (parse_rule("timestamps"),)})
    scrubbing = scrubbing_for(service(rollback, plain), settings)
    assert scrubbing is not None
    labels = {name: found.labels for name in ("rollback", "plain", "mcp_tool", "other")
              if (found := scrubbing.for_tool(name)) is not None}
    assert labels == {"rollback": ("$.operation_id", "re:v[0-9]+", "uuids", "durations"),
                      "plain": ("uuids",), "mcp_tool": ("timestamps", "uuids"),
                      "other": ("uuids",)}
    declared_only = scrubbing_for(service(rollback, plain), None)
    assert declared_only is not None and declared_only.for_tool("plain") is None


def test_a_bad_declared_scrubber_names_the_tool_and_where_it_is():
    @tool(volatile=["timestamp"])
    def clock() -> str:
        """Now."""
        return "now"

    with pytest.raises(TargetConfigError) as info:
        scrubbing_for(service(clock), None)
    assert info.value.message.startswith("@tool(volatile=...) of 'clock' at tests/replay/"
                                         "test_scrub_plan.py:")
    assert "did you mean 'timestamps'?" in info.value.message


def test_a_replay_without_scrubbers_never_imports_the_scrubbing():
    script = (
        "import json, sys\n"
        "from typer.testing import CliRunner\n"
        "from agentforge_cli.cli.app import app\n"
        f"done = CliRunner().invoke(app, ['replay', {str(TRANSCRIPTS / 'crm.jsonl')!r}, "
        f"'-t', {CRM!r}, '--json'])\n"
        "assert done.exit_code == 0, done.output\n"
        "print(json.dumps(sorted(m for m in sys.modules if 'scrub' in m or 'json_paths' in m)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == ["agentforge_cli.replay.scrub_plan"]
