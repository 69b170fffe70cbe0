"""The README's install section, run in a fresh virtual environment.

The command is read from the README itself, so the section cannot drift: its first
``pip install`` line is run with the new environment's pip in the repository, and the
installed command must work with nothing else installed (``tools check`` included: it
needs jsonschema, a runtime dependency).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_install_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "the README's Install section has no ```sh block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()
            if line.startswith("pip install")]


def test_the_readme_names_our_distribution():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "agentforge-tools"
    assert any(dep.startswith("jsonschema") for dep in project["dependencies"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`agentforge-tools`" in readme
    assert "pip install agentforge-cli" not in readme.replace("`", "").split("Beware")[0]


def test_a_fresh_environment_installs_from_the_readme(tmp_path):
    commands = readme_install_commands()
    assert commands and commands[0] == "pip install ."
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    argv = shlex.split(commands[0])
    done = subprocess.run([str(bin_dir / "python"), "-m", *argv, "-q"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]

    def agentforge(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(bin_dir / "agentforge"), *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, check=False)

    listed = agentforge("tools", "list", "sample_tools.crm:CrmTools", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert [tool["name"] for tool in json.loads(listed.stdout)] == ["queryCustomer"]
    checked = agentforge("tools", "check", "sample_tools.crm:CrmTools", "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "jsonschema-missing" not in checked.stdout + checked.stderr
    shown = subprocess.run([str(bin_dir / "python"), "-m", "pip", "show", "agentforge-tools"],
                           capture_output=True, text=True, timeout=120, check=False)
    assert shown.returncode == 0 and "Name: agentforge-tools" in shown.stdout


def readme_block(kind: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(rf"```{kind}\n(.*?)```", section, re.S)
    assert block, f"the README's Install section has no ```{kind} block"
    return block.group(1)


def test_a_hatchling_project_installs_agentforge_as_the_readme_says(tmp_path):
    project = tmp_path / "helpdesk"
    (project / "helpdesk").mkdir(parents=True)
    (project / "helpdesk" / "__init__.py").write_text(
        "from agentforge_cli import tool\n\n\n@tool\ndef open_ticket(subject: str) -> str:\n"
        '    """Open a ticket."""\n    return f"opened: {subject}"\n', encoding="utf-8")
    snippet = readme_block("toml").replace("/path/to/agentforge", ROOT.as_posix())
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
        '[project]\nname = "helpdesk"\nversion = "0.1.0"\n\n' + snippet, encoding="utf-8")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    done = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "-e",
                           ".[dev]"], cwd=project, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    listed = subprocess.run([str(bin_dir / "agentforge"), "tools", "list", "helpdesk",
                             "--format", "json"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, check=False)
    assert listed.returncode == 0, listed.stderr
    assert [tool["name"] for tool in json.loads(listed.stdout)] == ["open_ticket"]
