"""``FrameworkAdapter``: what agentforge needs to read the tools of one library; the
registry in :mod:`agentforge_cli.integrations.frameworks` keeps them.

A target's object is given to an adapter when its class, or a base class, comes from one
of the adapter's ``roots`` packages: no flag, and no library is imported to find out (an
object of a library's class exists only once its library is imported).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from agentforge_cli.integrations.frameworks.foreign import ForeignTool

__all__ = ["FrameworkAdapter", "a_framework_adapter", "adapter_module"]


def _every_holder(obj: Any) -> bool:
    return True


@dataclass(frozen=True, kw_only=True, slots=True)
class FrameworkAdapter:
    """One library whose tools are targets (LangChain, FastMCP, ...)."""

    name: str
    """Unique in the registry (``langchain``, ``pydantic-ai``); what ``before`` names."""
    library: str
    """The library's name as users know it, for messages (``LangChain``)."""
    roots: tuple[str, ...]
    """The top-level packages whose classes it reads (``langchain_core``, ...)."""
    holds_tools: Callable[[Any], bool]
    """``obj`` (of a ``roots`` class) is something that holds tools: a tool, a toolkit, a
    toolset, an agent, a server."""
    read_tools: Callable[[Any], Iterable[ForeignTool]]
    """Its tools (:class:`~agentforge_cli.integrations.frameworks.foreign.ForeignTool`:
    the library's specification, its native call, the function behind it when reachable).
    An exception is reported as the target's error, naming the library."""
    in_module_scan: Callable[[Any], bool] = _every_holder
    """Optional: whether a module-level ``obj`` is read when its module is a target. Give
    it when one object reaches the tools of others (an agent, a list of tools): answering
    ``False`` for those reads no tool twice. By default every holder is read."""
    before: tuple[str, ...] = ()
    """Optional: adapters asked ahead of this one about a class of a root they share."""


def adapter_module(module: str, *, name: str, library: str,
                   roots: tuple[str, ...]) -> FrameworkAdapter:
    """An adapter whose functions are those of ``module`` (``holds_tools``, ``read_tools``,
    ``in_module_scan``), imported the first time one of them is called."""

    def part(attribute: str) -> Callable[[Any], Any]:
        def call(obj: Any) -> Any:
            return getattr(importlib.import_module(module), attribute)(obj)

        call.__qualname__ = f"{module}.{attribute}"
        return call

    return FrameworkAdapter(name=name, library=library, roots=roots,
                            holds_tools=part("holds_tools"), read_tools=part("read_tools"),
                            in_module_scan=part("in_module_scan"))


def a_framework_adapter(entry: object) -> FrameworkAdapter:
    """``entry`` when it is a :class:`FrameworkAdapter` (the registry's check of what
    plugins give)."""
    if not isinstance(entry, FrameworkAdapter):
        raise TypeError(f"a framework adapter is a FrameworkAdapter "
                        f"(agentforge_cli.integrations.frameworks.adapter), not "
                        f"{type(entry).__name__}")
    return entry
