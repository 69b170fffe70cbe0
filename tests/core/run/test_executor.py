"""The executor: its error switches, async tools, wrappers and proxies."""

from __future__ import annotations

import asyncio
import functools
import threading
from typing import Annotated

import pytest

from agentforge_cli import (
    P,
    ToolExecutionRequest,
    ToolService,
    build_local_tools,
    tool,
)
from agentforge_cli.core.define.spec import ToolExecutionResult, ToolExecutor
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import (
    AgentForgeError,
    ArgumentError,
    ToolArgumentsError,
    ToolExecutionError,
    ToolTimeoutError,
)


class QuotaExceeded(Exception):
    pass


@tool
def fail(kind: str, count: int = 0) -> str:
    """Raise on purpose."""
    if kind == "value":
        raise ValueError("bad value inside the tool")
    if kind == "empty":
        raise RuntimeError()
    if kind == "custom":
        raise QuotaExceeded()
    if kind == "key":
        raise KeyError("k")
    if kind == "interrupt":
        raise KeyboardInterrupt
    return f"ok:{count}"


def execute(executor, arguments: str, name: str = "fail"):
    return executor.execute(ToolExecutionRequest(id="c1", name=name, arguments=arguments))


# --- propagate execution errors --------------------------------------------------------------

def test_execution_error_becomes_error_result_by_default():
    result = execute(LocalToolExecutor(fail), '{"kind":"value"}')
    assert result == ("bad value inside the tool", True)
    assert isinstance(result, ToolExecutionResult)
    assert result.text == "bad value inside the tool"
    assert result.is_error is True


@pytest.mark.parametrize(("kind", "text"), [
    ("empty", "RuntimeError"),
    ("custom", "QuotaExceeded"),
    ("key", "k"),  # a KeyError's message, without its repr quotes
])
def test_exception_message_or_class_name(kind, text):
    result = execute(LocalToolExecutor(fail), f'{{"kind":"{kind}"}}')
    assert result == (text, True)


def test_execution_error_propagates_when_configured():
    executor = LocalToolExecutor(fail, propagate_execution_errors=True)
    with pytest.raises(ToolExecutionError) as info:
        execute(executor, '{"kind":"value"}')
    error = info.value
    assert isinstance(error, AgentForgeError)
    assert isinstance(error.__cause__, ValueError)
    assert str(error.__cause__) == "bad value inside the tool"
    assert "bad value inside the tool" in str(error)


def test_propagated_empty_message_names_the_class():
    executor = LocalToolExecutor(fail, propagate_execution_errors=True)
    with pytest.raises(ToolExecutionError) as info:
        execute(executor, '{"kind":"custom"}')
    assert isinstance(info.value.__cause__, QuotaExceeded)
    assert "QuotaExceeded" in str(info.value)


def test_value_error_raised_by_the_tool_is_not_an_argument_error():
    executor = LocalToolExecutor(fail, wrap_argument_errors=True)
    result = execute(executor, '{"kind":"value"}')
    assert result.is_error is True  # an execution error, not raised as an argument error


def test_keyboard_interrupt_raised_by_the_tool_is_its_failure():
    # a real Ctrl-C still stops the process: tests/core/run/test_tool_exits.py
    result = execute(LocalToolExecutor(fail), '{"kind":"interrupt"}')
    assert result == ('Tool "fail" raised KeyboardInterrupt', True)


# --- wrap argument errors --------------------------------------------------------------------

def test_argument_error_is_raised_as_is_by_default():
    with pytest.raises(ArgumentError) as info:
        execute(LocalToolExecutor(fail), '{"kind":"ok","count":"many"}')
    error = info.value
    assert isinstance(error, ValueError)
    assert isinstance(error, AgentForgeError)
    assert not isinstance(error, ToolArgumentsError)
    assert 'Argument "count"' in str(error)


def test_argument_error_is_wrapped_when_configured():
    executor = LocalToolExecutor(fail, wrap_argument_errors=True)
    with pytest.raises(ToolArgumentsError) as info:
        execute(executor, '{"kind":"ok","count":"many"}')
    error = info.value
    assert isinstance(error, AgentForgeError)
    assert isinstance(error.__cause__, ArgumentError)
    assert 'Argument "count"' in str(error)
    assert "<many>" in str(error)


def test_parse_error_is_wrapped_when_configured():
    executor = LocalToolExecutor(fail, wrap_argument_errors=True)
    with pytest.raises(ToolArgumentsError) as info:
        execute(executor, "[1,2]")
    assert isinstance(info.value.__cause__, ArgumentError)


def test_switches_are_independent():
    both = LocalToolExecutor(fail, wrap_argument_errors=True, propagate_execution_errors=True)
    with pytest.raises(ToolArgumentsError):
        execute(both, '{"kind":"ok","count":1.5}')
    with pytest.raises(ToolExecutionError):
        execute(both, '{"kind":"value"}')
    propagate_only = LocalToolExecutor(fail, propagate_execution_errors=True)
    with pytest.raises(ArgumentError) as info:
        execute(propagate_only, '{"kind":"ok","count":1.5}')
    assert not isinstance(info.value, ToolExecutionError)
    assert execute(both, '{"kind":"ok","count":2}') == ("ok:2", False)


