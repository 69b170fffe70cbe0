"""``build_local_tools``: its targets, definition errors, duplicates, ``ToolSpecification``."""

from __future__ import annotations

import dataclasses
import sys
import types

import pytest

from agentforge_cli import (
    ToolExecutionRequest,
    ToolService,
    ToolSpecification,
    build_local_tools,
    tool,
    tool_specification_from,
)
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import AgentForgeError, ToolDefinitionError
from sample_tools import crm, shop, weather


def names(tools) -> list[str]:
    return [spec.name for spec in tools]


# --- definition errors -----------------------------------------------------------------------

def bad_signature(a: int, /, b: int, *rest: int, c: int = 0, **extra: int) -> None:
    pass


def test_var_args_kwargs_and_positional_only_are_listed_together():
    with pytest.raises(ToolDefinitionError) as info:
        tool_specification_from(bad_signature)
    message = str(info.value)
    assert "bad_signature" in message
    for parameter in ('"a"', '"rest"', '"extra"'):
        assert parameter in message, f"{parameter} not named in {message!r}"
    assert "positional-only" in message
    assert "*rest" in message or "*args" in message
    assert "**extra" in message or "**kwargs" in message
    assert '"b"' not in message and '"c"' not in message


def test_definition_errors_are_raised_at_scan_time():
    @tool
    def spread(*values: int) -> int:
        return sum(values)

    with pytest.raises(ToolDefinitionError) as info:
        build_local_tools([spread])
    assert "spread" in str(info.value)
    assert "values" in str(info.value)


@pytest.mark.parametrize("bad", [
    pytest.param(lambda *args: None, id="star-args"),
    pytest.param(lambda **kwargs: None, id="star-kwargs"),
])
def test_each_kind_alone_is_refused(bad):
    with pytest.raises(ToolDefinitionError):
        LocalToolExecutor(bad, name="bad")


class Thing:
    pass


def uses_unsupported(thing: Thing, n: int) -> None:
    pass


def test_unsupported_annotation_is_a_definition_error():
    with pytest.raises(ToolDefinitionError) as info:
        tool_specification_from(uses_unsupported)
    message = str(info.value)
    assert "uses_unsupported" in message
    assert '"thing"' in message
    assert "Thing" in message


def unresolvable(x: NoSuchType) -> None:  # noqa: F821
    pass


def test_unresolvable_annotation_is_a_definition_error():
    with pytest.raises(ToolDefinitionError) as info:
        tool_specification_from(unresolvable)
    assert "unresolvable" in str(info.value)
    assert "NoSuchType" in str(info.value)


def test_definition_error_is_under_the_root():
    assert issubclass(ToolDefinitionError, AgentForgeError)


# --- duplicates ------------------------------------------------------------------------------

@tool(name="x")
def first_x() -> str:
    return "1"


@tool(name="x")
def second_x() -> str:
    return "2"


def test_duplicated_tool_name():
    with pytest.raises(ToolDefinitionError) as info:
        build_local_tools([first_x, second_x])
    assert str(info.value) == (
        "Duplicated definition for tool: x (defined by test_discovery:first_x and by "
        "test_discovery:second_x); give one of them another name with @tool(name=...), "
        "or load only one of them")


def test_two_instances_of_the_same_class_are_duplicates():
    with pytest.raises(ToolDefinitionError, match="Duplicated definition for tool: queryCustomer"
                       ) as info:
        build_local_tools([crm.CrmTools(), crm.CrmTools()])
    assert str(info.value).count("sample_tools.crm:CrmTools.queryCustomer") == 2


# --- targets ---------------------------------------------------------------------------------

def test_class_target_is_refused():
    with pytest.raises(AgentForgeError) as info:
        build_local_tools([crm.CrmTools])
    assert "CrmTools" in str(info.value)
    assert "instance" in str(info.value)


def test_instance_target_yields_its_bound_tool_methods():
    instance = crm.CrmTools()
    tools = build_local_tools([instance])
    assert names(tools) == ["queryCustomer"]


