"""``LoggingToolExecutor``: log every execution of any executor.

Before the call: tool name, arguments (secrets masked), memory id and call id. After: the
result or the error, the duration in milliseconds and the call id. Through a standard
formatter each message is a line (a result or error may span several) that ``agentforge
replay`` reads back (:mod:`agentforge_cli.replay.transcripts.formats.call_log`). Records go to
the ``agentforge.tools`` logger at INFO (failures at WARNING) and carry the same facts as
``extra`` attributes (``tool_event``, ``tool_name``, ``tool_arguments``, ``memory_id``,
``tool_result``, ``tool_is_error``, ``duration_ms``) so a front end can render them.
Handlers are never configured here; when the logger is not enabled for INFO the wrapper
costs one check.

Arguments are masked by :func:`~agentforge_cli.core.observe.masking.mask_arguments` with the
tool's sensitive keys: values of parameters marked ``P(sensitive=True)`` and of keys
named like a secret (``password``, ``token``, ``api_key``, ... at any depth) show as
``***``.
"""

from __future__ import annotations

import json
import logging
import time

from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolExecutionResult, ToolExecutor
from agentforge_cli.core.observe.declared_secrets import sensitive_keys
from agentforge_cli.core.observe.masking import mask_arguments
from agentforge_cli.core.run.wrapping import DelegatingWrapper

__all__ = ["LOGGER_NAME", "LoggingToolExecutor"]

LOGGER_NAME = "agentforge.tools"


def _call_id(request: ToolExecutionRequest) -> str:
    """`` call_id="..."`` (JSON text) ending a record's message, when the call has an id:
    what pairs a response with its request when a log is replayed."""
    return "" if request.id is None else " call_id=" + json.dumps(request.id,
                                                                  ensure_ascii=False)


class LoggingToolExecutor(DelegatingWrapper):
    """Wraps any executor and logs each execution (``execute`` and ``aexecute``).

    Args:
        delegate: The executor to wrap.
        logger: Logger to use; defaults to ``logging.getLogger("agentforge.tools")``.

    Attributes of the delegate (``definition``, ``explain``, ...) are reachable through
    this wrapper.
    """

    def __init__(self, delegate: ToolExecutor, logger: logging.Logger | None = None) -> None:
        super().__init__(delegate)
        self.logger = logger or logging.getLogger(LOGGER_NAME)
        self._sensitive_keys = sensitive_keys(delegate)  # read once: masked in every log

    def __repr__(self) -> str:
        return f"LoggingToolExecutor({self.delegate!r})"

    # -- the call (execute / aexecute: ExecutorWrapper) -----------------------------------

    def _token(self, request: ToolExecutionRequest, memory_id: object) -> float | None:
        if not self.logger.isEnabledFor(logging.INFO):
            return None
        return self._log_request(request, memory_id)

    def _finish(self, request: ToolExecutionRequest, memory_id: object, started: float,
                result: ToolExecutionResult) -> ToolExecutionResult:
        self._log_response(request, memory_id, started, result)
        return result

    def _fail(self, request: ToolExecutionRequest, memory_id: object, started: float | None,
              exc: BaseException) -> ToolExecutionResult:
        if started is not None:
            self._log_failure(request, memory_id, started, exc)
        raise exc

    def _log_request(self, request: ToolExecutionRequest, memory_id: object) -> float:
        shown = mask_arguments(request.arguments, self._sensitive_keys)
        self.logger.info(
            "Tool request: %s arguments=%s memory_id=%s%s", request.name, shown, memory_id,
            _call_id(request),
            extra={"tool_event": "request", "tool_name": request.name,
                   "tool_arguments": shown, "memory_id": memory_id, "tool_call_id": request.id})
        return time.perf_counter()

    def _log_failure(self, request: ToolExecutionRequest, memory_id: object, started: float,
                     exc: BaseException) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        self.logger.warning(
            "Tool failed: %s error=%s: %s duration_ms=%.1f%s", request.name,
            type(exc).__name__, exc, elapsed, _call_id(request),
            extra={"tool_event": "error", "tool_name": request.name, "tool_result": str(exc),
                   "tool_is_error": True, "duration_ms": elapsed, "memory_id": memory_id,
                   "tool_call_id": request.id})

    def _log_response(self, request: ToolExecutionRequest, memory_id: object, started: float,
                      result: ToolExecutionResult) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        level = logging.WARNING if result.is_error else logging.INFO
        self.logger.log(
            level, "Tool response: %s result=%s is_error=%s duration_ms=%.1f%s", request.name,
            result.text, result.is_error, elapsed, _call_id(request),
            extra={"tool_event": "response", "tool_name": request.name,
                   "tool_result": result.text, "tool_is_error": result.is_error,
                   "duration_ms": elapsed, "memory_id": memory_id, "tool_call_id": request.id})
