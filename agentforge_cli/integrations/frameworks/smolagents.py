"""smolagents tools as targets: a ``Tool`` (``@tool`` or a subclass), a list of them, a
``ToolCollection``, or an agent (``ToolCallingAgent``, ``CodeAgent``).

The schema is what a ``ToolCallingAgent`` sends: ``smolagents.models.get_tool_json_schema``
(the ``tools`` of every model's request), unchanged, ``nullable`` keys included. The
native path is ``ToolCallingAgent``'s: the argument text through ``parse_json_if_needed``
(``json.loads``; text that does not parse is kept as a string, which the agent passes to
the tool as its single argument), ``validate_tool_arguments`` (its ``ValueError`` or
``TypeError`` is the refusal, in its words), then ``tool(**arguments,
sanitize_inputs_outputs=True)``; the observation is ``str(output).strip()``, as the agent
writes it for the model.

An agent's tools are its ``tools`` dict without the ``final_answer`` tool smolagents adds
itself (a ``final_answer`` tool of your own is read); its managed agents are not read. A
``CodeAgent`` calls its tools from the code the model writes, not from JSON arguments:
its tools are read as a ``ToolCallingAgent`` would send and call them.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from typing import Any

from agentforge_cli.core.define.spec import ToolExecutionResult, ToolSpecification
from agentforge_cli.integrations.frameworks.foreign import ForeignTool, refusal

__all__ = ["LIBRARY", "holds_tools", "in_module_scan", "read_tools"]

LIBRARY = "smolagents"
PATH = "ToolCallingAgent.execute_tool_call"


def _module(name: str) -> Any:
    """A module of smolagents (imported when a target holds its objects; untyped)."""
    return importlib.import_module(name)


def holds_tools(obj: Any) -> bool:
    """A ``Tool``, a ``ToolCollection`` or an agent (``MultiStepAgent``)."""
    smolagents = _module("smolagents")
    return isinstance(obj, smolagents.Tool | smolagents.ToolCollection
                      | smolagents.MultiStepAgent)


def in_module_scan(obj: Any) -> bool:
    """Single tools only: a collection's or an agent's tools are read when it is named."""
    return isinstance(obj, _module("smolagents").Tool)


def read_tools(obj: Any) -> list[ForeignTool]:
    """The tools of a ``Tool``, a ``ToolCollection`` or an agent.

    Raises:
        ValueError: A collection or an agent that holds no tool.
    """
    smolagents = _module("smolagents")
    Tool = smolagents.Tool
    FinalAnswerTool = _module("smolagents.default_tools").FinalAnswerTool

    if isinstance(obj, Tool):
        return [_read(obj)]
    if isinstance(obj, smolagents.ToolCollection):
        tools = [tool for tool in obj.tools if isinstance(tool, Tool)]
        if not tools:
            raise ValueError("the ToolCollection holds no smolagents Tool")
        return [_read(tool) for tool in tools]
    assert isinstance(obj, smolagents.MultiStepAgent)
    tools = [tool for name, tool in obj.tools.items()
             if not (name == "final_answer" and type(tool) is FinalAnswerTool)]
    if not tools:
        raise ValueError(f"the {type(obj).__name__} has no tool but the final_answer tool "
                         "smolagents adds, which agentforge does not read")
    return [_read(tool, agent=obj) for tool in tools]


def _read(tool: Any, agent: Any = None) -> ForeignTool:
    schema = _module("smolagents.models").get_tool_json_schema(tool)["function"]
    specification = ToolSpecification(name=schema["name"], description=schema["description"],
                                      parameters=schema["parameters"])
    function, unreachable = _function(tool)
    return ForeignTool(library=LIBRARY, specification=specification,
                       invoke=_invoker(tool, agent), source=tool, path=PATH,
                       function=function, unreachable=unreachable,
                       failure_text=_failure_text(tool, agent))


def _failure_text(tool: Any, agent: Any) -> Callable[[BaseException, str | None], str]:
    """The observation ``ToolCallingAgent.execute_tool_call`` makes of a tool's exception."""
    def text(exc: BaseException, given: str | None) -> str:
        return (f"Error executing tool '{tool.name}' with arguments {_arguments(given, agent)!s}"
                f": {type(exc).__name__}: {exc}\nPlease try again or use another tool")

    return text


def _arguments(text: str | None, agent: Any) -> Any:
    """The arguments as the agent hands them on: parsed if JSON, ``{}`` for none, the
    agent's state variables substituted."""
    parse_json_if_needed = _module("smolagents.models").parse_json_if_needed
    arguments: Any = parse_json_if_needed(text) if text is not None else None
    arguments = arguments or {}
    return agent._substitute_state_variables(arguments) if agent is not None else arguments


def _invoker(tool: Any, agent: Any) -> Callable[[str | None], ToolExecutionResult]:
    def invoke(text: str | None) -> ToolExecutionResult:
        agent_types = _module("smolagents.agent_types")
        validate_tool_arguments = _module("smolagents.tools").validate_tool_arguments

        # ToolCallingAgent._step_stream, then process_tool_calls: `arguments or {}`, then
        # execute_tool_call: the agent's state variables
        arguments = _arguments(text, agent)
        try:
            validate_tool_arguments(tool, arguments)
        except (ValueError, TypeError) as exc:  # the agent's AgentToolCallError
            return refusal(str(exc))
        except Exception as exc:  # the agent's AgentToolExecutionError, before any call
            return refusal(f"Error executing tool '{tool.name}' with arguments "
                           f"{arguments!s}: {type(exc).__name__}: {exc}")
        if isinstance(arguments, dict):
            output = tool(**arguments, sanitize_inputs_outputs=True)
        else:
            output = tool(arguments, sanitize_inputs_outputs=True)
        if type(output) is agent_types.AgentImage:  # process_single_tool_call's observation
            return ToolExecutionResult("Stored 'image.png' in memory.", False)
        if type(output) is agent_types.AgentAudio:
            return ToolExecutionResult("Stored 'audio.mp3' in memory.", False)
        return ToolExecutionResult(str(output).strip(), False)

    return invoke


def _function(tool: Any) -> tuple[Callable[..., Any] | None, str]:
    """The function behind ``tool.forward``: ``@tool``'s own function, or the bound
    ``forward`` of a subclass (its ``setup`` run first, as ``Tool.__call__`` does)."""
    forward = inspect.getattr_static(type(tool), "forward", None)
    if isinstance(forward, staticmethod):  # @tool: a wrapper of the decorated function
        return inspect.unwrap(forward.__func__), ""
    bound = getattr(tool, "forward", None)
    if not callable(bound):
        return None, f"{type(tool).__name__} has no forward method"
    if getattr(tool, "skip_forward_signature_validation", False):
        return None, (f"{type(tool).__name__}.forward does not take the parameters of its "
                      "inputs (skip_forward_signature_validation)")

    @functools.wraps(bound)
    def forward_after_setup(*args: Any, **kwargs: Any) -> Any:
        if not tool.is_initialized:
            tool.setup()
        return bound(*args, **kwargs)

    return forward_after_setup, ""