def test_function_target():
    tools = build_local_tools([weather.getWeather])
    assert names(tools) == ["getWeather"]
    (executor,) = tools.values()
    result = executor.execute(ToolExecutionRequest(name="getWeather", arguments='{"city":"北京"}'))
    assert result.text.startswith("北京")


def test_single_target_and_mixed_list():
    assert names(build_local_tools(weather)) == ["getWeather"]
    mixed = build_local_tools([weather, crm.CrmTools(), first_x])
    assert sorted(names(mixed)) == ["getWeather", "queryCustomer", "x"]


def test_module_with_class_and_instance_yields_each_tool_once():
    by_module = names(build_local_tools([shop]))
    by_instance = names(build_local_tools([shop.ShopTools()]))
    assert len(by_module) == len(set(by_module))
    assert sorted(by_module) == sorted(by_instance)
    assert len(by_module) >= 5


def make_module() -> types.ModuleType:
    module = types.ModuleType("agentforge_test_tools")

    class Tools:
        @tool
        def alpha(self, n: int) -> int:
            return n + 1

        def not_a_tool(self) -> None:
            pass

    @tool
    def beta(text: str) -> str:
        return text[::-1]

    def helper() -> None:
        pass

    module.Tools = Tools
    module.instance = Tools()
    module.beta = beta
    module.helper = helper
    module.number = 42
    return module


def test_synthetic_module_scan():
    module = make_module()
    sys.modules[module.__name__] = module
    try:
        tools = build_local_tools([module])
    finally:
        del sys.modules[module.__name__]
    assert sorted(names(tools)) == ["alpha", "beta"]
    service = ToolService().tools(tools)
    assert service.execute(ToolExecutionRequest(name="alpha", arguments='{"n":1}')).text == "2"
    assert service.execute(ToolExecutionRequest(name="beta", arguments='{"text":"ab"}')).text == (
        "ba")


def test_module_with_only_a_class_yields_nothing():
    module = types.ModuleType("only_class")
    module.CrmTools = crm.CrmTools
    assert build_local_tools([module]) == {}


def test_inherited_tool_methods_appear_once():
    class Base:
        @tool
        def ping(self) -> str:
            return "base"

    class Child(Base):
        @tool
        def pong(self) -> str:
            return "child"

    assert sorted(names(build_local_tools([Child()]))) == ["ping", "pong"]


# --- ToolSpecification ---------------------------------------------------------------------

def test_tool_specification_is_hashable_and_frozen():
    spec = tool_specification_from(crm.CrmTools().queryCustomer)
    again = tool_specification_from(crm.CrmTools().queryCustomer)
    assert isinstance(spec.parameters, dict)
    assert spec == again
    assert hash(spec) == hash(again)
    assert {spec: 1}[again] == 1
    assert len({spec, again}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "other"  # type: ignore[misc]


def test_tool_specification_fields():
    spec = ToolSpecification(name="n", description="d",
                             parameters={"type": "object", "properties": {}, "required": []})
    assert (spec.name, spec.description) == ("n", "d")
    other = ToolSpecification(name="n", description="d",
                              parameters={"type": "object", "properties": {"a": {}},
                                          "required": []})
    assert spec != other
    assert len({spec, other}) == 2


def test_build_local_tools_returns_specification_keys():
    tools = build_local_tools([crm.CrmTools(), weather])
    for spec, executor in tools.items():
        assert isinstance(spec, ToolSpecification)
        assert hasattr(executor, "execute")


def test_skip_problems_leaves_out_only_the_tool_that_cannot_be_defined():
    @tool
    def good(a: int) -> int:
        return a

    @tool
    def bad(*labels: str) -> str:
        return ""

    said: list[str] = []
    table = build_local_tools([good, bad], skip_problems=said.append)
    assert [spec.name for spec in table] == ["good"]
    assert len(said) == 1 and "*labels is not supported" in said[0]
    with pytest.raises(ToolDefinitionError):  # nothing would load: still an error
        build_local_tools([bad], skip_problems=said.append)
    with pytest.raises(ToolDefinitionError):  # without it: every problem raised, as before
        build_local_tools([good, bad])
