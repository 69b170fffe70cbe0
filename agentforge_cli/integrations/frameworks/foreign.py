"""A tool declared with another library, and the two executors that call it.

An adapter (one module per library, see the package docstring) reads a library's object
into :class:`ForeignTool` values: the schema the library itself sends to the model, how the
library invokes the tool from a model's argument text, and the Python function behind it
when the adapter can reach one. :func:`foreign_executor` turns one into an executor:

* ``native`` (the default): :class:`NativeToolExecutor` hands the argument text to the
  library's own path (its JSON parsing, its validation, its errors), so a verdict is what
  production would do;
* ``agentforge``: a :class:`ForeignBoundExecutor` binds the arguments with agentforge's
  coercion table (repairs included), checks the bound values against the constraints the
  library's schema declares (:mod:`.constraints`), and calls the function directly, so a
  user sees what those repairs change. The schema shown stays the library's.

Standard library only: the libraries are imported by their adapters.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from agentforge_cli.core.bind.argument_explanation import ArgumentExplanation, sent_explanation
from agentforge_cli.core.bind.arguments import DEFAULT_MAX_ARGUMENT_CHARS
from agentforge_cli.core.define.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolSpecification,
)
from agentforge_cli.core.run.call_policy import DEFAULT_MAX_RESULT_CHARS, CallPolicy
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ArgumentError, ToolArgumentsError
from agentforge_cli.integrations.frameworks.constraints import schema_constraints

__all__ = ["BINDINGS", "Binding", "ForeignBoundExecutor", "ForeignTool", "NativeToolExecutor",
           "foreign_executor", "refusal"]

Binding = Literal["native", "agentforge"]
BINDINGS: tuple[Binding, ...] = ("native", "agentforge")
"""How a foreign tool is called: through its library, or through agentforge's binding."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ForeignTool:
    """One tool of another library, as an adapter reads it."""

    library: str
    """The library's name as users know it (``LangChain``)."""
    specification: ToolSpecification
    """What the library sends to the model: its name, description and parameter schema,
    unchanged."""
    invoke: Callable[[str | None], ToolExecutionResult]
    """The library's own path from the model's argument text to what the model reads.

    It returns a result for whatever the library itself answers: a refusal of the
    arguments (unparsable JSON, its validation) as an error result in the library's
    words (:func:`refusal`), or the tool's output with the error flag the library sets.
    An exception raised by the tool's function is let through: the executor turns it
    into an error result, or a ``ToolExecutionError``, as for a Python tool."""
    source: object
    """The library's object of this one tool (a tool read twice, or again for a new
    conversation, is known by it)."""
    path: str
    """How the native path is named for ``--explain``: ``StructuredTool.invoke``."""
    function: Callable[..., Any] | None = None
    """The Python function behind the tool, for ``--binding agentforge``; ``None`` when the
    adapter cannot reach one (``unreachable`` says why)."""
    unreachable: str = ""
    """Why ``function`` is ``None``: ``it takes a RunContext the agent fills in``."""
    failure_text: Callable[[BaseException, str | None], str] | None = None
    """The text the library gives the model when the tool raises (the exception and the
    argument text given), so a recorded failure replays as matched; ``None``: the library
    gives none (its exception ends the run), agentforge's message is used."""


def refusal(message: str) -> ToolExecutionResult:
    """The error result of a library refusing a call's arguments: its own words, as the
    model would read them (so a recorded refusal replays as matched)."""
    return ToolExecutionResult(message, True)


class NativeToolExecutor:
    """Runs one :class:`ForeignTool` through its library (``--binding native``).

    The argument text is bounded (``max_argument_chars``) before the library sees it, a
    call runs at most ``timeout`` seconds (its thread cannot be stopped and finishes in
    the background), and a result longer than ``max_result_chars`` is an execution error:
    the bounds a Python tool has. The tool's exception follows a Python tool's error
    policy (an error result with its message, or ``ToolExecutionError`` when
    ``propagate_execution_errors``): its :attr:`policy`, a
    :class:`~agentforge_cli.core.run.call_policy.CallPolicy` as a Python tool's.
    """

    binding: Binding = "native"

    def __init__(self, tool: ForeignTool, *, propagate_execution_errors: bool = False,
                 timeout: float | None = None, instead: str = "",
                 max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
                 max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS) -> None:
        self.policy = CallPolicy(
            max_argument_chars=max_argument_chars, max_result_chars=max_result_chars,
            timeout=timeout, propagate_execution_errors=propagate_execution_errors)
        """The limits, the timeout and the error switch of every call."""
        self.foreign = tool
        self.specification = tool.specification
        self.name = tool.specification.name
        self.sensitive_keys: frozenset[str] = frozenset()
        self.instead = instead
        """Why ``--binding agentforge`` was asked for but this native path runs (or "")."""

    @property
    def binding_note(self) -> str:
        """What ``--explain`` says of the path a call takes."""
        note = (f"binding: native ({self.foreign.library}'s own path, {self.foreign.path}: "
                "its JSON parsing, its validation, its errors)")
        return f"{note}; {self.instead}" if self.instead else note

    def __repr__(self) -> str:
        return f"<NativeToolExecutor {self.name} of {self.foreign.library}>"

    def explain_arguments(self, arguments: str | dict[str, Any] | None
                          ) -> ArgumentExplanation:
        """``--explain``: the library binds the arguments; what it is sent, per parameter."""
        library = self.foreign.library
        return sent_explanation(
            self.specification.parameters, arguments, bound_by=f"bound by {library}",
            schema_label="schema",
            lead=f"{self.name} is bound by {library}: it reads the argument text itself (no "
                 "coercion by agentforge).")

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        text = request.arguments
        if isinstance(text, dict):  # the MCP server hands over the object a client sent
            text = json.dumps(text, ensure_ascii=False)
        policy = self.policy
        if text is not None and len(text) > policy.max_argument_chars:
            return ToolExecutionResult(
                f'Invalid arguments for tool "{self.name}": the argument string is '
                f"{len(text)} characters, more than the limit of {policy.max_argument_chars}",
                True)
        try:
            result = policy.call(lambda: self.foreign.invoke(text), self.name)
            limit = policy.max_result_chars
            if limit is not None and len(result.text) > limit:
                raise policy.too_large(self.name, f"{len(result.text)} characters")
        except BaseException as exc:  # the tool's failure is the result
            words = self.foreign.failure_text
            return policy.failure(self.name, exc, describe=None if words is None
                                  else lambda failed: words(failed, text))
        return result


