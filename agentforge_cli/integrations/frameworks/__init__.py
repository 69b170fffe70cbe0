"""Tools declared with other libraries as targets: LangChain, pydantic-ai, the OpenAI Agents
SDK, FastMCP and smolagents.

A target's object is given to an adapter when its class, or a base class, comes from one
of the adapter's packages (``roots``): no flag, and no library is imported to find out (an
object of a library's class exists only once its library is imported). Each adapter is one
module here plus one line in :data:`ADAPTERS`, and provides:

``LIBRARY``
    The library's name as users know it.
``holds_tools(obj) -> bool``
    ``obj`` is something of the library that holds tools (a tool, a toolkit, a toolset,
    an agent, a server).
``read_tools(obj) -> list[ForeignTool]``
    Its tools (:class:`~agentforge_cli.integrations.frameworks.foreign.ForeignTool`).
``in_module_scan(obj) -> bool``
    Whether a module-level ``obj`` is read when its module is a target (single tools and
    servers; an agent or a list of tools already defined in the module is not, so no tool
    is read twice).

An adapter may also export agentforge tools to its library (``to_langchain`` and the
others, re-exported by :mod:`agentforge_cli.integrations`).
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.frameworks.foreign import (
    BINDINGS,
    Binding,
    ForeignTool,
    foreign_executor,
)

__all__ = ["ADAPTERS", "BINDINGS", "Binding", "ForeignTool", "adapter_for", "foreign_table",
           "module_members", "read_foreign"]


@dataclass(frozen=True, slots=True)
class Adapter:
    """Where an adapter lives and which packages' classes it reads."""

    module: str
    """The adapter's module under this package."""
    roots: tuple[str, ...]
    """The top-level packages whose classes it reads."""

    def load(self) -> Any:
        return importlib.import_module(f"{__name__}.{self.module}")


ADAPTERS: tuple[Adapter, ...] = (
    Adapter("langchain", ("langchain_core", "langchain", "langchain_community")),
    Adapter("pydantic_ai", ("pydantic_ai",)),
    Adapter("openai_agents", ("agents",)),
    Adapter("fastmcp", ("fastmcp",)),
    Adapter("smolagents", ("smolagents",)),
)
_BY_ROOT = {root: adapter for adapter in ADAPTERS for root in adapter.roots}


def adapter_for(obj: Any) -> Any:
    """The adapter module that reads ``obj``, or ``None`` when no adapter does."""
    if isinstance(obj, type | types.ModuleType | types.FunctionType | types.MethodType
                  | list | tuple | str | bytes | int | float | dict | set | frozenset):
        return None
    for cls in type(obj).__mro__:
        registered = _BY_ROOT.get(getattr(cls, "__module__", "").partition(".")[0])
        if registered is not None:
            adapter = registered.load()
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
        raise TargetError(f"cannot read the {adapter.LIBRARY} tools of target {spec!r}: "
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
