"""The OpenAI Agents SDK (``openai-agents``, package ``agents``): its function tools as
targets, and agentforge's tools exported as its ``FunctionTool`` objects.

Read: a ``FunctionTool`` (what ``@function_tool`` makes, or one built by hand) and an
``Agent`` (its ``tools``: the FunctionTools; the other kinds, such as hosted tools that run
on OpenAI's side, are skipped with a note on standard error). Any other tool kind named as
a target is refused, with the reason.

* The schema is what the SDK's model converters send (``OpenAIResponsesModel`` and
  ``ChatCmplConverter.tool_to_openai``): ``FunctionTool.name``, ``.description`` and
  ``.params_json_schema`` as they are (in the SDK's strict form for a strict tool).
* ``--binding native`` calls ``invoke_function_tool`` (what the agent runner calls: the
  tool's timeout, then ``FunctionTool.on_invoke_tool``) with a ``ToolContext`` and the raw
  argument text; the SDK's ``json.loads`` and its pydantic model validate them, and the
  output is converted as the runner converts it for the next model input
  (``ItemHelpers.tool_call_output_item``). The SDK answers a failing tool with its
  ``failure_error_function`` ("An error occurred while running the tool..."): the tool is
  called through a copy of it without one, so the SDK's refusal of the arguments
  (``ModelBehaviorError``: "Invalid JSON input for tool ...") is an error result and the
  function's own exception reaches agentforge's error policy. Without
  ``OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0`` the SDK's refusal names no detail (its default).
* ``--binding agentforge`` binds ``FunctionTool.__wrapped__`` (the decorated function),
  unless it takes a ``RunContextWrapper``/``ToolContext`` (the runner fills it with the
  run's own context object, which agentforge does not have).
"""

from __future__ import annotations

import copy
import inspect
import json
import sys
from typing import Any, get_origin, get_type_hints

from agentforge_cli.core.define.spec import ToolExecutionResult, ToolSpecification
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.frameworks.foreign import ForeignTool, refusal

__all__ = ["LIBRARY", "holds_tools", "in_module_scan", "read_tools", "to_openai_agents"]

LIBRARY = "OpenAI Agents SDK"
PATH = "FunctionTool.on_invoke_tool"
_CALL_ID = "call_agentforge"
_noted: set[int] = set()  # agents whose skipped tools were already named on stderr


def _is_function_tool(obj: Any) -> bool:
    from agents import FunctionTool

    return isinstance(obj, FunctionTool)


def _is_agent(obj: Any) -> bool:
    from agents.agent import AgentBase

    return isinstance(obj, AgentBase)


def _is_other_tool(obj: Any) -> bool:
    """One of the SDK's other tool kinds (``agents.Tool``): hosted tools (web search, file
    search, code interpreter, ...) and those called with items of their own (shell,
    computer, custom tools)."""
    import typing

    import agents.tool

    kinds = tuple(get_origin(kind) or kind for kind in typing.get_args(agents.tool.Tool))
    return isinstance(obj, tuple(kind for kind in kinds if isinstance(kind, type)
                                 and kind is not agents.tool.FunctionTool))


def holds_tools(obj: Any) -> bool:
    """A ``FunctionTool``, an agent, or another tool kind (refused with a reason when read)."""
    return _is_function_tool(obj) or _is_agent(obj) or _is_other_tool(obj)


def in_module_scan(obj: Any) -> bool:
    """Single function tools only (not an agent: its tools are usually module-level tools
    of the same module already)."""
    return _is_function_tool(obj)


