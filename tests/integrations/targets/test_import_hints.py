"""What a target that cannot be imported says about where agentforge runs: an isolated
install (pipx, uv tool) names the command that lets it see the project, and a src/ layout
names the two ways to import it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.targets.importing import isolated_install
from agentforge_cli.integrations.targets.loading import load_service

PIPX = "/home/ann/.local/share/pipx/venvs/agentforge-tools"
UV = "/home/ann/.local/share/uv/tools/agentforge-tools"


def failure(target: str) -> TargetError:
    with pytest.raises(TargetError) as caught:
        load_service([target])
    return caught.value


@pytest.mark.parametrize(("prefix", "tool"), [(PIPX, "pipx"), (UV, "uv tool"),
                                              ("/work/project/.venv", None)])
def test_an_isolated_install_is_told_by_its_prefix(monkeypatch, prefix, tool):
    monkeypatch.setattr(sys, "prefix", prefix)
    assert isolated_install() == tool


@pytest.mark.parametrize(("prefix", "command"), [
    (PIPX, "pipx inject agentforge-tools -e ."),
    (UV, "uv tool install --with-editable . agentforge-tools"),
])
def test_a_project_module_missing_from_an_isolated_install(monkeypatch, tmp_path, prefix,
                                                           command):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "prefix", prefix)
    error = failure("helpdesk_not_here")
    assert "no module named 'helpdesk_not_here'" in error.message
    assert command in error.hint


@pytest.mark.parametrize(("prefix", "command"), [
    (PIPX, "pipx inject agentforge-tools some_missing_dependency"),
    (UV, "uv tool install --with some_missing_dependency agentforge-tools"),
])
def test_a_dependency_missing_from_an_isolated_install(monkeypatch, tmp_path, prefix,
                                                       command):
    (tmp_path / "desk_tools.py").write_text("import some_missing_dependency\n",
                                            encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "prefix", prefix)
    error = failure("desk_tools")
    assert "No module named 'some_missing_dependency'" in error.message
    assert command in error.hint


def test_a_src_layout_names_both_ways_to_import_it(monkeypatch, tmp_path):
    package = tmp_path / "src" / "helpdesk_src"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    error = failure("helpdesk_src")
    assert "pip install -e ." in error.hint and "PYTHONPATH=src" in error.hint


def test_in_a_project_environment_the_hint_stays_the_plain_one(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "prefix", str(Path(tmp_path) / ".venv"))
    assert "run agentforge from your project's root" in failure("helpdesk_not_here").hint


def test_a_file_inside_a_src_package_imports_as_its_package(monkeypatch, tmp_path):
    """``tools list src/helpdesk_files/tools.py``: the file is the module
    ``helpdesk_files.tools``, so its imports of its own package, absolute and relative,
    work (the folder above the package goes on the path)."""
    package = tmp_path / "src" / "helpdesk_files"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "models.py").write_text("PRIORITIES = ('low', 'high')\n", encoding="utf-8")
    (package / "tools.py").write_text(
        "from agentforge_cli import tool\n"
        "from helpdesk_files.models import PRIORITIES\n"
        "from .models import PRIORITIES as SAME\n\n\n"
        "@tool\n"
        "def open_ticket(title: str) -> str:\n"
        "    '''Open a ticket.'''\n"
        "    return f'{title}: {PRIORITIES[0]} {SAME is PRIORITIES}'\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        service = load_service(["src/helpdesk_files/tools.py"])
        assert [spec.name for spec in service.specifications] == ["open_ticket"]
        assert sys.modules["helpdesk_files.tools"].__file__ == str(package / "tools.py")
    finally:
        for name in [name for name in sys.modules if name.startswith("helpdesk_files")]:
            del sys.modules[name]
