"""The JSON object ``tools call --json`` prints for one call: the request, how its
arguments bound, then the result or the failure, in one fixed key order."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentforge_cli.core.bind.diagnostics import try_bind
from agentforge_cli.core.bind.jsonvalues import json_safe
from agentforge_cli.core.observe.masking import mask_value

if TYPE_CHECKING:
    from agentforge_cli.core.bind.argument_explanation import ArgumentExplanation
    from agentforge_cli.core.define.spec import ToolExecutionRequest

__all__ = ["KEYS", "answered", "bound_arguments", "call_document", "cause_text", "failed"]

KEYS = ("name", "result", "is_error", "content", "structuredContent", "arguments", "id",
        "memory_id", "binding", "error", "repairs", "explain")
"""The keys of the object, in the order it prints them."""


def bound_arguments(executor: Any, text: str | None) -> dict[str, Any] | None:
    """Bound values keyed by JSON key, JSON-safe, secrets masked; ``None`` if they fail."""
    bound = try_bind(executor, text)
    if bound is None:
        return None
    definition, values = bound
    masked: dict[str, Any] = mask_value(
        {p.key: json_safe(values[p.name]) for p in definition.params}, definition.sensitive_keys)
    return masked


def call_document(request: ToolExecutionRequest, memory_id: str | None, executor: Any,
                  explained: ArgumentExplanation, ran: str | None) -> dict[str, Any]:
    """The object before the call: the request and its arguments — as sent when another
    library binds them, else as bound (``None`` when they do not bind) — and the binding
    path ``ran`` of another library's tool."""
    document: dict[str, Any] = {"name": request.name, "id": request.id,
                                "memory_id": memory_id}
    document["arguments"] = (explained.sent if explained.bound_elsewhere
                             else bound_arguments(executor, request.arguments))
    if ran is not None:
        document["binding"] = ran
    return document


def answered(document: dict[str, Any], result: Any,
             explain: list[Any] | None, repairs: tuple[str, ...]) -> dict[str, Any]:
    """The object after the call answered (``result``, a ``ToolExecutionResult`` or an MCP
    tool's result): the result's text, whether it is an error, an
    MCP tool's ``content`` and ``structuredContent``, and the ``--explain`` rows and
    repairs when asked (``explain`` is not ``None``)."""
    document = {**document, "result": result.text, "is_error": bool(result.is_error)}
    content = getattr(result, "content", None)  # only an MCP tool's result has blocks
    if content is not None:
        document["content"] = content
        if result.structured_content is not None:
            document["structuredContent"] = result.structured_content
    if explain is not None:
        document.update(explain=explain, repairs=list(repairs))
    return _ordered(document)


def cause_text(exc: BaseException) -> str | None:
    """``Type: message`` of what the tool raised (the propagated error's cause)."""
    cause = exc.__cause__
    return f"{type(cause).__name__}: {cause}" if cause is not None else None


def failed(document: dict[str, Any], exc: BaseException, explain: list[Any] | None
           ) -> dict[str, Any]:
    """The object after the tool's exception was propagated: no result, the error's type,
    message and cause, and the ``--explain`` rows when asked."""
    document = {**document, "result": None, "is_error": True,
                "error": {"type": type(exc).__name__, "message": str(exc),
                          "cause": cause_text(exc)}}
    if explain is not None:
        document["explain"] = explain
    return _ordered(document)


def _ordered(document: dict[str, Any]) -> dict[str, Any]:
    return {key: document[key] for key in KEYS if key in document}
