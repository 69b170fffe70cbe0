"""The exception classes outside the ``AgentForgeError`` tree are internal signals: the
executor never lets ``ResultTooLarge`` or ``UnserializableResult`` reach its caller, as the
page and ``errors.py`` say."""

from __future__ import annotations

import pytest

from agentforge_cli.core.define.spec import ToolExecutionRequest
from agentforge_cli.core.run.call_policy import ResultTooLarge
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.core.run.returns import UnserializableResult
from agentforge_cli.errors import AgentForgeError, ToolExecutionError


class Opaque:
    """A value with no JSON form."""


def huge() -> str:
    return "x" * 11


def opaque() -> Opaque:
    return Opaque()


CASES = [(huge, ResultTooLarge, "returned 11 characters, more than the limit of 10"),
         (opaque, UnserializableResult, "Opaque")]


@pytest.mark.parametrize(("function", "signal", "message"), CASES)
def test_the_signal_becomes_the_error_result(function, signal, message):
    executor = LocalToolExecutor(function, max_result_chars=10)
    result = executor.execute(ToolExecutionRequest(name=function.__name__, arguments="{}"))
    assert result.is_error is True
    assert message in result.text


@pytest.mark.parametrize(("function", "signal", "message"), CASES)
def test_a_propagated_signal_is_the_cause_of_an_error_of_the_tree(function, signal, message):
    executor = LocalToolExecutor(function, max_result_chars=10,
                                 propagate_execution_errors=True)
    with pytest.raises(AgentForgeError) as info:
        executor.execute(ToolExecutionRequest(name=function.__name__, arguments="{}"))
    assert type(info.value) is ToolExecutionError
    assert isinstance(info.value.__cause__, signal)
    assert message in str(info.value)
