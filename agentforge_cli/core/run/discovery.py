"""``build_local_tools``: scan targets for tools -> ``dict[ToolSpecification, ToolExecutor]``.

Targets:

* an **instance** yields its bound ``@tool`` methods (inherited ones too; an override
  replaces its parent's);
* a **module** yields its module-level ``@tool`` functions and the tools of its
  module-level instances — never of classes, so a module holding a class and its
  instance yields each tool once;
* a **function** (or bound method) yields itself, decorated or not;
* a **class** is refused: its methods need an instance to be bound to.

One function (or bound method) reached through two targets is one tool. Two tools with
the same name are refused with ``Duplicated definition for tool: <name>``,
naming both definitions.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from agentforge_cli.core.declare.decorator import tool_meta
from agentforge_cli.core.define.spec import ToolExecutor, ToolSpecification
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ToolDefinitionError

__all__ = ["build_local_tools", "find_tools", "tool_method_names"]


def tool_method_names(cls: type) -> list[str]:
    """Attribute names of ``@tool`` methods on a class, through its MRO, in order.

    An override replaces its parent's attribute (and is a tool only if marked itself).
    """
    found: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        found.update(vars(klass))
    return [attr for attr, value in found.items() if tool_meta(value) is not None]


def _instance_tools(obj: Any) -> Iterator[Any]:
    for attr in tool_method_names(type(obj)):
        yield getattr(obj, attr)


def _module_tools(module: types.ModuleType) -> Iterator[Any]:
    for value in list(vars(module).values()):
        if isinstance(value, type | types.ModuleType):
            continue
        if isinstance(value, types.FunctionType | types.MethodType):
            if tool_meta(value) is not None:
                yield value
            continue
        if tool_method_names(type(value)):
            yield from _instance_tools(value)


def find_tools(target: Any) -> Iterator[Any]:
    """Yield the callables a target contributes (see the module docstring).

    Raises:
        ToolDefinitionError: For a class, or something that holds no callable at all.
    """
    if isinstance(target, type):
        raise ToolDefinitionError(
            f"{target.__qualname__} is a class; pass an instance, e.g. {target.__name__}()")
    if isinstance(target, types.ModuleType):
        yield from _module_tools(target)
    elif isinstance(target, types.FunctionType | types.MethodType | types.BuiltinFunctionType):
        yield target
    elif isinstance(target, staticmethod | classmethod):
        yield target.__func__
    else:
        tools = list(_instance_tools(target))
        if not tools and callable(target) and tool_meta(target) is not None:
            tools = [target]
        yield from tools


def _as_targets(targets: Any) -> Iterable[Any]:
    if targets is None:
        return ()
    if isinstance(targets, list | tuple | set | frozenset):
        return targets
    return (targets,)


def _logged(executor: ToolExecutor) -> ToolExecutor:
    # imported on use: the logging module is not needed by a table built without logging
    from agentforge_cli.core.observe.calllog import LoggingToolExecutor

    return LoggingToolExecutor(executor)


def _where(func: Any) -> str:
    """``module:Qualname`` of a tool function or bound method, for messages."""
    inner = getattr(func, "__func__", func)
    module = getattr(inner, "__module__", None) or "?"
    return f"{module}:{getattr(inner, '__qualname__', repr(inner))}"


def _traced(executor: ToolExecutor, *, record_content: bool) -> ToolExecutor:
    from agentforge_cli.core.observe.tracing import TracingToolExecutor

    return TracingToolExecutor(executor, record_content=record_content)


def build_local_tools(
    targets: Any,
    logging: bool = False,
    *,
    strict: bool = True,
    wrap_argument_errors: bool = False,
    propagate_execution_errors: bool = False,
    timeout: float | None = None,
    tracing: bool | str = False,
    skip_problems: Callable[[str], None] | None = None,
) -> dict[ToolSpecification, ToolExecutor]:
    """Scan targets and build one executor per tool.

    Args:
        targets: A list of instances, modules and functions (a single target is accepted
            too; ``None`` or an empty list yields an empty table).
        logging: Wrap each executor in :class:`LoggingToolExecutor`.
        strict: Executors refuse missing required parameters and unknown keys (the
            default); ``False`` binds leniently (see ``LocalToolExecutor``).
        wrap_argument_errors: Executors raise argument errors as ``ToolArgumentsError``.
        propagate_execution_errors: Executors raise tool failures as
            ``ToolExecutionError``.
        timeout: Seconds each call may run.
        tracing: Wrap each executor in :class:`~agentforge_cli.core.observe.tracing.
            TracingToolExecutor` (an OpenTelemetry ``execute_tool`` span per call);
            ``"content"`` also records the arguments (masked) and results, which makes the
            exported trace a transcript replay reads. Needs ``opentelemetry-api``.
        skip_problems: Leave out a tool that cannot be defined and give each of its
            problems to this function, instead of raising, when another tool loads.

    Returns:
        ``ToolSpecification`` -> executor, in the order the tools were found.

    Raises:
        ToolDefinitionError: For a class target, a bad tool definition (every problem of
            every tool is listed), or ``Duplicated definition for tool: <name>``.
    """
    table: dict[ToolSpecification, ToolExecutor] = {}
    names: dict[str, Any] = {}  # tool name -> the function that defined it
    found: set[tuple[int, int]] = set()  # (instance, function) of each callable scanned
    problems: list[str] = []
    for target in _as_targets(targets):
        for func in find_tools(target):
            identity = (id(getattr(func, "__self__", None)), id(getattr(func, "__func__", func)))
            if identity in found:
                continue  # one tool reached twice (a module and its function, a re-export)
            found.add(identity)
            try:
                executor = LocalToolExecutor(
                    func, strict=strict, wrap_argument_errors=wrap_argument_errors,
                    propagate_execution_errors=propagate_execution_errors, timeout=timeout)
            except ToolDefinitionError as exc:
                problems.extend(exc.problems)
                continue
            if executor.name in names:
                raise ToolDefinitionError(
                    f"Duplicated definition for tool: {executor.name} (defined by "
                    f"{_where(names[executor.name])} and by {_where(func)}); give one of "
                    "them another name with @tool(name=...), or load only one of them")
            names[executor.name] = func
            wrapped: ToolExecutor = _logged(executor) if logging else executor
            if tracing:
                wrapped = _traced(wrapped, record_content=tracing == "content")
            table[executor.specification] = wrapped
    if problems and skip_problems is not None and table:
        for problem in problems:
            skip_problems(problem)
    elif problems:
        raise ToolDefinitionError("Tools cannot be defined:\n  " + "\n  ".join(problems),
                                  problems=problems)
    return table
