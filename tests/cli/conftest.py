"""Shared fixtures for the command-line tests: a fixed, colourless 80-column terminal,
no ambient target configuration, and the repository root as the working directory."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import ROOT
from typer.testing import CliRunner


@pytest.fixture(autouse=True)
def cli_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("TERM", "dumb")
    for name in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "FORCE_COLOR", "LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(ROOT)


@pytest.fixture
def cli() -> Callable[..., object]:
    """Invoke the app in-process: ``cli("tools", "list", CRM)`` -> click ``Result``."""
    from agentforge_cli.cli.app import app

    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(app, list(args), input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def write_module(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write a tool module into a temporary directory; returns its path."""

    def write(name: str, source: str) -> Path:
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    return write


CITY_TOOLS = '''
from agentforge_cli import tool

@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: found"
'''


@pytest.fixture
def city_tools(tmp_path: Path) -> str:
    """A module with ``lookup(city) -> "<city>: found"``, the tool the framework samples
    call; its path, as a target."""
    module = tmp_path / "city_tools.py"
    module.write_text(CITY_TOOLS, encoding="utf-8")
    return str(module)
