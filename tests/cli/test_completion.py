"""Shell completion: typer's standard options, and tool names for ``tools call``."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_support import CRM, ROOT
from test_cli_entry_point import AGENTFORGE, run, text


def complete(words: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> list[str]:
    """What bash completion offers for the last word of ``words``, run in ``cwd``."""
    parts = words.split(" ")
    done = run(env={"_AGENTFORGE_COMPLETE": "complete_bash", "COMP_WORDS": words,
                    "COMP_CWORD": str(len(parts) - 1), **(env or {})}, cwd=cwd)
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


def helpdesk_project(root):
    """A src layout with one module of tools, one without, and a module that must never
    be imported while completing (it would write a file)."""
    package = root / "src" / "helpdesk"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "tools.py").write_text(
        "from agentforge_cli import tool\n\n\n@tool\ndef open_ticket(subject: str) -> str:\n"
        "    return subject\n", encoding="utf-8")
    (package / "models.py").write_text("class Ticket: ...\n", encoding="utf-8")
    (package / "dangerous.py").write_text(
        "from pathlib import Path\nfrom agentforge_cli import tool\n"
        "Path(__file__).with_name('IMPORTED').write_text('x')\n\n\n"
        "@tool\ndef wipe() -> str:\n    return ''\n", encoding="utf-8")
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / ".venv" / "lib" / "hidden.py").write_text(
        "from agentforge_cli import tool\n@tool\ndef x() -> str:\n    return ''\n",
        encoding="utf-8")
    (root / "scripts").mkdir()
    (root / "scripts" / "deploy_tools.py").write_text("print('hi')\n", encoding="utf-8")
    return root


def test_targets_complete_from_the_project_without_importing_it(tmp_path):
    project = helpdesk_project(tmp_path)
    # not installed, so named by file (as `agentforge init` names them); .venv is not searched
    offered = complete("agentforge tools list s", cwd=project)
    assert offered == ["src/helpdesk/dangerous.py", "src/helpdesk/tools.py", "scripts/", "src/"]
    assert not (project / "src" / "helpdesk" / "IMPORTED").exists()
    assert complete("agentforge tools list m", cwd=project) == ["mcp:"]
    assert complete("agentforge replay x.jsonl -t src/helpdesk/t", cwd=project) == [
        "src/helpdesk/tools.py"]


def test_targets_complete_to_modules_and_classes_that_import():
    offered = complete("agentforge tools list sample_tools.cr")
    assert offered == ["sample_tools.crm:CrmTools"]


def test_targets_complete_files_and_folders_on_a_path(tmp_path):
    project = helpdesk_project(tmp_path)
    assert complete("agentforge tools check src/", cwd=project) == ["src/helpdesk/"]
    assert complete("agentforge tools check src/helpdesk/t", cwd=project) == [
        "src/helpdesk/tools.py"]
    assert complete("agentforge tools list scr", cwd=project) == ["scripts/"]
    assert complete("agentforge tools list mcp:npx", cwd=project) == []
    assert complete("agentforge tools list no/such/", cwd=project) == []
