"""Fixtures for the ``tools fuzz`` tests: a plain terminal at the repository root (the
shared ``plain_terminal``), and ``fuzz_json``."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from fuzz_support import TARGETS


@pytest.fixture(autouse=True)
def _plain(plain_terminal: None) -> None:
    """A plain terminal at the repository root (the shared fixture)."""


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
