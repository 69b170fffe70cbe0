"""``LocalToolExecutor``: bind a model's arguments to a Python callable and call it.

Built once per tool: the definition (signature, handlers, schema) and a generated binder.
Per call: parse the argument string, bind, call (awaiting ``async def`` tools), normalise
the return value, and apply the error policy:

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

import threading
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

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
from agentforge_cli.core.run.forks import end_forked_child
from agentforge_cli.core.run.interrupts import raised_by_tool, watch_sigint
from agentforge_cli.core.run.returns import UnserializableResult, result_text
from agentforge_cli.errors import (
    ArgumentError,
    ToolArgumentsError,
    ToolExecutionError,
    ToolTimeoutError,
)

if TYPE_CHECKING:
    from agentforge_cli.core.bind.argument_explanation import ArgumentExplanation
    from agentforge_cli.core.bind.diagnostics import Explanation
    from agentforge_cli.core.define.spec import ToolSpecification

__all__ = [
    "DEFAULT_MAX_RESULT_CHARS",
    "LocalToolExecutor",
    "call_with_timeout",
    "error_message",
]

_T = TypeVar("_T")

DEFAULT_MAX_RESULT_CHARS = 4_194_304
"""Default limit on the length of a result text (characters)."""


class ResultTooLarge(Exception):
    """The tool's result text is longer than the executor's limit.

    An internal signal, outside the ``AgentForgeError`` tree: raised and caught inside the
    executors (this one and the framework executor), which turn it into the call's error
    result, or into the ``__cause__`` of a ``ToolExecutionError`` when they propagate
    (where fuzzing reads it as a bad result).
    """


def error_message(exc: BaseException) -> str:
    """The text a model sees for a tool's exception: its message, else its class name.

    A ``KeyError`` prints its argument's repr (``'no issue #99'``); the model gets the
    message itself, as for any other exception.
    """
    try:
        if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
            text = exc.args[0]
        else:
            text = str(exc)
    except Exception:
        text = ""
    return text if text.strip() else type(exc).__name__


def exit_name(exc: SystemExit | KeyboardInterrupt) -> str:
    """``SystemExit(2)``, ``SystemExit('usage: ...')``, ``KeyboardInterrupt``."""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r})" if exc.code is not None else "SystemExit"
    return type(exc).__name__


def call_with_timeout(call: Callable[[], _T], timeout: float, tool: str) -> _T:
    """``call()`` on a worker thread, waited for at most ``timeout`` seconds.

    Raises:
        ToolTimeoutError: Still running after ``timeout`` (the thread cannot be stopped
            and finishes in the background).
        BaseException: Whatever ``call`` raised.
    """
    box: list[_T] = []
    failure: list[BaseException] = []

    def worker() -> None:
        try:
            box.append(call())
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=worker, name=f"agentforge-tool-{tool}", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise ToolTimeoutError(f'Tool "{tool}" timed out after {timeout:g} s')
    if failure:
        raise failure[0]
    return box[0]


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
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.definition = definition
        self.name = definition.name
        self.strict = strict
        self.wrap_argument_errors = wrap_argument_errors
        self.propagate_execution_errors = propagate_execution_errors
        self.timeout = timeout
        self.max_argument_chars = max_argument_chars
        self.max_depth = max_depth
        self.max_result_chars = max_result_chars
        self.sensitive_keys = definition.sensitive_keys
        self._generated: dict[str, Any] = {}
        watch_sigint()  # a Ctrl-C inside a tool stops the process; the tool's own exit does not
        if timeout is None:
            # The first call compiles the per-tool fast path (binder.make_execute) and
            # installs it as this instance's ``execute``; registration compiles nothing.
            self.execute = self._compile_and_execute  # type: ignore[method-assign]  # per instance

    def _compile_and_execute(self, request: ToolExecutionRequest, memory_id: object = None
                             ) -> ToolExecutionResult:
        return self._compile()(request, memory_id)

    def _compile(self) -> FastExecute:
        """Generate the fast path and install it as this instance's ``execute``."""
        fast = make_execute(
            self.definition, strict=self.strict, parse=self.parse, scan=scan_object,
            max_chars=self.max_argument_chars, max_depth=self.max_depth,
            max_result_chars=self.max_result_chars,
            on_argument_error=self._raise_argument_error, on_failure=self._execution_failure,
            finish=self._finish, result_type=ToolExecutionResult)
        self.execute = fast  # type: ignore[method-assign]  # the fast path, per instance
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
            return other
        fast = self.__dict__["execute"]  # _compile_and_execute, or the fast path
        if getattr(fast, "__func__", None) is not None:  # not compiled yet: once, here
            fast = self._compile()
        other.execute = fast.remade(  # type: ignore[method-assign]  # the fast path, per instance
            func, other.parse, other._raise_argument_error, other._execution_failure,
            other._finish)
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
            return parse_arguments(arguments, max_chars=self.max_argument_chars,
                                   max_depth=self.max_depth)
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
            if self.max_result_chars is not None and len(text) > self.max_result_chars:
                raise ResultTooLarge(
                    f'Tool "{self.name}" returned {len(text)} characters, more than the limit'
                    f" of {self.max_result_chars}")
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

        assert self.timeout is not None  # called only with a timeout
        return call_with_timeout(call, self.timeout, self.name)

    # -- error policy ----------------------------------------------------------------------

    def _raise_argument_error(self, error: ArgumentError) -> typing.NoReturn:
        tool_argument_error(error, self.name, self.sensitive_keys)
        if self.wrap_argument_errors:
            raise ToolArgumentsError(str(error)) from error
        raise error

    def _execution_failure(self, exc: BaseException, arguments: dict[str, Any] | None = None
                           ) -> ToolExecutionResult:
        end_forked_child(exc)  # raised (sys.exit) in a child the tool forked: it ends here
        if not raised_by_tool(exc):
            raise exc  # a Ctrl-C of the process, not the tool's failure
        if isinstance(exc, SystemExit | KeyboardInterrupt):
            message = f'Tool "{self.name}" raised {exit_name(exc)}'
        elif isinstance(exc, UnserializableResult):
            message = f'Tool "{self.name}" returned {exc}'
        elif isinstance(exc, ToolTimeoutError | ResultTooLarge):
            message = str(exc)
        else:
            message = error_message(exc)
        if arguments is not None:  # a required argument filled in may be why it failed
            note = missing_note(self.definition, self.strict, arguments)
            if note:
                message = f"{note}; then: {message}"
        if self.propagate_execution_errors:
            if isinstance(exc, ToolExecutionError):
                raise exc
            raise ToolExecutionError(message) from exc
        return ToolExecutionResult(message, True)
