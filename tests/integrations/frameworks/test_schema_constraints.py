"""``--binding agentforge`` enforces the constraints each library declares
(``frameworks/constraints.py``), with the real libraries: the tools of
``constrained_tools.py``, bound by agentforge, refuse what their schema refuses and run
with what it allows; ``--binding native`` still answers in the library's words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import constrained_tools
import pytest

from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolExecutionResult
from agentforge_cli.core.run.service import ToolService
from agentforge_cli.errors import ArgumentError
from agentforge_cli.integrations.frameworks import read_foreign
from agentforge_cli.integrations.frameworks.foreign import foreign_executor

TOOLS = Path(__file__).resolve().parent / "constrained_tools.py"

REFUSED = [  # arguments, and the start of the refusal (the library's name follows)
    ({"name": "web", "replicas": 99}, 'Argument "replicas" must be <= 50 (declared in the'),
    ({"name": "web", "replicas": 0}, 'Argument "replicas" must be >= 1 (declared in the'),
    ({"name": "checkout-service-eu", "replicas": 3},
     'Argument "name" must be at most 12 characters long (declared in the'),
    ({"name": "Web_1", "replicas": 3},
     'Argument "name" must match the pattern "^[a-z-]+$" (declared in the'),
    ({"name": "web", "replicas": 3, "tier": "gold"}, 'Argument "tier" '),
]
ACCEPTED = [  # arguments, and the answer
    ({"name": "web", "replicas": 50}, "web scaled to 50 (basic)"),
    ({"name": "checkout-eu", "replicas": 1, "tier": "premium"},
     "checkout-eu scaled to 1 (premium)"),
    ({"name": "web", "replicas": "7"}, "web scaled to 7 (basic)"),  # a repair still runs
]


def _call(obj: Any, arguments: Any, *, strict: bool, binding: str = "agentforge",
          name: str = "scale_service") -> ToolExecutionResult:
    [read] = [tool for tool in read_foreign(obj, "test") if tool.specification.name == name]
    executor = foreign_executor(read, binding=binding, strict=strict)  # type: ignore[arg-type]
    assert executor.binding == binding
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolService().tools({read.specification: executor}).execute(
        ToolExecutionRequest(id="call_1", name=name, arguments=text))


def _refuses_and_accepts(obj: Any, library: str) -> None:
    for strict in (False, True):
        for arguments, start in REFUSED:
            result = _call(obj, arguments, strict=strict)
            assert result.is_error, (strict, arguments, result)
            assert result.text.startswith(start), (strict, result.text)
            assert result.text.endswith('(tool "scale_service")'), result.text
            if "declared in the" in start:
                assert f"(declared in the {library} schema), received <" in result.text
        for arguments, answer in ACCEPTED:
            assert _call(obj, arguments, strict=strict) == ToolExecutionResult(answer, False)


def test_fastmcp_annotated_field_constraints_are_enforced() -> None:
    _refuses_and_accepts(constrained_tools.fastmcp_server, "FastMCP")


def test_langchain_tool_function_constraints_are_enforced() -> None:
    _refuses_and_accepts(constrained_tools.langchain_scale, "LangChain")


def test_langchain_args_schema_constraints_are_enforced() -> None:
    # the function's signature is plain: the constraints are the args_schema model's only
    _refuses_and_accepts(constrained_tools.langchain_args_scale, "LangChain")


def test_pydantic_ai_conint_and_constr_are_enforced() -> None:
    _refuses_and_accepts(constrained_tools.pydantic_ai_scale, "pydantic-ai")


def test_openai_agents_annotated_types_marks_are_enforced() -> None:
    _refuses_and_accepts(constrained_tools.openai_agents_scale, "OpenAI Agents SDK")


def test_smolagents_inputs_constraints_are_enforced() -> None:
    _refuses_and_accepts(constrained_tools.smolagents_scale, "smolagents")
    # the tier is a plain str for the function: only the inputs' enum refuses "gold"
    refused = _call(constrained_tools.smolagents_scale,
                    {"name": "web", "replicas": 3, "tier": "gold"}, strict=True)
    assert refused.text == ('Argument "tier" must be one of "basic", "premium" (declared in '
                            'the smolagents schema), received <gold> (tool "scale_service")')
    # its "any" is a string in the schema: a type is the binding's business, not refused
    anything = _call(constrained_tools.smolagents_scale,
                     {"name": "web", "replicas": 3, "note": 5}, strict=True)
    assert anything == ToolExecutionResult("web scaled to 3 (basic)", False)


def test_a_union_is_checked_against_the_member_the_value_is() -> None:
    def label(arguments: dict[str, Any]) -> ToolExecutionResult:
        return _call(constrained_tools.label_run, arguments, strict=True, name="label_run")

    assert label({"label": "abcd"}).text.startswith(
        'Argument "label" must be at most 3 characters long (declared in the LangChain '
        "schema), received <abcd>")
    assert label({"label": 12}).text.startswith('Argument "label" must be <= 9 (declared')
    assert label({"note": 4, "label": 1}).text.startswith(
        'Argument "note" must be <= 3 (declared')
    assert label({"label": "abc"}) == ToolExecutionResult("'abc' None", False)
    assert label({"label": 9, "note": 3}) == ToolExecutionResult("9 3", False)


def test_constraints_inside_lists_and_nested_objects() -> None:
    server = constrained_tools.fastmcp_server
    for strict in (False, True):
        port = _call(server, {"name": "web", "replicas": 2, "ports": [80, 70000]},
                     strict=strict)
        assert port == ToolExecutionResult(
            'Argument "ports[1]" must be <= 65535 (declared in the FastMCP schema), received '
            '<70000> (tool "scale_service")', True)
        cpu = _call(server, {"name": "web", "replicas": 2, "limits": {"cpu": 0}},
                    strict=strict)
        assert cpu == ToolExecutionResult(
            'Argument "limits.cpu" must be > 0 (declared in the FastMCP schema), received <0> '
            '(tool "scale_service")', True)
        fine = _call(server, {"name": "web", "replicas": 2, "ports": [80, 443],
                              "limits": {"cpu": 8}}, strict=strict)
        assert fine == ToolExecutionResult("web scaled to 2 (basic)", False)


def test_a_pattern_python_cannot_read_is_left_the_rest_is_checked() -> None:
    def greet(name: str) -> ToolExecutionResult:
        return _call(constrained_tools.greet, {"name": name}, strict=True, name="greet")

    assert greet("Zoë") == ToolExecutionResult("hello Zoë", False)
    assert greet("Zoë12") == ToolExecutionResult("hello Zoë12", False)  # its \p{L} is not checked
    assert greet("Bartholomew") == ToolExecutionResult(
        'Argument "name" must be at most 5 characters long (declared in the LangChain '
        'schema), received <Bartholomew> (tool "greet")', True)


def test_a_secret_is_masked_in_the_refusal() -> None:
    refused = _call(constrained_tools.rotate_token,
                    {"service": "web", "api_token": "sk-short-1234"}, strict=True,
                    name="rotate_token")
    assert refused == ToolExecutionResult(
        'Argument "api_token" must be at least 20 characters long (declared in the LangChain '
        'schema), received <***> (tool "rotate_token")', True)
    assert "sk-short" not in refused.text
    ok = _call(constrained_tools.rotate_token,
               {"service": "web", "api_token": "sk-" + "x" * 20}, strict=True,
               name="rotate_token")
    assert ok == ToolExecutionResult("web: token of 23 characters", False)


def test_a_default_is_not_checked_unless_sent() -> None:
    tool = constrained_tools.pydantic_ai_priority
    for strict in (False, True):
        unset = _call(tool, {"service": "web"}, strict=strict, name="set_priority")
        assert unset == ToolExecutionResult("web: priority 0", False)
        sent = _call(tool, {"service": "web", "priority": 0}, strict=strict,
                     name="set_priority")
        assert sent.is_error
        assert sent.text.startswith('Argument "priority" must be >= 1 (declared in the '
                                    "pydantic-ai schema), received <0>")
        null = _call(tool, {"service": "web", "priority": None}, strict=strict,
                     name="set_priority")
        assert null == ToolExecutionResult("web: priority 0", False)  # null is not sent
    # a required argument missing: refused by the strict binding, and by the lenient
    # one too where the value it fills in (0) breaks the schema's minimum
    server = constrained_tools.fastmcp_server
    strict = _call(server, {"name": "web"}, strict=True)
    assert strict.is_error and strict.text.startswith(
        'Required parameter "replicas" of tool "scale_service" is missing; scale_service '
        "takes name (string <= 12 chars), replicas (integer 1..50)")
    assert _call(server, {"name": "web"}, strict=False) == ToolExecutionResult(
        'Required parameter "replicas" is missing, and the lenient default 0 must be >= 1 '
        '(declared in the FastMCP schema); send a value (tool "scale_service")', True)


def test_the_refusal_is_an_argument_error_before_the_function_runs(monkeypatch) -> None:
    ran: list[Any] = []
    monkeypatch.setattr(constrained_tools, "_answer", lambda *args: ran.append(args) or "ran")
    [read] = read_foreign(constrained_tools.fastmcp_server, "test")
    executor = foreign_executor(read, binding="agentforge", strict=True)
    with pytest.raises(ArgumentError) as info:
        executor.execute(ToolExecutionRequest(id="c", name="scale_service",
                                              arguments='{"name": "web", "replicas": 51}'))
    assert (info.value.parameter_path, info.value.received) == ("replicas", 51)
    assert info.value.expected == "must be <= 50"
    with pytest.raises(ArgumentError):
        executor.bind_arguments('{"name": "web", "replicas": 51}')

    async def in_a_loop() -> ToolExecutionResult:
        return await executor.aexecute(ToolExecutionRequest(
            id="c", name="scale_service", arguments='{"name": "web", "replicas": 51}'))

    import asyncio

    with pytest.raises(ArgumentError):
        asyncio.run(in_a_loop())
    assert ran == []
    fine = executor.execute(ToolExecutionRequest(id="c", name="scale_service",
                                                 arguments='{"name": "web", "replicas": 5}'))
    assert (fine, ran) == (ToolExecutionResult("ran", False), [("web", 5, "basic")])


def test_every_path_of_the_executor_checks() -> None:
    from agentforge_cli.errors import ToolArgumentsError

    [read] = read_foreign(constrained_tools.langchain_scale, "test")
    too_many = ToolExecutionRequest(id="c", name="scale_service",
                                    arguments='{"name": "web", "replicas": 51}')
    timed = foreign_executor(read, binding="agentforge", strict=True, timeout=5,
                             wrap_argument_errors=True)
    with pytest.raises(ToolArgumentsError, match=r'^Argument "replicas" must be <= 50') as info:
        timed.execute(too_many)
    assert isinstance(info.value.__cause__, ArgumentError)
    # the same tool calling another function (a fresh object of the tool's class)
    other = timed.rebound(lambda name, replicas, tier="basic": f"other {name} {replicas}")
    with pytest.raises(ToolArgumentsError, match=r'^Argument "replicas" must be <= 50'):
        other.execute(too_many)
    fine = ToolExecutionRequest(id="c", name="scale_service",
                                arguments='{"name": "web", "replicas": 50}')
    assert other.execute(fine) == ToolExecutionResult("other web 50", False)
    assert timed.execute(fine) == ToolExecutionResult("web scaled to 50 (basic)", False)


def test_tools_call_refuses_what_tools_list_shows(cli) -> None:
    target = f"{TOOLS}:fastmcp_server"
    listed = cli("tools", "list", target)
    assert "replicas: integer 1..50 (required)" in listed.stdout, listed.output
    done = cli("tools", "call", "scale_service", '{"name": "web", "replicas": 99}', "-t",
               target, "--binding", "agentforge")
    assert done.exit_code == 1
    assert done.stdout == ('Argument "replicas" must be <= 50 (declared in the FastMCP '
                           'schema), received <99> (tool "scale_service")\n'), done.output
    assert "Traceback" not in done.stderr
    ok = cli("tools", "call", "scale_service", '{"name": "web", "replicas": 50}', "-t",
             target, "--binding", "agentforge")
    assert (ok.exit_code, ok.stdout) == (0, "web scaled to 50 (basic)\n"), ok.output
    explained = cli("tools", "call", "scale_service", '{"name": "web", "replicas": 99}', "-t",
                    target, "--binding", "agentforge", "--explain")
    assert "the constraints its schema declares are checked once bound" in explained.output
    assert 'Argument "replicas" must be <= 50' in explained.output
    native = cli("tools", "call", "scale_service", '{"name": "web", "replicas": 99}', "-t",
                 target, "--binding", "native")  # unchanged: FastMCP's own validation
    assert native.exit_code == 1
    assert native.stdout.startswith("1 validation error for call[scale_service]\nreplicas\n"
                                    "  Input should be less than or equal to 50"), native.output
