"""``LocalToolExecutor``: bind a model's arguments to a Python callable and call it.

Built once per tool: the definition (signature, handlers, schema) and a generated binder.
Per call: parse the argument string, bind, call (awaiting ``async def`` tools), normalise
the return value, and apply the error policy (its
:class:`~agentforge_cli.core.run.call_policy.CallPolicy`, shared with the executors of
other libraries' tools and MCP servers' tools):

* argument errors are raised as :class:`~agentforge_cli.errors.ArgumentError` (a
  ``ValueError``), or as :class:`~agentforge_cli.errors.ToolArgumentsError` chained to it
  when ``wrap_argument_errors`` is on;
* an exception from the tool becomes an error result (its message, or its class name when
  the message is empty; first, outside strict mode, the required arguments that were
  missing and what they were passed as), or is raised as
  :class:`~agentforge_cli.errors.ToolExecutionError` chained to it when
  ``propagate_execution_errors`` is on. ``SystemExit`` and ``KeyboardInterrupt`` from the
  tool are failures like any other (``Tool "cli" raised SystemExit(2)``); only a real
  Ctrl-C propagates (see :mod:`~agentforge_cli.core.run.interrupts`).

How arguments bind without a call (``--explain``) is :mod:`~agentforge_cli.core.bind.diagnostics`.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.bind.arguments import (
    DEFAULT_MAX_ARGUMENT_CHARS,
    DEFAULT_MAX_DEPTH,
    parse_arguments,
    scan_object,
)
from agentforge_cli.core.bind.binder import (
    Binder,
    FastExecute,
    make_binder,
    make_execute,
    make_invoker,
    missing_note,
    tool_argument_error,
)
from agentforge_cli.core.define.definition import ToolDefinition, define_tool
from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolExecutionResult
from agentforge_cli.core.run.call_policy import (
    DEFAULT_MAX_RESULT_CHARS,
    CallPolicy,
    call_with_timeout,
)
from agentforge_cli.core.run.forks import end_forked_child
from agentforge_cli.core.run.interrupts import watch_sigint
from agentforge_cli.core.run.returns import result_text
from agentforge_cli.errors import ArgumentError, ToolArgumentsError, ToolTimeoutError

if TYPE_CHECKING:
    from agentforge_cli.core.bind.argument_explanation import ArgumentExplanation
    from agentforge_cli.core.bind.diagnostics import Explanation
    from agentforge_cli.core.define.spec import ToolSpecification

__all__ = ["LocalToolExecutor"]


class LocalToolExecutor:
    """Executes requests against one Python callable.

    Args:
        func: What to call: a function, a bound method, or a wrapper/proxy of one. Names
            and types are read from the unwrapped function (``__wrapped__``); the call goes
            to ``func`` itself.
        original: Read names and types from this function instead (for proxies without
            ``__wrapped__``: the proxy is called, ``original`` is read).
        name: Tool name override.
        description: Tool description override.
        strict: Missing required parameters and unknown keys are argument errors (the
            default); ``False`` is the lenient mode, which fills a missing value with a
            default for its type when that value keeps the parameter's constraints.
        wrap_argument_errors: Raise argument errors as ``ToolArgumentsError``.
        propagate_execution_errors: Raise tool failures as ``ToolExecutionError``.
        timeout: Seconds a call may run; a call still running after that is an execution
            error (the tool's thread cannot be stopped and finishes in the background).
        max_argument_chars: Longest argument string accepted.
        max_depth: Deepest nesting of arrays/objects accepted in the arguments.
        max_result_chars: Longest result text returned; a longer one is an execution
            error (``None``: no limit).
        definition: A definition already built for ``func`` (skips reading it again).

    The limits, the timeout and the error switches are its :attr:`policy`
    (:class:`~agentforge_cli.core.run.call_policy.CallPolicy`), also readable one by one.
    ``execute`` runs the tool's compiled call path, generated on the first call
    (:func:`~agentforge_cli.core.bind.binder.make_execute`), or with a timeout the general
    path.
    """

    def __init__(
        self,
        func: Any,
        *,
        original: Any = None,
        name: str | None = None,
        description: str | None = None,
        strict: bool = True,
        wrap_argument_errors: bool = False,
        propagate_execution_errors: bool = False,
        timeout: float | None = None,
        max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
        max_depth: int = DEFAULT_MAX_DEPTH,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
        definition: ToolDefinition | None = None,
    ) -> None:
        if definition is None:
            definition = define_tool(func, name=name, description=description,
                                     original=original)
        self.policy = CallPolicy(
            max_argument_chars=max_argument_chars, max_depth=max_depth,
            max_result_chars=max_result_chars, timeout=timeout,
            wrap_argument_errors=wrap_argument_errors,
            propagate_execution_errors=propagate_execution_errors)
        """The limits, the timeout and the error switches of every call."""
        self.definition = definition
        self.name = definition.name
        self.strict = strict
        self.sensitive_keys = definition.sensitive_keys
        self._generated: dict[str, Any] = {}
        # what execute calls: the compiled path, generated on the first call (registration
        # compiles nothing), or with a timeout the general path
        self._run: Callable[[ToolExecutionRequest, object], ToolExecutionResult] = (
            self._compile_and_run if timeout is None else self._general)
        if timeout is not None:
            watch_sigint()  # see _compile

    # -- the policy's settings, one by one (as the keyword arguments name them) -----------

    @property
    def timeout(self) -> float | None:
        return self.policy.timeout

    @property
    def wrap_argument_errors(self) -> bool:
        return self.policy.wrap_argument_errors

    @property
    def propagate_execution_errors(self) -> bool:
        return self.policy.propagate_execution_errors

    @property
    def max_argument_chars(self) -> int:
        return self.policy.max_argument_chars

    @property
    def max_depth(self) -> int:
        return self.policy.max_depth

    @property
    def max_result_chars(self) -> int | None:
        return self.policy.max_result_chars

    def _compile_and_run(self, request: ToolExecutionRequest, memory_id: object = None
                         ) -> ToolExecutionResult:
        return self._compile()(request, memory_id)

    def _compile(self) -> FastExecute:
        """Generate the compiled call path and keep it as what :meth:`execute` runs."""
        watch_sigint()  # a Ctrl-C inside a tool stops the process; the tool's own exit does not
        policy = self.policy
        fast = make_execute(
            self.definition, strict=self.strict, parse=self.parse, scan=scan_object,
            max_chars=policy.max_argument_chars, max_depth=policy.max_depth,
            max_result_chars=policy.max_result_chars,
            on_argument_error=self._raise_argument_error, on_failure=self._execution_failure,
            finish=self._finish, result_type=ToolExecutionResult)
        self._run = fast
        return fast

    def rebound(self, func: Any) -> LocalToolExecutor:
        """The same tool, with the same settings, calling ``func`` (the method of another
        instance of the tool's class). Nothing is read or generated again: a compiled fast
        path is shared, run with the new executor's own call and callbacks."""
        from dataclasses import replace

        other = object.__new__(LocalToolExecutor)
        other.__dict__.update(self.__dict__)
        other.definition = replace(self.definition, call=func)
        other._generated = {"bind": self._bind}  # binding does not depend on the callable
        if self.timeout is not None:  # no fast path: the general one reads the definition
            other._run = other._general
            return other
        # the compiled path, compiled here when no call has compiled it yet
        remade = getattr(self._run, "remade", None) or self._compile().remade
        other._run = remade(func, other.parse, other._raise_argument_error,
                            other._execution_failure, other._finish)
        return other

    @property
    def _bind(self) -> Binder:
        bind: Binder | None = self._generated.get("bind")
        if bind is None:
            bind = self._generated["bind"] = make_binder(self.definition, strict=self.strict)
        return bind

    @property
    def _invoke(self) -> Callable[[tuple[Any, ...]], Any]:
        invoke: Callable[[tuple[Any, ...]], Any] | None = self._generated.get("invoke")
        if invoke is None:
            invoke = self._generated["invoke"] = make_invoker(self.definition)
        return invoke

    @property
    def specification(self) -> ToolSpecification:
        """The :class:`~agentforge_cli.core.define.spec.ToolSpecification` of this tool."""
        return self.definition.spec

    def __repr__(self) -> str:
        return f"LocalToolExecutor({self.definition.qualname}, name={self.name!r})"

    # -- the call ------------------------------------------------------------------------

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        """Execute one request.

        Args:
            request: The model's call; ``request.arguments`` is the raw JSON string.
            memory_id: The conversation's memory id (passed through to logging).

        Returns:
            The result: the text for the model and whether it reports an error.

        Raises:
            ArgumentError: The arguments cannot be bound (default policy).
            ToolArgumentsError: The same, when ``wrap_argument_errors`` is on.
            ToolExecutionError: The tool failed, when ``propagate_execution_errors`` is on.
        """
        return self._run(request, memory_id)

    def _general(self, request: ToolExecutionRequest, memory_id: object = None
                 ) -> ToolExecutionResult:
        """The call path step by step (the compiled one behaves the same, faster)."""
        arguments = self.parse(request.arguments)
        return self.call_bound(self._bind_parsed(arguments), arguments)

    async def aexecute(self, request: ToolExecutionRequest, memory_id: object = None
                       ) -> ToolExecutionResult:
        """Execute one request from async code, without blocking the event loop.

        An ``async def`` tool is awaited on the running loop (``timeout`` cancels it); a
        sync tool runs in a worker thread. Outcomes and errors are those of
        :meth:`execute`.
        """
        import asyncio

        if not self.definition.is_async:
            from agentforge_cli.core.run.coroutines import execute_in_thread

            return await execute_in_thread(self, request, memory_id)
        arguments = self.parse(request.arguments)
        values = self._bind_parsed(arguments)
        try:
            coro = self._invoke(values)
            if self.timeout is None:
                outcome = await coro
            else:
                async with asyncio.timeout(self.timeout) as scope:
                    outcome = await coro
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # our caller is being cancelled: not the tool's failure
            return self._execution_failure(asyncio.CancelledError("CancelledError"),
                                           arguments)
        except BaseException as exc:  # the tool's failure is the result
            if self.timeout is not None and isinstance(exc, TimeoutError) and scope.expired():
                exc = ToolTimeoutError(f'Tool "{self.name}" timed out after {self.timeout:g} s')
            return self._execution_failure(exc, arguments)
        return self._finish(outcome)

    def _bind_request(self, arguments: str | dict[str, Any] | None) -> tuple[Any, ...]:
        return self._bind_parsed(self.parse(arguments))

    def _bind_parsed(self, parsed: dict[str, Any]) -> tuple[Any, ...]:
        try:
            return self._bind(parsed)
        except ArgumentError as error:
            self._raise_argument_error(error)

    def parse(self, arguments: str | dict[str, Any] | None) -> dict[str, Any]:
        """Parse an argument string under this executor's limits (strict JSON, then repair).

        Raises:
            ArgumentError: As :meth:`execute` would (wrapped when configured).
        """
        try:
            policy = self.policy
            return parse_arguments(arguments, max_chars=policy.max_argument_chars,
                                   max_depth=policy.max_depth)
        except ArgumentError as error:
            self._raise_argument_error(error)

    def bind_arguments(self, arguments: str | dict[str, Any] | None) -> dict[str, Any]:
        """Parse and bind ``arguments`` without calling the tool.

        Returns:
            Python parameter name -> the value the tool would receive.

        Raises:
            ArgumentError: As :meth:`execute` would (wrapped when configured).
        """
        values = self._bind_request(arguments)
        return {p.name: v for p, v in zip(self.definition.params, values, strict=True)}

    def explain(self, arguments: str | dict[str, Any] | None) -> Explanation:
        """How ``arguments`` bind, parameter by parameter, without calling the tool (see
        :func:`~agentforge_cli.core.bind.diagnostics.explain`)."""
        from agentforge_cli.core.bind.diagnostics import explain

        explanation = explain(self, arguments)
        assert explanation is not None  # None only for an executor that is not local
        return explanation

    def explain_arguments(self, arguments: str | dict[str, Any] | None
                          ) -> ArgumentExplanation:
        """``--explain``'s rows: agentforge binds this tool's arguments (see
        :func:`~agentforge_cli.core.bind.argument_explanation.bound_explanation`)."""
        from agentforge_cli.core.bind.argument_explanation import bound_explanation

        return bound_explanation(self, arguments)

    def call_bound(self, values: tuple[Any, ...], arguments: dict[str, Any] | None = None
                   ) -> ToolExecutionResult:
        """Call the tool with bound values and normalise the outcome (no argument errors);
        a failure names what was filled in for the missing required ``arguments``."""
        try:
            if self.timeout is not None:
                outcome = self._invoke_with_timeout(values)
            else:
                outcome = self._invoke(values)
                if self.definition.is_async:
                    from agentforge_cli.core.run.coroutines import run_coroutine

                    outcome = run_coroutine(outcome)
        except BaseException as exc:  # the tool's failure is the result
            return self._execution_failure(exc, arguments)
        return self._finish(outcome)

    def _finish(self, outcome: Any) -> ToolExecutionResult:
        """Normalise a return value to the result text, under the result size limit."""
        end_forked_child()  # the tool returned in a child it forked: the child ends here
        try:
            text = result_text(outcome)
            limit = self.policy.max_result_chars
            if limit is not None and len(text) > limit:
                raise self.policy.too_large(self.name, f"{len(text)} characters")
        except BaseException as exc:  # an unserialisable or oversized result
            return self._execution_failure(exc)
        return ToolExecutionResult(text, False)

    def _invoke_with_timeout(self, values: tuple[Any, ...]) -> Any:
        def call() -> Any:
            outcome = self._invoke(values)
            if self.definition.is_async:
                import asyncio

                outcome = asyncio.run(outcome)
            return outcome

        timeout = self.policy.timeout
        assert timeout is not None  # called only with a timeout
        return call_with_timeout(call, timeout, self.name)

    # -- error policy ----------------------------------------------------------------------

    def _raise_argument_error(self, error: ArgumentError) -> typing.NoReturn:
        tool_argument_error(error, self.name, self.sensitive_keys)
        if self.wrap_argument_errors:
            raise ToolArgumentsError(str(error)) from error
        raise error

    def _execution_failure(self, exc: BaseException, arguments: dict[str, Any] | None = None
                           ) -> ToolExecutionResult:
        end_forked_child(exc)  # raised (sys.exit) in a child the tool forked: it ends here
        # a required argument filled in may be why it failed: the note says so first
        note = "" if arguments is None else missing_note(self.definition, self.strict,
                                                         arguments)
        return self.policy.failure(self.name, exc, note=note)
