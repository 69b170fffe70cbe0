"""``TracingToolExecutor``: an OpenTelemetry span for every execution of any executor.

Each call is an ``execute_tool {name}`` span, as the OpenTelemetry GenAI conventions name
it, a child of whatever span is current (the agent's run): ``gen_ai.operation.name`` is
``execute_tool``, with ``gen_ai.tool.name``, ``gen_ai.tool.call.id`` and, on failure,
``error.type`` and an error status. The arguments (secrets masked, as the call log masks
them) and the result text are recorded as ``gen_ai.tool.call.arguments`` and
``gen_ai.tool.call.result`` only with ``record_content=True``: the conventions make content
opt-in. Such a trace, exported as OTLP JSON, is a transcript ``agentforge replay`` reads.

``opentelemetry-api`` is imported when a wrapper is made, never by importing this module.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolExecutionResult, ToolExecutor
from agentforge_cli.core.observe.declared_secrets import sensitive_keys
from agentforge_cli.core.observe.masking import mask_arguments
from agentforge_cli.core.run.wrapping import DelegatingWrapper

__all__ = ["TRACER_NAME", "TracingToolExecutor"]

TRACER_NAME = "agentforge.tools"


class TracingToolExecutor(DelegatingWrapper):
    """Wraps any executor and traces each execution (``execute`` and ``aexecute``).

    Args:
        delegate: The executor to wrap.
        record_content: Also record the arguments (masked) and the result text.
        tracer_provider: Where spans go; the global provider by default.

    Raises:
        ImportError: ``opentelemetry-api`` is not installed.
    """

    def __init__(self, delegate: ToolExecutor, *, record_content: bool = False,
                 tracer_provider: Any = None) -> None:
        from opentelemetry import trace

        super().__init__(delegate)
        self._sensitive_keys = sensitive_keys(delegate)  # read once: masked in every span
        self.record_content = record_content
        self._tracer = trace.get_tracer(TRACER_NAME, tracer_provider=tracer_provider)
        self._error = trace.Status(trace.StatusCode.ERROR)

    def __repr__(self) -> str:
        return f"TracingToolExecutor({self.delegate!r})"

    def _token(self, request: ToolExecutionRequest, memory_id: object) -> Any:
        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": request.name}
        if request.id is not None:
            attributes["gen_ai.tool.call.id"] = request.id
        if self.record_content:
            attributes["gen_ai.tool.call.arguments"] = mask_arguments(
                request.arguments, self._sensitive_keys)
        span = self._tracer.start_span(f"execute_tool {request.name}", attributes=attributes)
        return span

    def _finish(self, request: ToolExecutionRequest, memory_id: object, span: Any,
                result: ToolExecutionResult) -> ToolExecutionResult:
        if self.record_content:
            span.set_attribute("gen_ai.tool.call.result", result.text)
        if result.is_error:
            span.set_attribute("error.type", "tool_error")
            span.set_status(self._error)
        span.end()
        return result

    def _fail(self, request: ToolExecutionRequest, memory_id: object, span: Any,
              exc: BaseException) -> ToolExecutionResult:
        span.set_attribute("error.type", type(exc).__qualname__)
        span.record_exception(exc)
        span.set_status(self._error)
        span.end()
        raise exc
