"""Shared helpers for the core-library tests.

``probe(annotation)`` builds a one-parameter tool ``probe(x: annotation)`` that records
exactly what it receives, so coercion tests can assert on the value *and* its type.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentforge_cli import ToolExecutionRequest
from agentforge_cli.core.executor import LocalToolExecutor
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
