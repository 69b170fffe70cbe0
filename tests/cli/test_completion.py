"""Shell completion: typer's standard options, and tool names for ``tools call``."""

from __future__ import annotations

import subprocess

from cli_support import CRM, ROOT
from test_cli_entry_point import AGENTFORGE, run, text


def complete(words: str, env: dict[str, str] | None = None) -> list[str]:
    """What bash completion offers for the last word of ``words``."""
    parts = words.split(" ")
    done = run(env={"_AGENTFORGE_COMPLETE": "complete_bash", "COMP_WORDS": words,
                    "COMP_CWORD": str(len(parts) - 1), **(env or {})})
    assert done.returncode == 0, text(done.stderr)
    return text(done.stdout).split()


def test_show_completion_prints_a_bash_script():
    # typer detects the shell it runs in: run the command from bash, as a user would
    # (the trailing `; exit` keeps bash from replacing itself with the command)
    done = subprocess.run(["bash", "-c", f"{AGENTFORGE} --show-completion bash; exit $?"],
                          capture_output=True, timeout=60, check=False, cwd=ROOT)
    assert done.returncode == 0, text(done.stderr)
    assert "_agentforge_completion()" in text(done.stdout)
    assert "complete " in text(done.stdout)


def test_help_lists_the_completion_options():
    shown = text(run("--help").stdout)
    assert "--install-completion" in shown and "--show-completion" in shown


def test_tool_names_complete_from_the_given_target():
    assert complete(f"agentforge tools call -t {CRM} q") == ["queryCustomer"]
    assert complete(f"agentforge tools call -t {CRM} x") == []


def test_tool_names_complete_from_the_configured_targets():
    offered = complete("agentforge tools call get", env={"AGENTFORGE_TOOLS": "sample_tools.shop"})
    assert offered == ["getPrice", "getOrder"]


def test_a_target_that_cannot_load_offers_nothing_and_prints_nothing():
    done = run(env={"_AGENTFORGE_COMPLETE": "complete_bash",
                    "COMP_WORDS": "agentforge tools call -t no_such_module q", "COMP_CWORD": "5"})
    assert done.returncode == 0
    assert text(done.stdout).strip() == ""
    assert text(done.stderr) == ""


def test_list_formats_and_check_providers_complete_from_the_registries():
    from agentforge_cli.schema.providers import LIST_FORMATS, PROVIDERS

    assert complete("agentforge tools list --format ") == ["table", "json", *LIST_FORMATS]
    assert complete("agentforge tools list --format gem") == [
        name for name in LIST_FORMATS if name.startswith("gem")]
    assert complete("agentforge tools check --provider ") == list(PROVIDERS)
    assert complete("agentforge tools check --provider openai-s") == ["openai-strict"]
