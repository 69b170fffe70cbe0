"""``CallPolicy``: each kind of failure becomes one text, answered or raised."""

from __future__ import annotations

import time

import pytest

from agentforge_cli.core.define.spec import ToolExecutionResult
from agentforge_cli.core.run.call_policy import CallPolicy, ResultTooLarge
from agentforge_cli.core.run.returns import UnserializableResult
from agentforge_cli.errors import ToolErrorAnswer, ToolExecutionError, ToolTimeoutError

POLICY = CallPolicy()


def test_an_exception_from_the_tool_is_its_message():
    assert POLICY.failure("lookup", KeyError("no issue #99")) == ToolExecutionResult(
        "no issue #99", True)


def test_an_exception_without_a_message_is_its_class_name():
    assert POLICY.failure("lookup", RuntimeError()) == ToolExecutionResult("RuntimeError", True)


def test_an_exit_names_the_tool_and_the_exit():
    assert POLICY.failure("cli", SystemExit(2)) == ToolExecutionResult(
        'Tool "cli" raised SystemExit(2)', True)


def test_an_unserializable_result_names_the_tool():
    failure = UnserializableResult("an object of type Widget, which is not JSON")
    assert POLICY.failure("make", failure) == ToolExecutionResult(
        'Tool "make" returned an object of type Widget, which is not JSON', True)


def test_a_result_past_the_limit_is_the_one_limit_message():
    policy = CallPolicy(max_result_chars=10)
    too_large = policy.too_large("dump", "12 characters")
    assert isinstance(too_large, ResultTooLarge)
    assert policy.failure("dump", too_large) == ToolExecutionResult(
        'Tool "dump" returned 12 characters, more than the limit of 10', True)


def test_a_timeout_is_its_message():
    def slow() -> str:
        time.sleep(5)
        return "late"

    policy = CallPolicy(timeout=0.05)
    with pytest.raises(ToolTimeoutError) as raised:
        policy.call(slow, "slow")
    assert policy.failure("slow", raised.value) == ToolExecutionResult(
        'Tool "slow" timed out after 0.05 s', True)


def test_a_library_gives_its_own_words_and_a_note_goes_first():
    answer = POLICY.failure("fetch", ValueError("boom"), note='"id" was missing',
                            describe=lambda exc: f"Error: {exc}")
    assert answer == ToolExecutionResult('"id" was missing; then: Error: boom', True)


def test_propagation_raises_the_text_chained_to_the_failure():
    policy = CallPolicy(propagate_execution_errors=True)
    failure = ValueError("bad value")
    with pytest.raises(ToolExecutionError, match=r"^bad value$") as raised:
        policy.failure("lookup", failure)
    assert raised.value.__cause__ is failure
    answer = ToolErrorAnswer("Error executing tool lookup: gone", code=-32602)
    with pytest.raises(ToolErrorAnswer) as again:  # already an execution error: as it is
        policy.failure("lookup", answer)
    assert again.value is answer


def test_a_timeout_must_be_positive():
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        CallPolicy(timeout=0)