def test_switches_default_off():
    executor = LocalToolExecutor(fail)
    assert executor.wrap_argument_errors is False
    assert executor.propagate_execution_errors is False


def test_build_local_tools_passes_switches():
    tools = build_local_tools([fail], wrap_argument_errors=True, propagate_execution_errors=True)
    (executor,) = tools.values()
    with pytest.raises(ToolArgumentsError):
        execute(executor, '{"count":"x"}')
    with pytest.raises(ToolExecutionError):
        execute(executor, '{"kind":"value"}')


def test_service_turns_argument_errors_into_results_even_when_wrapped():
    service = ToolService().tools(build_local_tools([fail], wrap_argument_errors=True))
    result = service.execute(ToolExecutionRequest(name="fail",
                                                  arguments='{"kind":"value","count":"x"}'))
    assert result.is_error is True
    assert 'Argument "count"' in result.text


def test_service_raises_only_when_executor_propagates():
    service = ToolService().tools(build_local_tools([fail], propagate_execution_errors=True))
    with pytest.raises(ToolExecutionError):
        service.execute(ToolExecutionRequest(name="fail", arguments='{"kind":"value"}'))
    default = ToolService().tools(build_local_tools([fail]))
    assert default.execute(ToolExecutionRequest(name="fail", arguments='{"kind":"value"}')) == (
        "bad value inside the tool", True)


# --- async tools -----------------------------------------------------------------------------

class AsyncTools:
    def __init__(self) -> None:
        self.seen: list[int] = []

    @tool
    async def double(self, n: int) -> int:
        await asyncio.sleep(0)
        self.seen.append(n)
        return n * 2

    @tool
    async def explode(self) -> str:
        await asyncio.sleep(0)
        raise QuotaExceeded("async quota")


def test_async_tool_without_a_running_loop():
    tools = AsyncTools()
    executor = LocalToolExecutor(tools.double)
    for n in range(3):
        assert execute(executor, f'{{"n":"{n}"}}', "double") == (str(n * 2), False)
    assert tools.seen == [0, 1, 2]


def test_async_tool_from_inside_a_running_loop():
    tools = AsyncTools()
    service = ToolService().tools(build_local_tools([tools]))

    async def main():
        # sync call from async code: must not deadlock or re-enter the running loop
        first = service.execute(ToolExecutionRequest(name="double", arguments='{"n":21}'))
        await asyncio.sleep(0)
        second = service.execute(ToolExecutionRequest(name="double", arguments='{"n":1}'))
        return first, second

    first, second = asyncio.run(main())
    assert first == ("42", False)
    assert second == ("2", False)
    assert tools.seen == [21, 1]


def test_async_tool_errors_follow_the_policy():
    tools = AsyncTools()
    assert execute(LocalToolExecutor(tools.explode), "{}", "explode") == ("async quota", True)
    with pytest.raises(ToolExecutionError) as info:
        execute(LocalToolExecutor(tools.explode, propagate_execution_errors=True), "{}",
                "explode")
    assert isinstance(info.value.__cause__, QuotaExceeded)

    async def inside():
        return execute(LocalToolExecutor(tools.explode), "{}", "explode")

    assert asyncio.run(inside()) == ("async quota", True)


def test_async_tool_in_a_worker_thread():
    tools = AsyncTools()
    executor = LocalToolExecutor(tools.double)
    out = []
    thread = threading.Thread(target=lambda: out.append(execute(executor, '{"n":4}', "double")))
    thread.start()
    thread.join(10)
    assert out == [("8", False)]


# --- wrappers and proxies --------------------------------------------------------------------

