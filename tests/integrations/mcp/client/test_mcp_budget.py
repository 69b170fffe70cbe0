"""``tools check --budget`` on two reference MCP servers (server-everything, and the
Python time server): their tool definitions measured as each provider gets them, and a
budget that gates."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
EVERYTHING = ROOT / ".venv" / "node" / "node_modules" / ".bin" / "mcp-server-everything"


@pytest.fixture
def everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``everything(budget)``: write ``[tool.agentforge.budget]`` (anthropic and mcp as the
    providers) and return the server's target."""
    if not EVERYTHING.exists():
        pytest.fail(f"{EVERYTHING} is missing: run make install (it installs the Node "
                    "reference servers)")
    monkeypatch.delenv("AGENTFORGE_TOOLS", raising=False)
    monkeypatch.chdir(tmp_path)

    def configure(budget: str) -> str:
        (tmp_path / "pyproject.toml").write_text(
            '[tool.agentforge]\nproviders = ["anthropic", "mcp"]\n'
            f"[tool.agentforge.budget]\n{budget}\n", encoding="utf-8")
        return f"mcp:{EVERYTHING}"

    return configure


def test_server_everything_definitions_are_measured_and_a_budget_gates(cli, everything):
    target = everything("set_tokens = 100000")
    passed = cli("tools", "check", target, "--budget", "--json")
    document = json.loads(passed.stdout)
    assert passed.exit_code == 0, passed.output
    anthropic, mcp = document["budget"]["providers"]
    assert (anthropic["provider"], mcp["provider"]) == ("anthropic", "mcp")
    names = [tool["name"] for tool in anthropic["tools"]]
    assert {"echo", "get-sum", "gzip-file-as-resource"} <= set(names)
    assert names == [tool["name"] for tool in mcp["tools"]]
    for provider in (anthropic, mcp):
        assert provider["tokenizer"] == "estimate (characters/4)"
        for tool in provider["tools"]:
            assert tool["tokens"] == math.ceil(tool["chars"] / 4) > 0
        # the set is the provider's whole document: every entry, and its wrapping
        assert provider["chars"] >= sum(t["chars"] for t in provider["tools"]) + len(names)
    # a budget under the largest definition fails the check, naming exactly the tools over
    largest = max(anthropic["tools"], key=lambda tool: tool["tokens"])
    limit = largest["tokens"] - 1
    over = {tool["name"] for tool in anthropic["tools"] if tool["tokens"] > limit}
    failed = cli("tools", "check", everything(f"tool_tokens = {limit}"), "--budget", "--json")
    assert failed.exit_code == 1
    findings = json.loads(failed.stdout)["findings"]
    flagged = {f["tool"] for f in findings if f["rule"] == "tool-tokens"
               and "for anthropic" in f["message"]}
    assert flagged == over == {largest["name"]}
    # and the whole set against a set budget below it (MCP's document is the larger)
    failed = cli("tools", "check", everything(f"set_tokens = {anthropic['tokens'] - 1}"),
                 "--budget", "--json")
    assert failed.exit_code == 1
    sets = [f["message"] for f in json.loads(failed.stdout)["findings"]
            if f["rule"] == "set-tokens"]
    assert [message.split(" for ")[1].split(",")[0] for message in sets] == ["anthropic", "mcp"]
    assert sets[0].startswith(f"the {len(names)} tool definitions are "
                              f"{anthropic['tokens']:,} tokens (estimate) for anthropic")


def test_the_time_servers_definitions_gate_a_tool_budget(cli, tmp_path, monkeypatch):
    """The second reference server: mcp-server-time (Python, installed with the project's
    test extras), its two tools measured for anthropic; a budget between the two sizes
    flags the larger tool only."""
    import shutil
    import sys

    server = Path(sys.executable).parent / "mcp-server-time"
    if not server.exists() and shutil.which("mcp-server-time") is None:
        pytest.fail("mcp-server-time is missing: run make install")
    monkeypatch.delenv("AGENTFORGE_TOOLS", raising=False)
    monkeypatch.chdir(tmp_path)
    target = f"mcp:{server} --local-timezone UTC"
    measured = cli("tools", "check", target, "--provider", "anthropic", "--budget", "--json")
    assert measured.exit_code == 0, measured.output
    [anthropic] = json.loads(measured.stdout)["budget"]["providers"]
    sizes = {tool["name"]: tool["tokens"] for tool in anthropic["tools"]}
    assert set(sizes) == {"get_current_time", "convert_time"}
    assert sizes["get_current_time"] < sizes["convert_time"]
    (tmp_path / "pyproject.toml").write_text(
        "[tool.agentforge.budget]\ntool_tokens = "
        f"{sizes['get_current_time']}\n", encoding="utf-8")
    gated = cli("tools", "check", target, "--provider", "anthropic", "--budget", "--json")
    assert gated.exit_code == 1
    flagged = {f["tool"] for f in json.loads(gated.stdout)["findings"]
               if f["rule"] == "tool-tokens"}
    assert flagged == {"convert_time"}
