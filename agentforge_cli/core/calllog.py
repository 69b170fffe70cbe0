"""``LoggingToolExecutor``: log every execution of any executor (SPEC 4.6, seed 3.6).

Before the call: tool name, arguments (secrets masked) and memory id. After: the result or
the error, and the duration in milliseconds. Records go to the ``agentforge.tools`` logger
at INFO (failures at WARNING) and carry the same facts as ``extra`` attributes
(``tool_event``, ``tool_name``, ``tool_arguments``, ``memory_id``, ``tool_result``,
``tool_is_error``, ``duration_ms``) so a front end can render them. Handlers are never
configured here; when the logger is not enabled for INFO the wrapper costs one check.

Masking: values of parameters marked ``P(sensitive=True)`` and of keys named like a secret
(``password``, ``secret``, ``token``, ``api_key``, ``authorization``, any case, at any
depth) are shown as ``***``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from agentforge_cli.core.masking import MASK, mask_text, mask_value
from agentforge_cli.core.spec import ToolExecutionRequest, ToolExecutionResult, ToolExecutor

__all__ = ["LOGGER_NAME", "MASK", "LoggingToolExecutor", "mask_arguments", "mask_value"]

LOGGER_NAME = "agentforge.tools"


def mask_arguments(arguments: Any, sensitive_keys: frozenset[str] = frozenset()) -> str:
    """The arguments as compact JSON with secrets masked.

    The text is parsed the way the executor parses it (repairs included), so a secret in
    a double-encoded or sloppy argument string is masked too; text that cannot be parsed
    is not shown.
    """
    from agentforge_cli.core.arguments import parse_arguments
    from agentforge_cli.core.jsonvalues import to_json_text
    from agentforge_cli.errors import ArgumentError

    try:
        parsed = parse_arguments(arguments)
    except ArgumentError:
        return mask_text(str(arguments), sensitive_keys)
    return to_json_text(mask_value(parsed, sensitive_keys))


class LoggingToolExecutor:
    """Wraps any executor and logs each execution.

    Args:
        delegate: The executor to wrap.
        logger: Logger to use; defaults to ``logging.getLogger("agentforge.tools")``.

    Attributes of the delegate (``definition``, ``explain``, ...) are reachable through
    this wrapper.
    """

    def __init__(self, delegate: ToolExecutor, logger: logging.Logger | None = None) -> None:
        self.delegate = delegate
        self.logger = logger or logging.getLogger(LOGGER_NAME)

    def __getattr__(self, name: str) -> Any:
        if name == "delegate":
            raise AttributeError(name)
        return getattr(self.delegate, name)

    def __repr__(self) -> str:
        return f"LoggingToolExecutor({self.delegate!r})"

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        """Log the request, execute it through the delegate, log the outcome."""
        if not self.logger.isEnabledFor(logging.INFO):
            return self.delegate.execute(request, memory_id)
        started = self._log_request(request, memory_id)
        try:
            result = self.delegate.execute(request, memory_id)
        except BaseException as exc:
            self._log_failure(request, memory_id, started, exc)
            raise
        self._log_response(request, memory_id, started, result)
        return result

    async def aexecute(self, request: ToolExecutionRequest, memory_id: object = None
                       ) -> ToolExecutionResult:
        """:meth:`execute` for async callers (awaits the delegate's ``aexecute``, or runs
        its ``execute`` in a worker thread)."""
        if hasattr(self.delegate, "aexecute"):
            run = self.delegate.aexecute(request, memory_id)
        else:
            import asyncio

            run = asyncio.to_thread(self.delegate.execute, request, memory_id)
        if not self.logger.isEnabledFor(logging.INFO):
            return await run
        started = self._log_request(request, memory_id)
        try:
            result = await run
        except BaseException as exc:
            self._log_failure(request, memory_id, started, exc)
            raise
        self._log_response(request, memory_id, started, result)
        return result

    def _log_request(self, request: ToolExecutionRequest, memory_id: object) -> float:
        shown = mask_arguments(request.arguments,
                               getattr(self.delegate, "sensitive_keys", frozenset()))
        self.logger.info(
            "Tool request: %s arguments=%s memory_id=%s", request.name, shown, memory_id,
            extra={"tool_event": "request", "tool_name": request.name,
                   "tool_arguments": shown, "memory_id": memory_id, "tool_call_id": request.id})
        return time.perf_counter()

    def _log_failure(self, request: ToolExecutionRequest, memory_id: object, started: float,
                     exc: BaseException) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        self.logger.warning(
            "Tool failed: %s error=%s: %s duration_ms=%.1f", request.name,
            type(exc).__name__, exc, elapsed,
            extra={"tool_event": "error", "tool_name": request.name, "tool_result": str(exc),
                   "tool_is_error": True, "duration_ms": elapsed, "memory_id": memory_id,
                   "tool_call_id": request.id})

    def _log_response(self, request: ToolExecutionRequest, memory_id: object, started: float,
                      result: ToolExecutionResult) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        level = logging.WARNING if result.is_error else logging.INFO
        self.logger.log(
            level, "Tool response: %s result=%s is_error=%s duration_ms=%.1f", request.name,
            result.text, result.is_error, elapsed,
            extra={"tool_event": "response", "tool_name": request.name,
                   "tool_result": result.text, "tool_is_error": result.is_error,
                   "duration_ms": elapsed, "memory_id": memory_id, "tool_call_id": request.id})