def read_tools(obj: Any) -> list[ForeignTool]:
    """The function tools of a ``FunctionTool`` or an agent.

    Raises:
        TargetError: ``obj`` is not a function tool (a hosted tool, ...), or an agent
            with no function tool.
    """
    if _is_function_tool(obj):
        return [_read(obj)]
    if _is_other_tool(obj):
        raise TargetError(
            f"{type(obj).__name__} is not a function tool of the {LIBRARY}: a hosted tool "
            "runs on OpenAI's side, and shell, computer and custom tools are called with "
            "items of their own; agentforge calls function tools only",
            hint="name a FunctionTool (@function_tool) or an Agent with function tools")
    name = getattr(obj, "name", "?")
    tools = list(getattr(obj, "tools", None) or [])
    read: list[ForeignTool] = []
    skipped: list[str] = []  # what the model sees besides, or what it never sees
    for tool in tools:
        if not _is_function_tool(tool):
            skipped.append(type(tool).__name__)
        elif getattr(tool, "is_enabled", True) is False:  # the SDK does not send it
            skipped.append(f"{tool.name} (disabled)")
        else:
            read.append(_read(tool))
    if getattr(obj, "handoffs", None):
        skipped.append("handoffs")
    if getattr(obj, "mcp_servers", None):
        skipped.append("mcp_servers")
    if not read:
        listed = f" (it has: {', '.join(skipped)})" if skipped else ""
        raise TargetError(f"{LIBRARY} agent {name!r} has no function tool{listed}",
                          hint="give the agent @function_tool tools, or name the tools")
    if skipped and id(obj) not in _noted:
        _noted.add(id(obj))
        print(f"note: {LIBRARY} agent {name!r}: skipped {', '.join(skipped)}; only its "
              "FunctionTools are read", file=sys.stderr)
    return read


def _read(tool: Any) -> ForeignTool:
    specification = ToolSpecification(name=tool.name, description=tool.description or "",
                                       parameters=tool.params_json_schema)
    function, unreachable = _function_of(tool)
    callable_tool = copy.copy(tool)  # the same tool, without the SDK's failure text
    from agents.tool import set_function_tool_failure_error_function

    set_function_tool_failure_error_function(callable_tool, None)
    failure = _failure_text(tool)

    def invoke(text: str | None) -> ToolExecutionResult:
        from agentforge_cli.core.run.coroutines import run_coroutine

        result: ToolExecutionResult = run_coroutine(_invoke(callable_tool, text, failure))
        return result

    return ForeignTool(library=LIBRARY, specification=specification, invoke=invoke,
                       source=tool, path=PATH, function=function, unreachable=unreachable,
                       failure_text=failure)


async def _awaited(value: Any) -> Any:
    return await value


def _failure_text(tool: Any) -> Any:
    """What the SDK tells the model when the tool raises: its ``failure_error_function``'s
    text (by default "An error occurred while running the tool. Please try again."); a
    tool without one fails the run, and agentforge's message is used."""
    from agents.tool import default_tool_error_function

    handler = getattr(tool, "_failure_error_function", None)
    if handler is None and getattr(tool, "_use_default_failure_error_function", False):
        handler = default_tool_error_function
    if handler is None:
        return None

    def text(exc: BaseException, given: str | None) -> str:
        import inspect as inspecting

        from agents.tool_context import ToolContext

        from agentforge_cli.core.run.coroutines import run_coroutine

        context: Any = ToolContext(context=None, tool_name=tool.name, tool_call_id=_CALL_ID,
                                   tool_arguments=given or "")
        said = handler(context, exc)
        if inspecting.isawaitable(said):
            said = run_coroutine(_awaited(said))
        return str(said)

    return text


def _function_of(tool: Any) -> tuple[Any, str]:
    if getattr(tool, "_is_agent_tool", False):
        return None, "it is an agent run as a tool (Agent.as_tool)"
    try:
        function = tool.__wrapped__
    except AttributeError:
        return None, ("a FunctionTool built by hand: its on_invoke_tool takes the argument "
                      "text, there is no Python function to bind")
    if _takes_context(function):
        return None, ("its function takes a RunContextWrapper/ToolContext, which the agent "
                      "runner fills with the run's context")
    return function, ""


