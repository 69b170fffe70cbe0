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
