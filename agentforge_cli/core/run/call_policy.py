"""``CallPolicy``: the limits of a call and what its failure becomes, for every executor.

One frozen value holds the argument and result limits, the timeout and the two error
switches; :meth:`CallPolicy.failure` is the one place where a failure — an exception from
the tool (``SystemExit`` and ``KeyboardInterrupt`` included), a result past the limit
(:meth:`CallPolicy.too_large`), an unserialisable result, a timeout — becomes the error
result the model reads, or the ``ToolExecutionError`` raised instead when
``propagate_execution_errors`` is on. The local, framework and MCP executors all answer
through it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from agentforge_cli.core.bind.arguments import DEFAULT_MAX_ARGUMENT_CHARS, DEFAULT_MAX_DEPTH
from agentforge_cli.core.define.spec import ToolExecutionResult
from agentforge_cli.core.run.interrupts import raised_by_tool
from agentforge_cli.core.run.returns import UnserializableResult
from agentforge_cli.errors import ToolExecutionError, ToolTimeoutError

__all__ = ["DEFAULT_MAX_RESULT_CHARS", "CallPolicy", "ResultTooLarge", "call_with_timeout",
           "error_message", "exit_name"]

_T = TypeVar("_T")

DEFAULT_MAX_RESULT_CHARS = 4_194_304
"""Default limit on the length of a result text (characters)."""


class ResultTooLarge(Exception):
    """The tool's result text is longer than the executor's limit.

    An internal signal, outside the ``AgentForgeError`` tree: raised and caught inside the
    executors, which turn it (through :meth:`CallPolicy.failure`) into the call's error
    result, or into the ``__cause__`` of a ``ToolExecutionError`` when they propagate
    (where fuzzing reads it as a bad result).
    """


@dataclass(frozen=True, kw_only=True, slots=True)
class CallPolicy:
    """How an executor bounds a call and answers its failure."""

    max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS
    """Longest argument string accepted."""
    max_depth: int = DEFAULT_MAX_DEPTH
    """Deepest nesting of arrays/objects accepted in the arguments."""
    max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS
    """Longest result text returned; a longer one is an execution error (``None``: no
    limit)."""
    timeout: float | None = None
    """Seconds a call may run; a call still running after that is an execution error."""
    wrap_argument_errors: bool = False
    """Raise argument errors as ``ToolArgumentsError``."""
    propagate_execution_errors: bool = False
    """Raise a failure as ``ToolExecutionError`` instead of answering it."""

    def __post_init__(self) -> None:
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError(
                f"timeout must be a positive number of seconds, got {self.timeout!r}")

    def too_large(self, tool: str, size: str, limit: int | None = None) -> ResultTooLarge:
        """The failure of a result past the limit: ``Tool "x" returned 12 characters, more
        than the limit of 10`` (``size`` says how large: ``12 characters``, ``an answer of
        N bytes``; ``limit``: the one passed, else this policy's)."""
        return ResultTooLarge(f'Tool "{tool}" returned {size}, more than the limit of '
                              f"{self.max_result_chars if limit is None else limit}")

    def failure(self, tool: str, exc: BaseException, *, note: str = "",
                describe: Callable[[BaseException], str] | None = None
                ) -> ToolExecutionResult:
        """The error result of ``exc``, a failure of the call of ``tool``.

        The text: ``Tool "x" raised SystemExit(2)`` for an exit, ``Tool "x" returned ...``
        for an unserialisable result, the message itself for a timeout or a result past
        the limit, else ``describe(exc)`` (the words of the library that ran the tool) or
        the exception's message (:func:`error_message`); ``note`` (what a lenient binding
        filled in) goes first.

        Raises:
            BaseException: ``exc`` itself when it is a real Ctrl-C of the process, not
                the tool's, or a ``ToolExecutionError`` with propagation on.
            ToolExecutionError: The text, chained to ``exc``, with propagation on.
        """
        if not raised_by_tool(exc):
            raise exc  # a Ctrl-C of the process, not the tool's failure
        if isinstance(exc, SystemExit | KeyboardInterrupt):
            message = f'Tool "{tool}" raised {exit_name(exc)}'
        elif isinstance(exc, UnserializableResult):
            message = f'Tool "{tool}" returned {exc}'
        elif isinstance(exc, ToolTimeoutError | ResultTooLarge):
            message = str(exc)
        elif describe is not None:
            message = describe(exc)
        else:
            message = error_message(exc)
        if note:
            message = f"{note}; then: {message}"
        if self.propagate_execution_errors:
            if isinstance(exc, ToolExecutionError):
                raise exc
            raise ToolExecutionError(message) from exc
        return ToolExecutionResult(message, True)

    def call(self, call: Callable[[], _T], tool: str) -> _T:
        """``call()``, on a worker thread waited for at most :attr:`timeout` when the
        policy has one (:func:`call_with_timeout`)."""
        if self.timeout is None:
            return call()
        return call_with_timeout(call, self.timeout, tool)


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