def counting(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        wrapper.calls.append((args, kwargs))
        return "wrapped:" + str(func(*args, **kwargs))

    wrapper.calls = []
    return wrapper


@tool(name="greet")
@counting
def greet(name: Annotated[str, P("who", name="who")], times: int = 1) -> str:
    """Greet someone."""
    return name * times


@counting
@tool(name="shout")
def shout(text: str) -> str:
    return text.upper()


def test_wrapper_names_and_types_come_from_wrapped_function():
    executor = LocalToolExecutor(greet)
    spec = executor.specification
    assert spec.name == "greet"
    assert spec.description == "Greet someone."
    properties = spec.parameters["properties"]
    assert list(properties) == ["who", "times"]
    assert properties["who"]["type"] == "string"
    assert properties["who"]["description"] == "who"
    assert properties["times"]["type"] == "integer"
    assert spec.parameters["required"] == ["who"]


def test_call_goes_through_the_wrapper():
    greet.calls.clear()
    result = execute(LocalToolExecutor(greet), '{"who":"ab","times":"2"}', "greet")
    assert result == ("wrapped:abab", False)
    assert len(greet.calls) == 1


def test_wrapper_around_a_tool_keeps_its_tool_name():
    shout.calls.clear()
    tools = build_local_tools([shout])
    (spec,) = tools
    assert spec.name == "shout"
    assert list(spec.parameters["properties"]) == ["text"]
    result = tools[spec].execute(ToolExecutionRequest(name="shout", arguments='{"text":"hi"}'))
    assert result == ("wrapped:HI", False)
    assert len(shout.calls) == 1


class Repo:
    def __init__(self) -> None:
        self.calls = 0

    @tool
    @counting
    def find(self, key: str, limit: int = 1) -> str:
        self.calls += 1
        return f"{key}:{limit}"


def test_wrapped_method_on_an_instance():
    repo = Repo()
    tools = build_local_tools([repo])
    (spec,) = tools
    assert list(spec.parameters["properties"]) == ["key", "limit"]
    result = tools[spec].execute(ToolExecutionRequest(name="find",
                                                      arguments='{"key":"a","limit":"3"}'))
    assert result == ("wrapped:a:3", False)
    assert repo.calls == 1


def test_proxy_without_wrapped_uses_the_original_for_names():
    calls = []

    def original(city: str, days: int) -> str:
        return f"{city}/{days}"

    def proxy(*args, **kwargs):  # an AOP-style proxy with no __wrapped__
        calls.append((args, kwargs))
        return "proxied:" + original(*args, **kwargs)

    executor = LocalToolExecutor(proxy, original=original, name="forecast")
    assert executor.specification.name == "forecast"
    assert list(executor.specification.parameters["properties"]) == ["city", "days"]
    result = execute(executor, '{"city":"杭州","days":"2"}', "forecast")
    assert result == ("proxied:杭州/2", False)
    assert len(calls) == 1


def test_keyword_only_parameters_are_passed_by_keyword():
    def kw(a: int, *, b: str, c: bool = False) -> str:
        return f"{a}|{b}|{c}"

    result = execute(LocalToolExecutor(kw), '{"b":"x","a":1,"c":true}', "kw")
    assert result == ("1|x|True", False)


def test_signature_is_read_once_at_registration():
    def late(x: int) -> str:
        return f"{type(x).__name__}:{x}"

    executor = LocalToolExecutor(late)
    late.__annotations__ = {"x": str, "return": str}  # changed after registration
    assert execute(executor, '{"x":"5"}', "late") == ("int:5", False)


# --- protocol, timeout -----------------------------------------------------------------------

def test_local_executor_is_a_tool_executor():
    assert isinstance(LocalToolExecutor(fail), ToolExecutor)


def test_service_accepts_any_executor():
    class Constant:
        def execute(self, request, memory_id=None):
            return ToolExecutionResult(f"{request.name}:{memory_id}", False)

    spec = LocalToolExecutor(fail).specification
    service = ToolService().tools({spec: Constant()})
    assert service.execute(ToolExecutionRequest(name="fail"), memory_id="m") == ("fail:m", False)


def test_timeout_is_an_execution_error():
    release = threading.Event()

    def slow() -> str:
        release.wait(10)
        return "late"

    try:
        executor = LocalToolExecutor(slow, timeout=0.2)
        result = execute(executor, "{}", "slow")
        assert result.is_error is True
        assert "timed out" in result.text
        with pytest.raises(ToolTimeoutError):
            execute(LocalToolExecutor(slow, timeout=0.2, propagate_execution_errors=True), "{}",
                    "slow")
    finally:
        release.set()


def test_rebound_calls_the_other_instance_on_the_shared_fast_path():
    """``rebound``: the same tool for another instance (fresh tools for each conversation
    of a replay) calls that instance, compiles nothing again, and keeps the settings."""
    from agentforge_cli import tool as tool_decorator

    class Counter:
        def __init__(self) -> None:
            self.count = 0

        @tool_decorator
        def bump(self, by: int) -> str:
            """Add to the count."""
            self.count += by
            return str(self.count)

    first, second = Counter(), Counter()
    base = LocalToolExecutor(first.bump, strict=True)
    other = base.rebound(second.bump)  # before the base ever ran: compiled once, here
    code = base.execute.__code__
    assert other.execute.__code__ is code and other.strict
    assert other.execute(ToolExecutionRequest(id="a", name="bump", arguments='{"by": 2}')
                         ).text == "2"
    assert (first.count, second.count) == (0, 2)
    assert base.execute(ToolExecutionRequest(id="b", name="bump", arguments='{"by": 5}')
                        ).text == "5"
    again = base.rebound(Counter().bump)
    assert again.execute.__code__ is code
    with pytest.raises(ArgumentError, match='"by"'):  # strict: missing is refused, as in base
        again.execute(ToolExecutionRequest(id="c", name="bump", arguments="{}"))
