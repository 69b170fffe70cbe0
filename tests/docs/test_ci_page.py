"""docs/ci.md: its workflow is YAML, is what `agentforge init` writes, and every
`agentforge` command line in it parses with the command line's own options."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer.main
import yaml

from agentforge_cli.integrations.project import templates
from agentforge_cli.integrations.project.scaffold import PLACEHOLDER

PAGE = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def page_workflow() -> str:
    [block] = re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    return block


def command_lines(workflow: dict) -> list[list[str]]:
    """The words of each `agentforge` line of the steps' scripts."""
    found = []
    for step in workflow["jobs"]["tools"]["steps"]:
        for line in step.get("run", "").splitlines():
            words = shlex.split(line)
            if words and words[0] == "agentforge":
                found.append(words)
    return found


# typer 0.28 carries its own copy of click: its exceptions are the ones raised
USAGE_ERROR = typer.BadParameter.__mro__[1]


def parse(words: list[str]) -> object:
    """The command the words name, after its parser took their options and arguments
    (an unknown option, a missing or bad value raise the parser's ``UsageError``)."""
    from agentforge_cli.cli.app import app

    command = typer.main.get_command(app)
    rest = words[1:]
    while rest and rest[0] in (getattr(command, "commands", None) or {}):
        command, rest = command.commands[rest[0]], rest[1:]  # type: ignore[attr-defined]
    assert not getattr(command, "commands", None), f"{words} names no command"
    command.make_context(" ".join(words[:len(words) - len(rest)]), list(rest))
    return command


def test_the_workflow_is_yaml_with_the_steps_the_page_describes():
    workflow = yaml.safe_load(page_workflow())
    steps = workflow["jobs"]["tools"]["steps"]
    assert workflow["jobs"]["tools"]["env"]["AGENTFORGE"] == PLACEHOLDER
    names = {tuple(words[1:3]) for words in command_lines(workflow)}
    assert {("tools", "check"), ("tools", "diff"), ("replay", templates.TRANSCRIPTS),
            ("tools", "fuzz")} <= names
    upload = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload and upload[0]["with"]["path"] == "reports/"
    assert upload[0]["if"] == "always()"


def test_the_page_shows_what_init_writes():
    assert page_workflow() == templates.workflow(PLACEHOLDER)


def test_every_agentforge_line_parses_with_the_real_options():
    lines = command_lines(yaml.safe_load(page_workflow()))
    assert len(lines) >= 4
    for words in lines:
        parse(words)
    assert all("--junit" in words for words in lines if words[1] != "tools"
               or words[2] != "diff")


@pytest.mark.parametrize("words", [
    ["agentforge", "tools", "check", "--snapshott", "x.json"],
    ["agentforge", "replay", "t/", "--junit"],
    ["agentforge", "tools", "fuzz", "--examples", "many"],
])
def test_a_wrong_command_line_is_caught(words):
    with pytest.raises(USAGE_ERROR):
        parse(words)