def _takes_context(function: Any) -> bool:
    """The SDK's rule (``function_schema``): the first parameter is annotated
    ``RunContextWrapper`` or ``ToolContext``."""
    from agents import RunContextWrapper
    from agents.tool_context import ToolContext

    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return False
    if not parameters:
        return False
    try:
        annotation = get_type_hints(function).get(parameters[0].name, parameters[0].annotation)
    except Exception:
        annotation = parameters[0].annotation
    if isinstance(annotation, str):
        return annotation.partition("[")[0].rpartition(".")[2] in {"RunContextWrapper",
                                                                    "ToolContext"}
    return (get_origin(annotation) or annotation) in (RunContextWrapper, ToolContext)


async def _invoke(tool: Any, text: str | None, failure: Any) -> ToolExecutionResult:
    """One call; a refusal of the arguments is answered as the SDK answers the model: with
    the tool's ``failure_error_function`` text (``failure``), else the SDK's message."""
    from agents.exceptions import ModelBehaviorError
    from agents.items import ItemHelpers
    from agents.tool import invoke_function_tool
    from agents.tool_context import ToolContext
    from openai.types.responses import ResponseFunctionToolCall

    # a model sends text; an MCP client (``serve``) an object, which is that text parsed
    arguments = text if isinstance(text, str) else "" if text is None else json.dumps(text)
    call = ResponseFunctionToolCall(type="function_call", call_id=_CALL_ID, name=tool.name,
                                    arguments=arguments)
    context: Any = ToolContext(context=None, tool_name=tool.name, tool_call_id=_CALL_ID,
                               tool_arguments=arguments, tool_call=call)
    try:
        output = await invoke_function_tool(function_tool=tool, context=context,
                                            arguments=arguments)
    except ModelBehaviorError as exc:
        message = str(exc)
        if not message.startswith(f"Invalid JSON input for tool {tool.name}"):
            raise  # the tool's own
        if failure is not None:
            return refusal(failure(exc, text if isinstance(text, str) else arguments))
        from agents import _debug

        if message == f"Invalid JSON input for tool {tool.name}" and _debug.DONT_LOG_TOOL_DATA:
            message += (" (the SDK names the reason when OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0 "
                        "is set)")
        return refusal(message)
    item = ItemHelpers.tool_call_output_item(call, output,
                                             output_json_schema=tool.output_json_schema,
                                             output_type_adapter=tool._output_type_adapter)
    return ToolExecutionResult(_as_text(item["output"]))


def _as_text(output: Any) -> str:
    """The function call output's text: a string as it is; structured content (a list of
    ``input_text``/``input_image``/``input_file`` items) as its texts, one a line, and any
    other item as compact JSON."""
    if isinstance(output, str):
        return output
    lines = []
    for part in output:
        if isinstance(part, dict) and part.get("type") == "input_text":
            lines.append(str(part.get("text", "")))
        else:
            lines.append(json.dumps(part, ensure_ascii=False, separators=(",", ":"),
                                    default=str))
    return "\n".join(lines)


def to_openai_agents(tools: Any) -> list[Any]:
    """agentforge's tools as the SDK's ``FunctionTool`` objects, for ``Agent(tools=...)``.

    ``tools`` is what ``build_local_tools`` takes, or a ``ToolService`` (its calls are then
    recorded as it records them). Each tool's schema is agentforge's
    (``ToolSpecification.parameters``), sent with ``strict_json_schema=False``: OpenAI's
    strict mode needs every property required, and agentforge's schemas keep optional
    parameters optional. A call goes through agentforge's executor, its coercion and
    repairs included, and the model reads the result's text (an error result's too).
    """
    from agents import FunctionTool

    from agentforge_cli.integrations.frameworks.exporting import ExportedTool, exported_tools

    def invoker(tool: ExportedTool) -> Any:
        async def on_invoke_tool(ctx: Any, text: str) -> str:
            result = await tool.acall(text, getattr(ctx, "tool_call_id", None))
            return result.text

        return on_invoke_tool

    return [FunctionTool(name=tool.name, description=tool.description,
                         params_json_schema=copy.deepcopy(tool.parameters),
                         on_invoke_tool=invoker(tool), strict_json_schema=False)
            for tool in exported_tools(tools)]
