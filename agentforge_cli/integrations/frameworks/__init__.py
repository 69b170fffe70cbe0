"""Tools declared with other libraries as targets: LangChain, pydantic-ai, the OpenAI Agents
SDK, FastMCP and smolagents.

Each library is one :class:`~agentforge_cli.integrations.frameworks.adapter.FrameworkAdapter`
(its fields are the contract) in :data:`ADAPTERS`: agentforge's own, each one module here,
those added with ``ADAPTERS.register(...)``, and those of the ``agentforge.frameworks``
entry points (read the first time a target's object is looked at). An adapter may also
export agentforge tools to its library (``to_langchain`` and the others, re-exported by
:mod:`agentforge_cli.integrations`).
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Iterator
from typing import Any

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.frameworks.adapter import (
    FrameworkAdapter,
    a_framework_adapter,
    adapter_module,
)
from agentforge_cli.integrations.frameworks.foreign import (
    BINDINGS,
    Binding,
    ForeignTool,
    foreign_executor,
)

__all__ = ["ADAPTERS", "BINDINGS", "FASTMCP", "LANGCHAIN", "OPENAI_AGENTS", "PYDANTIC_AI",
           "SMOLAGENTS", "Binding", "ForeignTool", "FrameworkAdapter", "adapter_for",
           "foreign_table", "module_members", "read_foreign"]


def _own(module: str, name: str, library: str, *roots: str) -> FrameworkAdapter:
    return adapter_module(f"{__name__}.{module}", name=name, library=library, roots=roots)


LANGCHAIN = _own("langchain", "langchain", "LangChain",
                 "langchain_core", "langchain", "langchain_community")
PYDANTIC_AI = _own("pydantic_ai", "pydantic-ai", "pydantic-ai", "pydantic_ai")
OPENAI_AGENTS = _own("openai_agents", "openai-agents", "OpenAI Agents SDK", "agents")
FASTMCP = _own("fastmcp", "fastmcp", "FastMCP", "fastmcp")
SMOLAGENTS = _own("smolagents", "smolagents", "smolagents", "smolagents")

ADAPTERS: ExtensionPoint[FrameworkAdapter] = ExtensionPoint(
    "framework adapter", "agentforge.frameworks",
    (LANGCHAIN, PYDANTIC_AI, OPENAI_AGENTS, FASTMCP, SMOLAGENTS), check=a_framework_adapter)
"""Every library whose tools are targets."""

_by_root: tuple[tuple[FrameworkAdapter, ...], dict[str, FrameworkAdapter]] | None = None


def _adapters_by_root() -> dict[str, FrameworkAdapter]:
    """Root package -> the first adapter (in declared order) that reads its classes."""
    global _by_root
    adapters = ADAPTERS.entries()
    if _by_root is None or _by_root[0] is not adapters:
        by_root: dict[str, FrameworkAdapter] = {}
        for adapter in adapters:
            for root in adapter.roots:
                by_root.setdefault(root, adapter)
        _by_root = (adapters, by_root)
    return _by_root[1]


def adapter_for(obj: Any) -> FrameworkAdapter | None:
    """The adapter that reads ``obj``, or ``None`` when no adapter does."""
    if isinstance(obj, type | types.ModuleType | types.FunctionType | types.MethodType
                  | list | tuple | str | bytes | int | float | dict | set | frozenset):
        return None
    by_root = _adapters_by_root()
    for cls in type(obj).__mro__:
        adapter = by_root.get(getattr(cls, "__module__", "").partition(".")[0])
        if adapter is not None:
            return adapter if adapter.holds_tools(obj) else None
    return None


def module_members(module: types.ModuleType) -> list[Any]:
    """The module-level objects of ``module`` an adapter reads when the module is a
    target (see ``in_module_scan``), in definition order."""
    found = []
    for value in list(vars(module).values()):
        adapter = adapter_for(value)
        if adapter is not None and adapter.in_module_scan(value):
            found.append(value)
    return found


def read_foreign(obj: Any, spec: str) -> list[ForeignTool]:
    """The tools of one library object (``[]`` when no adapter reads it).

    Raises:
        TargetError: The adapter cannot read the object's tools (its message names
            ``spec``).
    """
    adapter = adapter_for(obj)
    if adapter is None:
        return []
    try:
        return list(adapter.read_tools(obj))
    except TargetError:
        raise
    except Exception as exc:
        raise TargetError(f"cannot read the {adapter.library} tools of target {spec!r}: "
                          f"{type(exc).__name__}: {exc}") from exc


def _tools_once(objects: Iterable[Any], spec: str) -> Iterator[ForeignTool]:
    seen: set[int] = set()
    for obj in objects:
        for tool in read_foreign(obj, spec):
            key = id(tool.source)
            if key not in seen:  # one tool reached twice (a module and a list naming it)
                seen.add(key)
                yield tool


def foreign_table(objects: Iterable[Any], spec: str, *, binding: Binding = "native",
                  logging: bool = False, **options: Any) -> dict[Any, Any]:
    """``ToolSpecification`` -> executor for the library objects among ``objects``.

    ``options`` are ``strict``, ``wrap_argument_errors``, ``propagate_execution_errors``
    and ``timeout`` (the others ``build_local_tools`` takes do not apply and are ignored).

    Raises:
        TargetError: An object cannot be read, or two tools share a name.
    """
    if binding not in BINDINGS:
        raise TargetError(f"unknown binding {binding!r}; use one of: {', '.join(BINDINGS)}")
    keep = {key: options[key] for key in ("strict", "wrap_argument_errors",
                                          "propagate_execution_errors", "timeout")
            if key in options}
    table: dict[Any, Any] = {}
    names: dict[str, str] = {}
    for tool in _tools_once(objects, spec):
        name = tool.specification.name
        if name in names:
            raise TargetError(f"Duplicated definition for tool: {name} ({names[name]} and "
                              f"{tool.library} both define it); load only one of them")
        names[name] = tool.library
        executor = foreign_executor(tool, binding=binding, **keep)
        if logging:
            from agentforge_cli.core.observe.calllog import LoggingToolExecutor

            executor = LoggingToolExecutor(executor)
        table[tool.specification] = executor
    return table
