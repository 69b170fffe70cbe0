"""The suite's shared fixtures (one module; the folders' conftest files only switch some
on for their tests).

* ``probe(annotation)`` builds a one-parameter tool ``probe(x: annotation)`` that records
  exactly what it receives, so coercion tests can assert on the value *and* its type;
* ``plain_terminal``: a fixed, colourless 80-column terminal, no ambient target
  configuration, the repository root as the working directory (on for ``tests/cli``,
  ``tests/replay``, ``tests/fuzz``);
* ``cli``: the command line in process, ``cli("tools", "list", CRM)`` -> click ``Result``;
* ``write_module`` and ``city_tools``: tool modules written for a test.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import ROOT

from agentforge_cli import ToolExecutionRequest
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ArgumentError

# The corpus run's tool modules and checker need the corpus: `make corpus` runs them.
collect_ignore = ["corpus"]

_NOTHING = object()


class Probe:
    """A single-parameter tool recording every value it is called with."""

    def __init__(self, annotation: Any = _NOTHING, *, name: str = "probe", **options: Any):
        self.received: list[Any] = []

        def probe(x):
            self.received.append(x)

        if annotation is not _NOTHING:
            probe.__annotations__ = {"x": annotation}
        probe.__name__ = probe.__qualname__ = name
        self.executor = LocalToolExecutor(probe, **options)

    def call(self, arguments: str | None):
        """Execute with a raw argument string; return the result."""
        return self.executor.execute(ToolExecutionRequest(id="t", name=self.executor.name,
                                                          arguments=arguments))

    def receive(self, value_json: str) -> Any:
        """Bind ``{"x": <value_json>}`` and return the single value the tool received."""
        self.received.clear()
        result = self.call('{"x":' + value_json + "}")
        assert result.is_error is False, result
        assert len(self.received) == 1
        return self.received[0]

    def refuse(self, value_json: str) -> ArgumentError:
        """Bind ``{"x": <value_json>}``, expect an ArgumentError and return it."""
        self.received.clear()
        with pytest.raises(ArgumentError) as info:
            self.call('{"x":' + value_json + "}")
        assert self.received == [], "the tool must not run when binding fails"
        return info.value


def make_probe(annotation: Any = _NOTHING, **options: Any) -> Probe:
    return Probe(annotation, **options)


def request(name: str, arguments: Any = "{}", call_id: str = "call_1") -> ToolExecutionRequest:
    """A request; a non-string ``arguments`` is JSON-encoded first."""
    if not isinstance(arguments, str) and arguments is not None:
        arguments = json.dumps(arguments, ensure_ascii=False)
    return ToolExecutionRequest(id=call_id, name=name, arguments=arguments)


@pytest.fixture
def probe():
    """``probe(annotation, **executor_options) -> Probe``."""
    return make_probe


@pytest.fixture
def req():
    """``req(name, arguments="{}", call_id="call_1") -> ToolExecutionRequest``."""
    return request


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """A skipped test hides a gap: this suite has no optional parts, so a skip fails."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = call.excinfo.value if call.excinfo else "no reason"
        report.longrepr = (f"{item.nodeid} was skipped ({reason}); every test here must run: "
                           "install what it needs in the Makefile")


@pytest.fixture
def plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("TERM", "dumb")
    for name in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "AGENTFORGE_RECORD", "FORCE_COLOR",
                 "LINES", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(ROOT)


@pytest.fixture
def cli() -> Callable[..., Any]:
    """Invoke the app in-process: ``cli("tools", "list", CRM)`` -> click ``Result``."""
    from typer.testing import CliRunner

    from agentforge_cli.cli.app import app

    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Any:
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
