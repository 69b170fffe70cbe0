"""The executors of another library's tools and of an MCP server's: what each declares,
and their failures answered by the one ``CallPolicy``, in the texts a Python tool has."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from agentforge_cli.core.bind.argument_explanation import ExplainingToolExecutor
from agentforge_cli.core.define.capabilities import (
    AsyncToolExecutor,
    BindingToolExecutor,
    DefinedToolExecutor,
    ForeignToolExecutor,
    SensitiveToolExecutor,
    SpecifiedToolExecutor,
    WrappingToolExecutor,
)
from agentforge_cli.core.define.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolSpecification,
)
from agentforge_cli.errors import ToolExecutionError
from agentforge_cli.integrations.frameworks.foreign import (
    ForeignBoundExecutor,
    ForeignTool,
    NativeToolExecutor,
    foreign_executor,
)
from agentforge_cli.integrations.mcp.client.executor import McpToolExecutor

OPTIONAL = (SpecifiedToolExecutor, DefinedToolExecutor, BindingToolExecutor,
            ExplainingToolExecutor, AsyncToolExecutor, WrappingToolExecutor,
            ForeignToolExecutor, SensitiveToolExecutor)
SPEC = ToolSpecification(name="echo", parameters={
    "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})


def echo(text: str) -> str:
    if text == "raise":
        raise ValueError("echo refused")
    if text == "slow":
        time.sleep(5)
    return text * 3


def library_tool(**overrides: object) -> ForeignTool:
    def invoke(arguments: str | None) -> ToolExecutionResult:
        import json

        return ToolExecutionResult(echo(**json.loads(arguments or "{}")))

    fields: dict[str, object] = {"library": "Lib", "specification": SPEC, "invoke": invoke,
                                 "source": object(), "path": "Lib.invoke", "function": echo}
    return ForeignTool(**{**fields, **overrides})  # type: ignore[arg-type]  # test overrides


def declared(executor: object) -> set[str]:
    return {p.__name__ for p in OPTIONAL if isinstance(executor, p)}


def call(executor: object, text: str) -> ToolExecutionResult:
    request = ToolExecutionRequest(name="echo", arguments=f'{{"text": "{text}"}}')
    return executor.execute(request)  # type: ignore[attr-defined, no-any-return]  # any executor


def test_each_executor_declares_what_it_has():
    assert declared(NativeToolExecutor(library_tool())) == {
        "SpecifiedToolExecutor", "ExplainingToolExecutor", "ForeignToolExecutor",
        "SensitiveToolExecutor"}
    bound = foreign_executor(library_tool(), binding="agentforge")
    assert isinstance(bound, ForeignBoundExecutor)
    assert declared(bound) == {
        "SpecifiedToolExecutor", "DefinedToolExecutor", "BindingToolExecutor",
        "ExplainingToolExecutor", "AsyncToolExecutor", "ForeignToolExecutor",
        "SensitiveToolExecutor"}
    mcp = McpToolExecutor(SimpleNamespace(spec="mcp:server", label="server"), SPEC)  # type: ignore[arg-type]  # a stand-in connection
    assert declared(mcp) == {"SpecifiedToolExecutor", "ExplainingToolExecutor"}


@pytest.mark.parametrize("binding", ["native", "agentforge"])
def test_a_library_tool_fails_in_the_policy_texts(binding):
    make = foreign_executor
    assert call(make(library_tool(), binding=binding), "raise") == ToolExecutionResult(
        "echo refused", True)
    assert call(make(library_tool(), binding=binding, timeout=0.05), "slow") == (
        ToolExecutionResult('Tool "echo" timed out after 0.05 s', True))
    with pytest.raises(ToolExecutionError, match=r"^echo refused$"):
        call(make(library_tool(), binding=binding, propagate_execution_errors=True), "raise")


def test_a_native_result_past_the_limit_is_the_one_limit_message():
    native = NativeToolExecutor(library_tool(), max_result_chars=5)
    assert call(native, "abc") == ToolExecutionResult(
        'Tool "echo" returned 9 characters, more than the limit of 5', True)


def test_the_library_words_its_failure_when_it_gives_any():
    worded = library_tool(failure_text=lambda exc, text: f"Lib says {exc} to {text}")
    assert call(NativeToolExecutor(worded), "raise") == ToolExecutionResult(
        'Lib says echo refused to {"text": "raise"}', True)
    exits = library_tool(invoke=lambda text: (_ for _ in ()).throw(SystemExit(4)),
                         failure_text=lambda exc, text: "not these words")
    assert call(NativeToolExecutor(exits), "x") == ToolExecutionResult(
        'Tool "echo" raised SystemExit(4)', True)
