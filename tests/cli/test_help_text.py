"""Help screens at 80 columns: usual usage notation, no type placeholders, prose that
wraps to the terminal; and summaries that agree in number."""

from __future__ import annotations

import json
import re

import pytest
from cli_support import command_paths

COMMANDS = {
    ("tools", "list"): "agentforge tools list [OPTIONS] [TARGET]...",
    ("tools", "check"): "agentforge tools check [OPTIONS] [TARGET]...",
    ("tools", "fuzz"): "agentforge tools fuzz [OPTIONS] [TARGET]...",
    ("tools", "audit"): "agentforge tools audit [OPTIONS] [TARGET]...",
    ("tools", "call"): "agentforge tools call [OPTIONS] NAME [ARGUMENTS]",
    ("tools", "diff"): "agentforge tools diff [OPTIONS] OLD.json NEW.json",
    ("serve",): "agentforge serve [OPTIONS] [TARGET]...",
    ("replay",): "agentforge replay [OPTIONS] TRANSCRIPT...",
}


def prose(help_text: str) -> list[list[str]]:
    """The paragraphs above the first panel, each as its lines (usage line excluded)."""
    head = help_text.split("╭", 1)[0]
    paragraphs = [block.splitlines() for block in re.split(r"\n\s*\n", head)]
    return [[line.strip() for line in block if line.strip()] for block in paragraphs
            if any(line.strip() for line in block)][1:]


@pytest.mark.parametrize("command", list(COMMANDS), ids=" ".join)
def test_help_usage_line_metavars_and_unbroken_prose(cli, command):
    result = cli(*command, "--help")
    assert result.exit_code == 0
    text = result.stdout
    # CliRunner names the program "root"; the installed command is "agentforge"
    usage = COMMANDS[command].replace("agentforge", "root", 1)
    assert f"Usage: {usage}" in [line.strip() for line in text.splitlines()]
    assert not re.search(r"\{[A-Z][A-Za-z.]*\}|<[a-z|]+>", text), text
    for line in text.splitlines():
        assert len(line.rstrip()) <= 80, line
    paragraphs = prose(text)
    assert paragraphs, text
    for lines in paragraphs:
        # a paragraph wrapped to 80 columns: every line but its last is (nearly) full
        for line in lines[:-1]:
            assert len(line) >= 60, (command, lines)


def _click_command(path: tuple[str, ...]):
    import typer.main

    from agentforge_cli.cli.app import app

    command = typer.main.get_command(app)
    for word in path:
        command = command.commands[word]
    return command


@pytest.mark.parametrize("path", command_paths(), ids=lambda path: " ".join(path) or "-")
def test_every_option_name_is_whole_in_the_help_at_80_columns(cli, path):
    """Every command and group, read from the click tree (a new one is covered too):
    each name of each option appears in full, and nothing is cut with an ellipsis."""
    result = cli(*path, "--help")
    assert result.exit_code == 0, result.output
    text = result.stdout
    names = ["--help"] + [name for param in _click_command(path).params
                          if not getattr(param, "hidden", False)
                          for name in (*getattr(param, "opts", ()),
                                       *getattr(param, "secondary_opts", ()))
                          if name.startswith("-")]
    for name in names:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), (name, text)
    assert "…" not in text, text
    for line in text.splitlines():
        assert len(line.rstrip()) <= 80, line


def test_several_targets_are_accepted_as_the_usage_says(cli):
    from cli_support import CRM

    result = cli("tools", "list", CRM, "sample_tools.weather", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert [t["name"] for t in json.loads(result.stdout)] == ["queryCustomer", "getWeather"]


@pytest.mark.parametrize("mismatched, total, verdict", [
    (1, 1, "✗ 1 of 1 call differs from the recording"),
    (1, 3, "✗ 1 of 3 calls differs from the recording"),
    (2, 3, "✗ 2 of 3 calls differ from the recording"),
])
def test_the_replay_verdict_agrees_in_number(capsys, mismatched, total, verdict):
    from agentforge_cli.cli import render

    render.replay_summary({"matched": total - mismatched, "mismatched": mismatched,
                           "unrecorded": 0}, "t.jsonl", failed=True)
    assert capsys.readouterr().out.splitlines()[-1] == verdict


def test_the_tools_help_names_every_subcommand_and_every_kind_of_target(cli):
    group = cli("tools", "--help")
    assert "List, call, check, diff and fuzz the tools of a target." in group.stdout
    listing = cli("tools", "list", "--help").stdout
    assert "mcp:COMMAND" in listing and "http(s)://" in listing


@pytest.mark.parametrize("path", command_paths(), ids=lambda path: " ".join(path) or "-")
def test_bracketed_names_survive_the_help_markup(cli, path):
    """rich reads ``[name]`` as markup and drops it: a help text that names
    ``[tool.agentforge]`` must escape it, or the help shows a gap."""
    from agentforge_cli.cli.usage import make_help

    command = _click_command(path)
    make_help(command.params)  # as --help does: some help is made only when shown
    texts = [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]
    named = {found for text in texts for found in re.findall(r"\[tool\.agentforge[\w.]*\]", text)}
    shown = " ".join(cli(*path, "--help").stdout.split())
    for name in named:
        assert name in shown, (path, name)


def test_the_command_line_builds_only_what_it_asks_for_and_help_still_shows_all():
    """``agentforge tools list`` registers no other ``tools`` sub-command and its option
    help is made only when shown; through the real entry point, every screen still names
    everything: the sub-commands, and the provider formats of the registry."""
    import subprocess
    import sys
    from pathlib import Path

    from agentforge_cli.schema.providers import LIST_FORMATS

    agentforge = str(Path(sys.executable).with_name("agentforge"))
    env = {"COLUMNS": "200", "NO_COLOR": "1", "PATH": ""}

    def shown(*args: str) -> str:
        done = subprocess.run([agentforge, *args], capture_output=True, text=True, env=env,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        return " ".join(done.stdout.split())

    group = shown("tools", "--help")
    assert all(f"│ {name} " in group for name in ("list", "call", "check", "diff", "fuzz",
                                                  "audit")), group
    listing = shown("tools", "list", "--help")
    assert all(name in listing for name in LIST_FORMATS)
    assert "\0" not in listing
    assert "Usage: agentforge tools check" in shown("tools", "check", "--help")
    misspelt = subprocess.run([agentforge, "tools", "chek"], capture_output=True, text=True,
                              env=env, timeout=60)
    assert misspelt.returncode == 2
    assert "check" in misspelt.stderr