class ForeignBoundExecutor(LocalToolExecutor):
    """A :class:`ForeignTool`'s function bound by agentforge (``--binding agentforge``):
    a ``LocalToolExecutor`` whose specification is the library's, and whose bound values
    are checked against the constraints of that specification before the call (a value
    breaking one is an argument error).

    Args:
        func: The tool's function.
        foreign: The tool as its adapter read it.
        **options: What ``LocalToolExecutor`` takes (``definition`` among them).
    """

    binding: Binding = "agentforge"

    def __init__(self, func: Any, *, foreign: ForeignTool, **options: Any) -> None:
        super().__init__(func, **options)
        self.foreign = foreign
        """The tool as its adapter read it."""
        self.constraints = schema_constraints(foreign.specification.parameters,
                                              self.definition.params, foreign.library)
        """The checker of the schema's constraints (``None``: it declares none)."""
        # the compiled call path binds and calls in one go: calls take the general path,
        # whose binding step (_bind_parsed) checks the constraints
        self._run = self._general

    @property
    def binding_note(self) -> str:
        """What ``--explain`` says of the path a call takes."""
        library = self.foreign.library
        return (f"binding: agentforge (agentforge's coercion table in front of "
                f"{library}'s function {self.definition.qualname}; {library}'s "
                "own validation does not run, the constraints its schema declares are "
                "checked once bound)")

    def _bind_parsed(self, parsed: dict[str, Any]) -> tuple[Any, ...]:
        values = super()._bind_parsed(parsed)
        if self.constraints is not None:
            try:
                self.constraints.check(parsed, values)
            except ArgumentError as error:
                self._raise_argument_error(error)
        return values

    def explain_arguments(self, arguments: str | dict[str, Any] | None
                          ) -> ArgumentExplanation:
        """``--explain``'s rows (see ``LocalToolExecutor``), and a constraint of the
        schema the bound values break as the explanation's error."""
        explained = super().explain_arguments(arguments)
        if explained.error is None and self.constraints is not None:
            try:
                self.bind_arguments(arguments)
            except (ArgumentError, ToolArgumentsError) as error:
                return replace(explained, error=str(error))
        return explained

    def rebound(self, func: Any) -> ForeignBoundExecutor:
        """The same tool calling ``func`` (see ``LocalToolExecutor.rebound``), its
        constraints still checked."""
        import copy

        other = copy.copy(self)
        other.definition = replace(self.definition, call=func)
        other._generated = {"bind": self._bind}
        other._run = other._general
        return other


def foreign_executor(tool: ForeignTool, *, binding: Binding = "native", strict: bool = True,
                     wrap_argument_errors: bool = False,
                     propagate_execution_errors: bool = False,
                     timeout: float | None = None) -> Any:
    """The executor of ``tool`` for ``binding`` (see the module docstring).

    A tool whose function ``agentforge`` cannot reach (the adapter finds none, or its
    signature cannot be bound) runs natively; its ``binding_note`` says why.
    """
    from agentforge_cli.core.define.definition import define_tool
    from agentforge_cli.errors import ToolDefinitionError

    def native(instead: str = "") -> NativeToolExecutor:
        return NativeToolExecutor(tool, propagate_execution_errors=propagate_execution_errors,
                                  timeout=timeout, instead=instead)

    if binding == "native":
        return native()
    if tool.function is None:
        return native("--binding agentforge cannot reach its function: "
                      + (tool.unreachable or "the adapter finds none"))
    try:
        definition = define_tool(tool.function, name=tool.specification.name,
                                 description=tool.specification.description)
    except ToolDefinitionError as exc:
        return native(f"--binding agentforge cannot bind its function: {exc}")
    return ForeignBoundExecutor(
        tool.function, foreign=tool, definition=replace(definition, spec=tool.specification),
        strict=strict, wrap_argument_errors=wrap_argument_errors,
        propagate_execution_errors=propagate_execution_errors, timeout=timeout)
