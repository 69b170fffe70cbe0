"""The executor of an MCP server's tool (:class:`McpToolExecutor`): calling it sends
``tools/call`` with the arguments as given (the server binds them) and returns a
:class:`McpToolResult` (the text, plus the content blocks and ``structuredContent`` as the
server sent them); a tool that must be called as a task is called as any other (the
server answers, with its own refusal). The tools and their
executors come from :func:`~agentforge_cli.integrations.mcp.client.loading.load_mcp_tools`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentforge_cli.core.bind.argument_explanation import ArgumentExplanation, sent_explanation
from agentforge_cli.core.define.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolSpecification,
)
from agentforge_cli.core.observe.masking import (
    mask_target,
)
from agentforge_cli.core.run.call_policy import CallPolicy
from agentforge_cli.errors import (
    ToolErrorAnswer,
)
from agentforge_cli.integrations.mcp.client.broken_output import broken_output

if TYPE_CHECKING:
    from agentforge_cli.integrations.mcp.client.connection import McpConnection

__all__ = ["McpToolExecutor", "McpToolResult"]

class McpToolResult(ToolExecutionResult):
    """A :class:`ToolExecutionResult` that also keeps what the server sent: ``arguments``
    (the object sent), ``content`` (the blocks as plain JSON) and ``structured_content``
    (``structuredContent``, or ``None``). It compares as ``(text, is_error)``."""

    arguments: dict[str, Any]
    content: list[dict[str, Any]]
    structured_content: Any  # an object; any JSON value from a 2026-07-28 server


def _result(text: str, is_error: bool, arguments: dict[str, Any], answer: Any
            ) -> McpToolResult:
    result = McpToolResult(text, is_error)
    result.arguments = arguments
    result.content = [block.model_dump(mode="json", by_alias=True, exclude_none=True)
                      for block in answer.content]
    result.structured_content = answer.structured_content
    return result


class McpToolExecutor:
    """Runs one tool of an MCP server: ``tools/call`` with the request's arguments.

    The arguments are parsed leniently (as for local tools) and sent as given; the result's
    blocks are rendered one per line (:mod:`~agentforge_cli.core.run.content_blocks`) and
    its ``isError`` kept (an :class:`McpToolResult`). Its :attr:`policy` bounds the
    arguments and the result as a Python tool's, and answers a failed call (the call's
    time limit is the connection's).
    """

    __slots__ = ("connection", "name", "policy", "specification")

    def __init__(self, connection: McpConnection, specification: ToolSpecification, *,
                 propagate_execution_errors: bool = False) -> None:
        self.connection = connection
        self.specification = specification
        self.name = specification.name
        self.policy = CallPolicy(propagate_execution_errors=propagate_execution_errors)
        """The limits and the error switch of every call."""

    @property
    def propagate_execution_errors(self) -> bool:
        """Raise a failed call (``ToolErrorAnswer``, ``ToolExecutionError``)."""
        return self.policy.propagate_execution_errors

    def __repr__(self) -> str:
        return f"<McpToolExecutor {self.name} of {mask_target(self.connection.spec)}>"

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        from mcp.shared.exceptions import MCPError

        from agentforge_cli.core.bind.arguments import parse_arguments
        from agentforge_cli.core.run.content_blocks import blocks_text
        from agentforge_cli.integrations.mcp.client.transports.stdio_framing import TOO_LARGE_CODE

        policy = self.policy
        arguments = parse_arguments(request.arguments, max_chars=policy.max_argument_chars,
                                    max_depth=policy.max_depth)
        try:
            result = self.connection.call(self.name, arguments)
        except MCPError as exc:  # a JSON-RPC error answer: the call failed
            if exc.code == TOO_LARGE_CODE:  # an answer past the limit of a line
                return self._too_large(f"an answer of {exc.error.data} bytes")
            return self._failed(f"Error executing tool {self.name}: {exc.message}", exc.code)
        except RuntimeError as exc:  # connection.call lets only a broken result through
            text = broken_output(exc, self.name)
            if text is None:
                raise
            return self.policy.failure(self.name, ToolErrorAnswer(text))
        text = blocks_text(block.model_dump(mode="json", by_alias=True, exclude_none=True)
                            for block in result.content)
        limit = policy.max_result_chars  # the limit a Python tool's result has
        if limit is not None and len(text) > limit:
            return self._too_large(f"{len(text)} characters")
        if result.is_error:
            if policy.propagate_execution_errors:
                raise ToolErrorAnswer(text)
            return _result(text, True, arguments, result)
        return _result(text, False, arguments, result)

    def _too_large(self, size: str) -> ToolExecutionResult:
        return self.policy.failure(self.name, self.policy.too_large(self.name, size))

    def _failed(self, text: str, code: int) -> ToolExecutionResult:
        return self.policy.failure(self.name, ToolErrorAnswer(text, code=code))

    def explain_arguments(self, arguments: str | dict[str, Any] | None
                          ) -> ArgumentExplanation:
        """``--explain``: the server binds the arguments; what it is sent, per parameter."""
        return sent_explanation(
            self.specification.parameters, arguments, bound_by="bound by the MCP server",
            schema_label="inputSchema",
            lead=f"{self.name} is served by MCP server {self.connection.shown}: agentforge "
                 "parses the arguments and sends the object as it is; the server binds it "
                 "(no coercion here).")
