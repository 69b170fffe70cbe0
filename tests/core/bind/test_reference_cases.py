"""Reference cases: one test per behaviour the harness promises, end to end through
``build_local_tools``, the executor and ``ToolService`` (the CRM example, coercion, defaults,
error switches, argument repair)."""

from __future__ import annotations

import logging
from decimal import Decimal
from enum import Enum
from typing import Annotated

import pytest

from agentforge_cli import (
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    P,
    ToolExecutionRequest,
    ToolService,
    ToolSpecification,
    build_local_tools,
    tool,
)
from agentforge_cli.core.bind.arguments import parse_arguments
from agentforge_cli.core.observe.calllog import LoggingToolExecutor
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ArgumentError, ToolArgumentsError, ToolExecutionError
from sample_tools.crm import CrmTools


class Level(Enum):
    VIP = "vip"
    NORMAL = "normal"


class Recorder:
    """Tools recording what they receive."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    @tool(name="getWeather", description="查询城市天气")
    def get_weather(self, city_name: Annotated[str, P("城市名", name="city")]) -> str:
        self.calls.append((city_name,))
        return f"weather:{city_name}"

    @tool
    def numbers(self, i: int, l64: Int64, s16: Int16, b8: Int8, i32: Int32, f32: Float32,
                d: float, big: Decimal, huge: int) -> None:
        self.calls.append((i, l64, s16, b8, i32, f32, d, big, huge))

    @tool
    def primitives(self, i: int, f: float, b: bool, s: str, level: Level) -> None:
        self.calls.append((i, f, b, s, level))

    @tool
    def level(self, level: Level) -> str:
        self.calls.append((level,))
        return level.name

    @tool
    def tags(self, tags: list[str]) -> int:
        self.calls.append((tags,))
        return len(tags)

    @tool
    def scores(self, scores: dict[str, int]) -> int:
        self.calls.append((scores,))
        return sum(scores.values())

    @tool
    def void(self, note: str) -> None:
        self.calls.append((note,))

    @tool
    def profile(self, name: str) -> dict:
        return {"name": name, "level": Level.VIP, "score": Decimal("9.50"), "tags": ["a", "b"]}

    @tool
    def boom(self, reason: str) -> str:
        raise RuntimeError(f"exploded: {reason}")


def executor_for(recorder: Recorder, name: str, **options) -> LocalToolExecutor:
    tools = build_local_tools([recorder], **options)
    by_name = {spec.name: executor for spec, executor in tools.items()}
    return by_name[name]


def call(executor, arguments: str, name: str = "x"):
    return executor.execute(ToolExecutionRequest(id="call_1", name=name, arguments=arguments))


def test_should_build_tools_from_annotated_object():
    tools = build_local_tools([CrmTools()])
    assert len(tools) == 1
    (spec, executor), = tools.items()
    assert isinstance(spec, ToolSpecification)
    assert spec.name == "queryCustomer"
    assert spec.description == "按客户名查询客户信息"
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "客户名称"},
            "limit": {"type": "integer", "description": "返回条数"},
        },
        "required": ["name", "limit"],
        "additionalProperties": False,
    }
    assert isinstance(executor, LocalToolExecutor)
    # Only @tool methods become tools.
    names = {s.name for s in build_local_tools([Recorder()])}
    assert names == {"getWeather", "numbers", "primitives", "level", "tags", "scores", "void",
                     "profile", "boom"}


def test_should_decorate_executor_with_logging(caplog):
    plain = build_local_tools([CrmTools()], logging=False)
    logged = build_local_tools([CrmTools()], logging=True)
    assert list(plain) == list(logged)  # same specifications either way
    (executor,) = logged.values()
    assert isinstance(executor, LoggingToolExecutor)
    assert isinstance(executor.delegate, LocalToolExecutor)
    assert not isinstance(next(iter(plain.values())), LoggingToolExecutor)
    with caplog.at_level(logging.INFO, logger="agentforge.tools"):
        result = executor.execute(ToolExecutionRequest(
            id="call_1", name="queryCustomer", arguments='{"name":"长路","limit":5}'),
            "session-1")
    assert result.text == "customer:长路,limit:5"
    messages = [r.getMessage() for r in caplog.records if r.name == "agentforge.tools"]
    assert len(messages) >= 2
    assert "queryCustomer" in messages[0] and "session-1" in messages[0]
    assert "customer:长路,limit:5" in messages[-1]


@pytest.mark.parametrize("arguments", [None, "", "   ", "\n\t", "null"])
def test_should_return_empty_map_for_null_or_empty_input(arguments):
    assert parse_arguments(arguments) == {}
    # The build side of the same edge: no targets, no tools.
    assert build_local_tools(None) == {}
    assert build_local_tools([]) == {}


def test_should_bind_string_argument_using_p_annotation():
    recorder = Recorder()
    executor = executor_for(recorder, "getWeather")
    assert list(executor.specification.parameters["properties"]) == ["city"]
    result = call(executor, '{"city":"北京"}')
    assert result.text == "weather:北京"
    assert recorder.calls == [("北京",)]
    # The Python name is not the JSON key: an unknown key, the JSON key suggested ...
    recorder.calls.clear()
    with pytest.raises(ArgumentError, match=r'"city_name" is not a parameter of tool '
                                            r'"getWeather"; did you mean "city"\?'):
        call(executor, '{"city_name":"上海"}')
    # ... and in the lenient mode, ignored: the parameter is missing
    lenient = executor_for(recorder, "getWeather", strict=False)
    call(lenient, '{"city_name":"上海"}')
    assert recorder.calls == [(None,)]


def test_should_coerce_numeric_arguments():
    recorder = Recorder()
    executor = executor_for(recorder, "numbers")
    result = call(executor, '{"i":"42","l64":9007199254740993,"s16":-32768,"b8":127.0,'
                            '"i32":"2147483647","f32":1.5,"d":"2.25","big":0.1,'
                            '"huge":123456789012345678901234567890}')
    assert result == ("Success", False)
    values = recorder.calls[0]
    assert values == (42, 9007199254740993, -32768, 127, 2147483647, 1.5, 2.25,
                      Decimal("0.1"), 123456789012345678901234567890)
    assert [type(v) for v in values] == [int, int, int, int, int, float, float, Decimal, int]
    with pytest.raises(ArgumentError, match=r'Argument "i" has non-integer value for int: <5\.5>'):
        call(executor, '{"i":5.5}')
    with pytest.raises(ArgumentError, match=r'"b8" is out of range for Int8: <128>'):
        call(executor, '{"i":1,"l64":1,"s16":1,"b8":128}')


def test_should_use_primitive_default_when_argument_missing():
    """The lenient mode only; an enum has no default that is one of its values."""
    recorder = Recorder()
    executor = executor_for(recorder, "primitives", strict=False)
    assert call(executor, '{"level":"VIP"}').is_error is False
    values = recorder.calls[0]
    assert values == (0, 0.0, False, None, Level.VIP)
    assert type(values[0]) is int and type(values[1]) is float and type(values[2]) is bool
    with pytest.raises(ArgumentError, match='"level" of tool "primitives" is missing, and the '
                                            "lenient default None is not a valid enum value"):
        call(executor, "{}")
    with pytest.raises(ArgumentError, match='Required parameter "i" of tool "primitives" is '
                                            "missing; primitives takes i"):
        call(executor_for(recorder, "primitives"), '{"level":"VIP"}')


@pytest.mark.parametrize("written", ["VIP", "vip", "Vip", "vIp"])
def test_should_coerce_enum_name_ignoring_case(written):
    recorder = Recorder()
    executor = executor_for(recorder, "level")
    assert call(executor, f'{{"level":"{written}"}}').text == "VIP"
    assert recorder.calls == [(Level.VIP,)]
    with pytest.raises(ArgumentError, match="is not a valid enum value for Level: <gold>"):
        call(executor, '{"level":"gold"}')


def test_should_convert_json_string_into_list_collection():
    recorder = Recorder()
    executor = executor_for(recorder, "tags")
    assert call(executor, '{"tags":"[\\"a\\",\\"b\\",\\"c\\"]"}').text == "3"
    assert recorder.calls == [(["a", "b", "c"],)]
    assert type(recorder.calls[0][0]) is list


def test_should_pass_through_native_list():
    recorder = Recorder()
    executor = executor_for(recorder, "tags")
    assert call(executor, '{"tags":["x","y"]}').text == "2"
    assert recorder.calls == [(["x", "y"],)]


def test_should_convert_json_string_into_map():
    recorder = Recorder()
    executor = executor_for(recorder, "scores")
    assert call(executor, '{"scores":"{\\"math\\":90,\\"art\\":\\"7\\"}"}').text == "97"
    assert recorder.calls == [({"math": 90, "art": 7},)]
    assert type(recorder.calls[0][0]) is dict


def test_should_return_success_for_void_method():
    recorder = Recorder()
    executor = executor_for(recorder, "void")
    assert call(executor, '{"note":"hi"}') == ("Success", False)
    assert recorder.calls == [("hi",)]


def test_should_serialize_non_string_return_value_as_json():
    executor = executor_for(Recorder(), "profile")
    result = call(executor, '{"name":"长路"}')
    assert result.is_error is False
    assert result.text == '{"name":"长路","level":"VIP","score":9.50,"tags":["a","b"]}'


def test_should_return_thrown_message_by_default():
    executor = executor_for(Recorder(), "boom")
    result = call(executor, '{"reason":"disk"}')
    assert result.text == "exploded: disk"
    assert result.is_error is True


def test_should_throw_wrapped_execution_exception_when_propagating():
    executor = executor_for(Recorder(), "boom", propagate_execution_errors=True)
    with pytest.raises(ToolExecutionError) as info:
        call(executor, '{"reason":"disk"}')
    assert isinstance(info.value.__cause__, RuntimeError)
    assert str(info.value.__cause__) == "exploded: disk"
    assert "exploded: disk" in str(info.value)


def test_should_wrap_arguments_exception_when_configured():
    unwrapped = executor_for(Recorder(), "level")
    with pytest.raises(ArgumentError) as plain:
        call(unwrapped, '{"level":"gold"}')
    assert not isinstance(plain.value, ToolArgumentsError)
    assert isinstance(plain.value, ValueError)

    wrapped = executor_for(Recorder(), "level", wrap_argument_errors=True)
    with pytest.raises(ToolArgumentsError) as info:
        call(wrapped, '{"level":"gold"}')
    assert isinstance(info.value.__cause__, ArgumentError)
    assert "is not a valid enum value for Level: <gold>" in str(info.value)


@pytest.mark.parametrize("arguments", [
    '{"name":"长路","limit":5,}',
    '{"name":"长路","limit":5 , }',
    '{"name":"长路","limit":5,\n}',
])
def test_should_tolerate_trailing_comma_when_parsing_arguments(arguments):
    assert parse_arguments(arguments) == {"name": "长路", "limit": 5}
    service = ToolService()
    service.tools(build_local_tools([CrmTools()]))
    result = service.execute(ToolExecutionRequest(id="c", name="queryCustomer",
                                                  arguments=arguments))
    assert result == ("customer:长路,limit:5", False)


def test_should_convert_double_encoded_json_string():
    recorder = Recorder()
    executor = executor_for(recorder, "tags")
    # The list encoded twice: a string holding a quoted, escaped JSON string.
    assert call(executor, '{"tags":"\\"[\\\\\\"a\\\\\\",\\\\\\"b\\\\\\"]\\""}').text == "2"
    assert recorder.calls == [(["a", "b"],)]
    # And the whole argument object encoded twice.
    assert parse_arguments('"{\\"name\\":\\"长路\\",\\"limit\\":5}"') == {"name": "长路",
                                                                          "limit": 5}


def test_should_close_the_crm_loop_through_tool_service():
    tools = build_local_tools([CrmTools()], logging=False)
    service = ToolService()
    service.tools(tools)
    result = service.execute(ToolExecutionRequest(id="call_1", name="queryCustomer",
                                                  arguments='{"name":"长路","limit":5}'),
                             memory_id="session-1")
    assert result.text == "customer:长路,limit:5"
    assert result.is_error is False
    # memory_id defaults to None
    again = service.execute(ToolExecutionRequest(id="call_2", name="queryCustomer",
                                                 arguments='{"name":"长路","limit":"5"}'))
    assert again.text == "customer:长路,limit:5"
