"""What an executor may declare beyond ``execute``: one small Protocol per capability.

Every executor has :class:`~agentforge_cli.core.define.spec.ToolExecutor`'s ``execute``;
the rest is optional, and a caller asks with ``isinstance(executor, TheProtocol)``:

* :class:`SpecifiedToolExecutor` — the ``specification`` the model sees;
* :class:`DefinedToolExecutor` — the ``definition`` agentforge read from a Python function;
* :class:`BindingToolExecutor` — binds arguments without a call (``bind_arguments``, and
  the settings an explanation of a binding reads);
* :class:`AsyncToolExecutor` — an ``aexecute`` for async callers;
* :class:`WrappingToolExecutor` — stands in front of another (``delegate``);
* :class:`ForeignToolExecutor` — runs a tool of another library (``foreign``, the
  ``binding`` taken and its ``binding_note``);
* :class:`SensitiveToolExecutor` — the ``sensitive_keys`` masked in every output.

How an executor explains its arguments (``explain_arguments``) is declared beside the
rows it returns, :class:`~agentforge_cli.core.bind.argument_explanation.ExplainingToolExecutor`.

``isinstance`` on a Protocol reads every member: ask when an executor is registered or
reported on, never per call. A wrapper (call logging, tracing) reaches its delegate's
attributes, so ask :func:`~agentforge_cli.core.run.wrapping.innermost` of a wrapped one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agentforge_cli.core.define.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolExecutor,
    ToolSpecification,
)

if TYPE_CHECKING:
    from agentforge_cli.core.define.definition import ToolDefinition

__all__ = [
    "AsyncExecute",
    "AsyncToolExecutor",
    "BindingToolExecutor",
    "DefinedToolExecutor",
    "ForeignToolExecutor",
    "LibraryTool",
    "SensitiveToolExecutor",
    "SpecifiedToolExecutor",
    "WrappingToolExecutor",
    "declares",
]


@runtime_checkable
class SpecifiedToolExecutor(ToolExecutor, Protocol):
    """An executor that knows the specification of its tool."""

    @property
    def specification(self) -> ToolSpecification:
        """What the model sees of the tool."""
        ...


@runtime_checkable
class DefinedToolExecutor(ToolExecutor, Protocol):
    """An executor of a Python function whose signature agentforge read."""

    @property
    def definition(self) -> ToolDefinition:
        """The function's definition: parameters, schema, the callable."""
        ...


@runtime_checkable
class BindingToolExecutor(DefinedToolExecutor, Protocol):
    """An executor that binds arguments itself and can do so without calling the tool."""

    @property
    def strict(self) -> bool:
        """Missing required parameters and unknown keys are argument errors."""
        ...

    @property
    def max_argument_chars(self) -> int:
        """Longest argument string accepted."""
        ...

    @property
    def max_depth(self) -> int:
        """Deepest nesting of arrays/objects accepted."""
        ...

    def bind_arguments(self, arguments: str | dict[str, Any] | None) -> dict[str, Any]:
        """Python parameter name -> the value the tool would receive."""
        ...


@runtime_checkable
class AsyncToolExecutor(ToolExecutor, Protocol):
    """An executor with a path of its own for async callers."""

    async def aexecute(self, request: ToolExecutionRequest, memory_id: object = None
                       ) -> ToolExecutionResult:
        """:meth:`execute` without blocking the running event loop."""
        ...


AsyncExecute = Callable[[ToolExecutionRequest, object], Awaitable[ToolExecutionResult]]
"""An executor's path for async callers, ``await path(request, memory_id)``: its
``aexecute``, or its ``execute`` in a worker thread."""


@runtime_checkable
class WrappingToolExecutor(ToolExecutor, Protocol):
    """An executor in front of another one (call logging, tracing)."""

    @property
    def delegate(self) -> ToolExecutor:
        """The executor it wraps."""
        ...


@runtime_checkable
class LibraryTool(Protocol):
    """What any tool of another library tells of itself (its adapter reads the rest)."""

    @property
    def library(self) -> str:
        """The library's name as users know it (``LangChain``)."""
        ...

    @property
    def source(self) -> object:
        """The library's object of this one tool."""
        ...


@runtime_checkable
class ForeignToolExecutor(ToolExecutor, Protocol):
    """An executor of a tool written with another library."""

    @property
    def foreign(self) -> LibraryTool:
        """The tool as its adapter read it."""
        ...

    @property
    def binding(self) -> str:
        """How calls bind: ``native`` (the library's own path) or ``agentforge``."""
        ...

    @property
    def binding_note(self) -> str:
        """What ``--explain`` says of the path a call takes."""
        ...


@runtime_checkable
class SensitiveToolExecutor(ToolExecutor, Protocol):
    """An executor that declares which argument keys hold secrets."""

    @property
    def sensitive_keys(self) -> frozenset[str]:
        """JSON keys of the sensitive parameters (masked in every output)."""
        ...


_DECLARED: dict[tuple[type, type], bool] = {}


def declares(executor: object, capability: type) -> bool:
    """``isinstance(executor, capability)`` for a capability Protocol, answered once per
    executor class: a capability is declared by the class (its methods and the attributes
    its ``__init__`` always sets), and a Protocol check reads every member each time (tens
    of microseconds), too slow for a path taken per call, such as replay's."""
    key = (type(executor), capability)
    known = _DECLARED.get(key)
    if known is None:
        known = _DECLARED[key] = isinstance(executor, capability)
    return known
