"""pydantic-ai tools as targets, and agentforge tools as a pydantic-ai toolset.

Read: a ``Tool``, a toolset (``FunctionToolset`` and the toolsets that list their tools
offline: ``CombinedToolset``, ``PrefixedToolset``, ``FilteredToolset``, ...), or an agent
(its function tools and toolsets). Each tool's specification is the ``ToolDefinition``
the agent's ``ToolManager`` puts in a model request (its ``name``, ``description`` and
``parameters_json_schema``), read with an offline ``RunContext`` (``deps=None``, a
``TestModel``, fresh usage) as pydantic-ai builds one for a run step.

A call (``--binding native``) is a ``ToolCallPart`` with the model's argument string
handed to a ``ToolManager``, as the agent loop does: pydantic-ai parses and validates
the string with the tool's validator (``validate_json``), runs its ``args_validator``,
then the function. A validation failure is a refusal whose message is the retry text the
model is sent; ``ModelRetry`` and ``ToolFailed`` raised by the tool are error results
with their message; any other exception propagates. A return value becomes the text
pydantic-ai sends back (``ToolReturnPart.model_response_str()``: a string as it is,
anything else as JSON).

``--binding agentforge`` calls the ``Tool``'s function; a tool taking a ``RunContext`` gets
one like the native path's (``deps=None``).

Not read: MCP toolsets (target the server with ``mcp:COMMAND`` instead), ``external`` and
output tools, tools hidden behind deferred loading, and the agent's capabilities (their
``prepare_tools`` and tool hooks do not run).
"""

from __future__ import annotations

import json
import types
import uuid
from collections.abc import Sequence
from typing import Any

from agentforge_cli.core.define.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolSpecification,
)
from agentforge_cli.core.run.coroutines import run_coroutine
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.frameworks.foreign import ForeignTool, refusal

__all__ = ["LIBRARY", "holds_tools", "in_module_scan", "read_tools", "to_pydantic_ai"]

LIBRARY = "pydantic-ai"
PATH = "ToolManager.handle_call"
_DEFAULT_RETRIES = 1  # an Agent's default tool retries
_RAW_KEY = "arguments"


def holds_tools(obj: Any) -> bool:
    """A ``Tool``, a toolset, or an agent."""
    from pydantic_ai import Tool
    from pydantic_ai.agent import AbstractAgent
    from pydantic_ai.toolsets import AbstractToolset

    return isinstance(obj, Tool | AbstractToolset | AbstractAgent)


def in_module_scan(obj: Any) -> bool:
    """Single ``Tool`` objects only (an agent's or a toolset's tools are read when it is
    named)."""
    from pydantic_ai import Tool

    return isinstance(obj, Tool)


def _context(*, retries: int, tool_name: str | None = None) -> Any:
    """A ``RunContext`` as an offline run step has it: no deps, a ``TestModel``."""
    from pydantic_ai import RunContext
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    return RunContext(deps=None, model=TestModel(), usage=RunUsage(), max_retries=retries,
                      run_step=1, tool_name=tool_name)


def _mcp_inside(toolset: Any) -> str | None:
    """The class name of an MCP toolset in ``toolset`` (itself, wrapped, combined)."""
    from pydantic_ai.toolsets import CombinedToolset, WrapperToolset

    if any(cls.__module__.startswith("pydantic_ai.mcp") or cls.__name__.startswith("MCP")
           for cls in type(toolset).__mro__):
        return type(toolset).__name__
    if isinstance(toolset, WrapperToolset):
        return _mcp_inside(toolset.wrapped)
    if isinstance(toolset, CombinedToolset):
        for inner in toolset.toolsets:
            found = _mcp_inside(inner)
            if found:
                return found
    return None


def _toolset_of(obj: Any) -> tuple[Any, int]:
    """The toolset an object's tools come from, and the tool retries the agent allows."""
    from pydantic_ai import Tool
    from pydantic_ai.agent import AbstractAgent
    from pydantic_ai.toolsets import CombinedToolset, FunctionToolset

    if isinstance(obj, Tool):
        toolset: Any = FunctionToolset()
        toolset.tools[obj.name] = obj  # as add_tool does, without touching the tool
        return toolset, _DEFAULT_RETRIES
    if isinstance(obj, AbstractAgent):
        retries = getattr(obj, "_max_tool_retries", None)
        return (CombinedToolset(list(obj.toolsets)),
                retries if isinstance(retries, int) else _DEFAULT_RETRIES)
    return obj, _DEFAULT_RETRIES


