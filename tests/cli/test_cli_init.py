"""`agentforge init`: idempotent, never overwriting, a minimal edit of pyproject.toml."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

TOOLS = textwrap.dedent('''
    from agentforge_cli import tool

    @tool
    def ping(host: str) -> str:
        """Ping a host."""
        return host
    ''')


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "netops").mkdir()
    (tmp_path / "netops" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "netops" / "checks.py").write_text(TOOLS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_second_run_writes_nothing(cli, project):
    (project / "pyproject.toml").write_text('[project]\nname = "netops"  # kept\n',
                                            encoding="utf-8")
    first = cli("init")
    assert first.exit_code == 0, first.output
    assert "tools: netops/checks.py (1 tool)" in first.stdout
    text = (project / "pyproject.toml").read_text(encoding="utf-8")
    assert text == ('[project]\nname = "netops"  # kept\n\n'
                    '[tool.agentforge]\ntools = ["netops/checks.py"]\n')
    snapshot = json.loads((project / "tests/agentforge/tools.snapshot.json").read_text())
    assert "ping" in json.dumps(snapshot)
    files = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    second = cli("init")
    assert second.exit_code == 0
    starts = [line.split()[0] for line in second.stdout.splitlines()[1:-1]]
    assert starts == ["left"] * 6
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == files


def test_an_existing_file_is_left_alone(cli, project):
    workflow = project / ".github" / "workflows" / "agentforge.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("mine\n", encoding="utf-8")
    result = cli("init")
    assert result.exit_code == 0
    assert workflow.read_text(encoding="utf-8") == "mine\n"
    assert "left  .github/workflows/agentforge.yml" in result.stdout
    assert (project / "pyproject.toml").is_file()  # created with the table alone


def test_a_table_with_other_keys_gets_the_tools_added(cli, project):
    (project / "pyproject.toml").write_text('[tool.agentforge.replay]\nscrub = ["uuids"]\n',
                                            encoding="utf-8")
    assert cli("init").exit_code == 0
    import tomllib

    table = tomllib.loads((project / "pyproject.toml").read_text())["tool"]["agentforge"]
    assert table == {"replay": {"scrub": ["uuids"]}, "tools": ["netops/checks.py"]}


def test_a_table_that_cannot_be_added_to_is_named(cli, project):
    original = '[tool.agentforge]\nstrict = false\n'
    (project / "pyproject.toml").write_text(original, encoding="utf-8")
    result = cli("init")
    assert result.exit_code == 0
    assert (project / "pyproject.toml").read_text(encoding="utf-8") == original
    assert 'add tools = ["netops/checks.py"] to it' in result.stdout


def test_no_tools_is_a_usage_error(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("init")
    assert result.exit_code == 2
    assert "no module here declares a tool" in result.stderr
    assert not any(tmp_path.iterdir())


def test_a_target_that_does_not_load_writes_nothing(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("init", "nowhere.mod:Tools")
    assert result.exit_code == 3
    assert not any(tmp_path.iterdir())
