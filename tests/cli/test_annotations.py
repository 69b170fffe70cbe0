"""GitHub Actions annotations: under ``GITHUB_ACTIONS=true``, ``replay``, ``tools check``
and ``tools fuzz`` write ``::error`` workflow commands on standard error, pointing at the
transcript's line or the tool's source line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_support import CRM, ROOT, TRANSCRIPTS

from agentforge_cli.cli import annotations
from agentforge_cli.cli.annotations import Annotation


def parse(command: str) -> tuple[str, dict[str, str], str]:
    """A workflow command read back as the Actions runner reads it (``ActionCommand.
    TryParseV2``): the name, the properties split on ``,`` and ``=`` then unescaped
    (``%`` last), the data unescaped."""
    assert command.startswith("::")
    end = command.index("::", 2)
    info, data = command[2:end], command[end + 2:]
    name, _, rest = info.partition(" ")
    properties = {}
    for pair in filter(None, rest.strip().split(",")):
        key, _, value = pair.partition("=")
        for token, code in (("\r", "%0D"), ("\n", "%0A"), (":", "%3A"), (",", "%2C"),
                            ("%", "%25")):
            value = value.replace(code, token)
        properties[key] = value
    for token, code in (("\r", "%0D"), ("\n", "%0A"), ("%", "%25")):
        data = data.replace(code, token)
    return name, properties, data


def commands(stderr: str) -> list[tuple[str, dict[str, str], str]]:
    return [parse(line) for line in stderr.splitlines() if line.startswith("::")]


@pytest.fixture
def actions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")


def test_special_characters_survive_the_runner_reading_them_back():
    tricky = "50% a:b, c\r\nnext %0A line"
    text = annotations.line(Annotation(tricky, title=tricky, file="dir,x/a:b%.py", line=7))
    assert "\n" not in text and "\r" not in text
    name, properties, data = parse(text)
    assert name == "error"
    assert properties == {"file": "dir,x/a:b%.py", "line": "7", "title": tricky}
    assert data == tricky


def test_replay_annotates_the_mismatched_call_at_its_line(cli, actions):
    result = cli("replay", str(TRANSCRIPTS / "crm_mismatch.jsonl"), "-t", CRM, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["summary"]["mismatched"] == 1  # stdout stays JSON
    assert "::" not in result.stdout
    [(name, properties, data)] = commands(result.stderr)
    assert name == "error"
    assert properties["file"] == "sample_tools/transcripts/crm_mismatch.jsonl"
    assert properties["line"] == "4"
    assert properties["title"] == "agentforge replay: mismatched queryCustomer"
    assert data.splitlines() == ["queryCustomer: result differs from the recording",
                                 "- recorded: customer:小明,limit:30",
                                 "+ actual:   customer:小明,limit:3"]


def test_paths_are_relative_to_the_workspace(cli, actions, monkeypatch):
    monkeypatch.setenv("GITHUB_WORKSPACE", str(ROOT / "sample_tools"))
    result = cli("replay", str(TRANSCRIPTS / "crm_drift.jsonl"), "-t", CRM)
    [(_, properties, data)] = commands(result.stderr)
    assert properties["file"] == "transcripts/crm_drift.jsonl"
    assert properties["line"] == "2"
    assert "no longer fit" in data


def test_allowed_drift_is_not_annotated(cli, actions):
    result = cli("replay", str(TRANSCRIPTS / "crm_drift.jsonl"), "-t", CRM, "--allow-drift")
    assert commands(result.stderr) == []


def test_an_unreadable_transcript_of_a_folder_is_annotated_at_its_line(cli, actions,
                                                                     tmp_path: Path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes((TRANSCRIPTS / "crm.jsonl").read_bytes())
    (folder / "bad.jsonl").write_bytes((TRANSCRIPTS / "crm_malformed.jsonl").read_bytes())
    result = cli("replay", str(folder), "-t", CRM)
    [(_, properties, data)] = commands(result.stderr)
    assert properties["file"].endswith("t/bad.jsonl") and properties["line"] == "3"
    assert properties["title"] == "agentforge replay: cannot read the transcript"
    assert "invalid JSON" in data


def test_nothing_outside_github_actions(cli):
    result = cli("replay", str(TRANSCRIPTS / "crm_mismatch.jsonl"), "-t", CRM)
    assert result.exit_code == 1
    assert "::error" not in result.output


def test_check_annotates_failing_findings_at_the_tools_source(cli, actions):
    import inspect

    from sample_tools.shop import ShopTools

    lines, start = inspect.getsourcelines(ShopTools.restock)
    result = cli("tools", "check", "sample_tools.shop", "--provider", "openai-strict")
    assert result.exit_code == 1
    found = commands(result.stderr)
    assert found and all(name == "error" for name, _, _ in found)
    restock = [p for _, p, d in found if d.startswith('tool "restock"')]
    assert restock == [{"file": "sample_tools/shop.py", "line": str(start),
                        "title": "agentforge tools check: openai-strict:free-form-object"}]
    assert lines[0].lstrip().startswith("@tool")


def test_warnings_are_annotated_only_when_they_fail(cli, actions, write_module):
    module = write_module("undescribed", """
        from agentforge_cli import tool

        @tool
        def ping(host: str) -> str:
            return host
        """)
    passing = cli("tools", "check", str(module))
    failing = cli("tools", "check", str(module), "--fail-on", "warning")
    assert passing.exit_code == 0 and commands(passing.stderr) == []
    assert failing.exit_code == 1
    found = commands(failing.stderr)
    assert len(found) == 2
    assert {p["line"] for _, p, _ in found} == {"4"}  # the decorator's line
    assert all(p["file"] == str(module) for _, p, _ in found)  # outside the workspace


def test_fuzz_annotates_the_line_that_raised(cli, actions):
    result = cli("tools", "fuzz", "sample_tools.fragile", "--seed", "0", "--examples", "50")
    assert result.exit_code == 1
    [(name, properties, data)] = commands(result.stderr)
    assert name == "error"
    source = (ROOT / "sample_tools" / "fragile.py").read_text(encoding="utf-8").splitlines()
    assert properties["file"] == "sample_tools/fragile.py"
    assert "/" in source[int(properties["line"]) - 1]  # the division that crashed
    assert properties["title"] == "agentforge tools fuzz: averageRating (crash)"
    assert re.search(r"^reproduce: agentforge tools call averageRating ", data, re.M)


def test_more_than_ten_are_counted_in_one_notice(actions, capsys):
    annotations.emit([Annotation(f"m{n}", title="t") for n in range(12)], untold=3)
    found = commands(capsys.readouterr().err)
    assert [name for name, _, _ in found] == ["error"] * 10 + ["notice"]
    assert found[-1][2].startswith("5 more not annotated")