async def _manager(toolset: Any, retries: int) -> Any:
    """A ``ToolManager`` prepared for a run step (the toolset must be entered)."""
    from pydantic_ai.tool_manager import ToolManager

    return await ToolManager(toolset, default_max_retries=retries).for_run_step(
        _context(retries=retries))


async def _listed(toolset: Any, retries: int) -> list[Any]:
    async with toolset:
        manager = await _manager(toolset, retries)
        ctx = manager.ctx
        return [tool for tool in manager.tools.values()
                if tool.tool_def.kind in ("function", "unapproved")
                and ctx.is_tool_available(tool.tool_def)]


def read_tools(obj: Any) -> list[ForeignTool]:
    """One :class:`ForeignTool` per tool the model would be sent.

    Raises:
        TargetError: ``obj`` is (or holds) an MCP toolset, or holds no tool.
    """
    toolset, retries = _toolset_of(obj)
    mcp = _mcp_inside(toolset)
    if mcp is not None:
        raise TargetError(f"agentforge does not read the tools of pydantic-ai's {mcp} (they "
                          "are an MCP server's)",
                          hint="target the server itself: mcp:COMMAND [ARGS...] or its URL")
    listed = run_coroutine(_listed(toolset, retries))
    if not listed:
        raise TargetError(f"the pydantic-ai {type(obj).__name__} holds no function tool",
                          hint="add one with Tool(function), @agent.tool_plain or "
                               "FunctionToolset([function])")
    return [_foreign(tool, toolset, retries) for tool in listed]


def _foreign(tool: Any, toolset: Any, retries: int) -> ForeignTool:
    from pydantic_ai.toolsets import FunctionToolset

    definition = tool.tool_def
    name: str = definition.name
    specification = ToolSpecification(name=name, description=definition.description or "",
                                      parameters=definition.parameters_json_schema)
    owner = tool.toolset
    held: Any = None
    if isinstance(owner, FunctionToolset):
        held = owner.tools.get(getattr(tool, "original_name", None) or name)
    function: Any = None
    unreachable = ""
    if held is None:
        unreachable = (f"the tool comes from a {type(owner).__name__}, not from a Python "
                       "function")
    elif held.takes_ctx and isinstance(held.function, types.MethodType):
        unreachable = "it is a bound method taking a RunContext"
    elif held.takes_ctx:
        # A method binding the RunContext the native path fills in (deps=None, a TestModel):
        # agentforge reads the function's signature after it.
        function = types.MethodType(held.function, _context(retries=retries, tool_name=name))
    else:
        function = held.function

    def invoke(text: str | None) -> ToolExecutionResult:
        return run_coroutine(_invoke(toolset, retries, name, text))  # type: ignore[no-any-return]  # run_coroutine returns Any

    return ForeignTool(library=LIBRARY, specification=specification, invoke=invoke,
                       source=held if held is not None else tool, path=PATH,
                       function=function, unreachable=unreachable)


