"""Fixtures for the ``tools fuzz`` tests: the CLI in-process, a plain 80-column terminal,
no ambient targets, the repository root as the working directory."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from fuzz_support import ROOT, TARGETS
from typer.testing import CliRunner


@pytest.fixture(autouse=True)
def fuzz_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")
    for name in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(ROOT)


@pytest.fixture
def cli() -> Callable[..., object]:
    """``cli("tools", "fuzz", ...)`` -> click ``Result`` (stdout and stderr apart)."""
    from agentforge_cli.cli.app import app

    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, list(args), catch_exceptions=False)

    return invoke


@pytest.fixture
def fuzz_json(cli) -> Callable[..., dict]:
    """``fuzz_json(TOOL, *options)``: fuzz one tool of fuzz_targets; the --json document
    and the exit code under ``"exit"``."""

    def run(name: str, *options: str) -> dict:
        result = cli("tools", "fuzz", TARGETS, "--tool", name, "--examples", "20",
                     "--seed", "1", "--timeout", "0.2", "--json", *options)
        document = json.loads(result.stdout)
        document["exit"] = result.exit_code
        return document

    return run
