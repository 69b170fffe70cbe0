"""LangChain tools as targets, and agentforge tools handed to LangChain.

Read: a ``BaseTool`` (``@tool`` functions, ``StructuredTool``, ``Tool``, subclasses) and a
``BaseToolkit`` (its ``get_tools()``). The schema is what LangChain's chat models send,
``convert_to_openai_tool(tool)["function"]``. A native call parses the argument text with
``json.loads`` as LangChain's output parsers do, validates it with the tool's
``args_schema`` (a refusal names pydantic's errors) and runs ``tool.invoke`` with a
``ToolCall``; the model reads the ``ToolMessage``'s content (``status="error"`` is an error).
An exception from the tool is raised, as ``invoke`` raises it.

Not reached: arguments LangChain hides from the model and the harness fills
(``InjectedToolArg``, ``InjectedState``, ``InjectedToolCallId``): such a tool is listed and
checked, but a call is refused with a message saying so. ``--binding agentforge`` reaches
the function of a ``StructuredTool`` (``func``, or ``coroutine``); a ``Tool`` taking one
string and a ``BaseTool`` subclass's ``_run`` are not reached.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.define.spec import ToolExecutionResult, ToolSpecification
from agentforge_cli.integrations.frameworks.foreign import ForeignTool, refusal

if TYPE_CHECKING:
    from agentforge_cli.integrations.frameworks.exporting import ExportedTool

__all__ = ["LIBRARY", "holds_tools", "in_module_scan", "read_tools", "to_langchain"]

LIBRARY = "LangChain"


def holds_tools(obj: Any) -> bool:
    from langchain_core.tools import BaseTool, BaseToolkit

    return isinstance(obj, BaseTool | BaseToolkit)


def in_module_scan(obj: Any) -> bool:
    from langchain_core.tools import BaseTool

    return isinstance(obj, BaseTool)


def read_tools(obj: Any) -> list[ForeignTool]:
    from langchain_core.tools import BaseToolkit

    tools = obj.get_tools() if isinstance(obj, BaseToolkit) else [obj]
    return [_read(tool) for tool in tools]


def _read(tool: Any) -> ForeignTool:
    from langchain_core.tools import StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    function = convert_to_openai_tool(tool)["function"]
    specification = ToolSpecification(
        name=function["name"], description=function.get("description", ""),
        parameters=function.get("parameters", {"type": "object", "properties": {}}))
    injected = sorted(getattr(tool, "_injected_args_keys", ()) or ())
    reach: Callable[..., Any] | None = None
    unreachable = ""
    if injected:
        unreachable = f"it takes arguments the harness fills in ({', '.join(injected)})"
    elif isinstance(tool, StructuredTool):
        reach = tool.func or tool.coroutine
    else:
        unreachable = (f"a {type(tool).__name__} is called through its _run method, which "
                       "agentforge does not bind")
    return ForeignTool(library=LIBRARY, specification=specification, source=tool,
                       invoke=_invoker(tool, specification.name, injected),
                       path=f"{type(tool).__name__}.invoke", function=reach,
                       unreachable=unreachable)


def _invoker(tool: Any, name: str, injected: list[str]
             ) -> Callable[[str | None], ToolExecutionResult]:
    def invoke(text: str | None) -> ToolExecutionResult:
        if injected:
            return refusal(f"{name} takes arguments its harness fills in "
                           f"({', '.join(injected)}), which agentforge cannot give")
        try:
            arguments = json.loads(text or "{}", strict=False)
        except ValueError as exc:  # what LangChain's parsers make an invalid tool call
            return refusal(f"the arguments of {name} are not valid JSON: {exc}")
        if not isinstance(arguments, dict):
            return refusal(f"the arguments of {name} are not a JSON object")
        problem = _validation_problem(tool, arguments)
        if problem is not None:
            return refusal(problem)
        call = {"type": "tool_call", "name": name, "args": arguments, "id": "agentforge"}
        if getattr(tool, "func", True) is None and getattr(tool, "coroutine", None):
            from agentforge_cli.core.run.coroutines import run_coroutine

            message = run_coroutine(tool.ainvoke(call))
        else:
            message = tool.invoke(call)
        return ToolExecutionResult(_content_text(getattr(message, "content", message)),
                                   getattr(message, "status", "success") == "error")

    return invoke


def _validation_problem(tool: Any, arguments: dict[str, Any]) -> str | None:
    """What the tool's ``args_schema`` (a pydantic model) says of the arguments, or
    ``None`` when they validate (or the schema is a plain JSON Schema, which LangChain
    does not validate)."""
    import pydantic_core

    schema = getattr(tool, "args_schema", None)
    validate = getattr(schema, "model_validate", None)
    if validate is None:
        return None
    try:
        validate(arguments)
    except pydantic_core.ValidationError as exc:
        return str(exc)
    return None


def _content_text(content: Any) -> str:
    """A ``ToolMessage``'s content as the model reads it: a string as it is; a list of
    content blocks one per line (text blocks as their text)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            else:
                parts.append(json.dumps(block, ensure_ascii=False, default=str))
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False, default=str)


# -- the other direction ---------------------------------------------------------------------


def to_langchain(tools: Any) -> list[Any]:
    """LangChain ``StructuredTool`` objects for agentforge tools.

    ``tools`` is what ``build_local_tools`` takes (``@tool`` functions, instances with
    ``@tool`` methods, modules, a list of them) or a ``ToolService``. Each tool has
    agentforge's schema as its ``args_schema``; a call goes through agentforge's executor
    (its coercion and repairs), and an error result is a ``ToolMessage`` with
    ``status="error"`` (``handle_tool_error``).
    """
    from agentforge_cli.integrations.frameworks.exporting import exported_tools

    return [_structured(tool) for tool in exported_tools(tools)]


def _structured(tool: ExportedTool) -> Any:
    from langchain_core.tools import StructuredTool, ToolException

    def run(**arguments: Any) -> str:
        text, is_error = tool.call(arguments)
        if is_error:
            raise ToolException(text)
        return text

    return StructuredTool(name=tool.name, description=tool.description or tool.name,
                          args_schema=tool.parameters, func=run, handle_tool_error=True)