async def _invoke(toolset: Any, retries: int, name: str, text: str | None
                  ) -> ToolExecutionResult:
    from pydantic_ai._tool_execution import build_tool_return_part
    from pydantic_ai.exceptions import (
        ApprovalRequired,
        CallDeferred,
        ToolFailedError,
        ToolRetryError,
        UnexpectedModelBehavior,
    )
    from pydantic_ai.messages import ERROR_OUTCOMES, ToolCallPart
    from pydantic_core import ValidationError

    call = ToolCallPart(tool_name=name, args=text, tool_call_id=f"call_{uuid.uuid4().hex[:12]}")
    async with toolset:
        manager = await _manager(toolset, retries)
        try:
            result = await manager.handle_call(call)
        except ToolRetryError as exc:
            part: Any = exc.tool_retry
            message: str = part.model_response_str(wrap_if_error=False)
            cause = part.retry.cause if getattr(part, "retry", None) is not None else None
            if cause == "model_retry":  # the tool's own ModelRetry
                return ToolExecutionResult(message, True)
            return refusal(message)
        except ToolFailedError as exc:  # the tool's own ToolFailed
            return ToolExecutionResult(exc.tool_failed.model_response_str(wrap_if_error=False),
                                       True)
        except (ApprovalRequired, CallDeferred) as exc:
            return ToolExecutionResult(
                f'pydantic-ai deferred the call of "{name}" ({type(exc).__name__}): it runs '
                "only once approved or answered outside the run", True)
        except UnexpectedModelBehavior as exc:  # a tool allowing no retry (max_retries=0)
            if isinstance(exc.__cause__, ValidationError):
                return refusal(str(exc))
            return ToolExecutionResult(str(exc), True)
        tool_def = manager.get_tool_def(name)
        returned, _, _ = build_tool_return_part(
            result, call=call, tool_kind=tool_def.tool_kind if tool_def else None)
        return ToolExecutionResult(returned.model_response_str(),
                                   returned.outcome in ERROR_OUTCOMES)


# ---------------------------------------------------------------- export


class _RawArguments:
    """A validator handing the model's argument string on untouched, so agentforge's
    parser (and its repairs) reads it, not pydantic's."""

    def validate_json(self, input: str | bytes | bytearray, *, allow_partial: Any = False,
                      **kwargs: Any) -> dict[str, Any]:
        text = input if isinstance(input, str) else bytes(input).decode("utf-8", "replace")
        return {_RAW_KEY: text}

    def validate_python(self, input: Any, *, allow_partial: Any = False,
                        **kwargs: Any) -> dict[str, Any]:
        if isinstance(input, str):
            return {_RAW_KEY: input}
        return {_RAW_KEY: json.dumps(input, ensure_ascii=False)}


def to_pydantic_ai(tools: Any, *, id: str | None = None, max_retries: int | None = None
                   ) -> Any:
    """agentforge tools as a pydantic-ai toolset, for
    ``Agent(model, toolsets=[to_pydantic_ai(tools)])``.

    ``tools`` is what :func:`~agentforge_cli.build_local_tools` accepts, or a
    ``ToolService``. The model is sent agentforge's schema; a call's argument string goes,
    as the model wrote it, to agentforge's executor (its parsing, coercion and repairs).
    A result is returned to the model as its text; an error result (an argument error,
    the tool's failure) as pydantic-ai's ``ToolFailed`` with that text, which the model
    reads as a failed call without spending a retry.

    Args:
        tools: The agentforge tools.
        id: The toolset's ``id`` (durable execution needs one).
        max_retries: The tools' retries (default: the agent's).
    """
    from pydantic_ai.exceptions import ToolFailed
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool

    from agentforge_cli.integrations.frameworks.exporting import export_service

    service = export_service(tools)
    specifications: list[ToolSpecification] = list(service.specifications)
    validator = _RawArguments()

    class AgentforgeToolset(AbstractToolset[Any]):
        """agentforge tools, called through agentforge's executor."""

        def __init__(self) -> None:
            self.service = service
            self.specifications: Sequence[ToolSpecification] = specifications

        @property
        def id(self) -> str | None:
            return id

        async def get_tools(self, ctx: Any) -> dict[str, Any]:
            retries = max_retries if max_retries is not None else ctx.max_retries
            return {spec.name: ToolsetTool(
                toolset=self, max_retries=retries, args_validator=validator,
                tool_def=ToolDefinition(name=spec.name, description=spec.description or None,
                                        parameters_json_schema=spec.parameters))
                for spec in self.specifications}

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any,
                            tool: Any) -> Any:
            request = ToolExecutionRequest(
                id=ctx.tool_call_id or f"call_{uuid.uuid4().hex[:12]}", name=name,
                arguments=tool_args.get(_RAW_KEY))
            result = await self.service.aexecute(request)
            if result.is_error:
                raise ToolFailed(result.text)
            return result.text

    return AgentforgeToolset()
