"""What ``tools call --explain`` says of one call's arguments, as data.

Each executor describes its own binding (``explain_arguments``): a Python tool bound by
agentforge gives one row per parameter (:func:`bound_explanation`); a tool that another
party binds (an MCP server, another library's own path) gives the object it is sent and a
note saying who binds it (:func:`sent_explanation`). An executor that can say declares
:class:`ExplainingToolExecutor`. The command line only draws them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from agentforge_cli.core.bind.jsonvalues import json_safe
from agentforge_cli.core.define.spec import ToolExecutor

__all__ = ["ArgumentExplanation", "ExplainingToolExecutor", "ExplanationRow",
           "bound_explanation", "sent_explanation"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ExplanationRow:
    """One parameter: what was received and what became of it (JSON-safe, secrets masked)."""

    parameter: str
    """The JSON key."""
    present: bool
    """The key was present and not null."""
    raw: Any
    """The value received."""
    value: Any
    """The bound value, JSON-safe (``None`` unless bound by agentforge)."""
    python: str | None
    """The bound value as Python writes it (``None`` unless bound by agentforge)."""
    type: str | None
    """The bound value's Python type name (``None`` unless bound by agentforge)."""
    status: str
    """``bound``, ``failed``, ``not bound``; for a tool bound elsewhere ``sent``,
    ``missing`` or ``not sent``."""
    rule: str
    """The rule that bound the value, why binding failed, or who binds it."""

    def as_json(self) -> dict[str, Any]:
        """The row of ``--json``'s ``explain`` list."""
        return {"parameter": self.parameter, "present": self.present, "raw": self.raw,
                "value": self.value, "python": self.python, "type": self.type,
                "status": self.status, "rule": self.rule}


@dataclass(frozen=True, kw_only=True, slots=True)
class ArgumentExplanation:
    """How one call's arguments bind, or are sent on, without calling the tool."""

    rows: tuple[ExplanationRow, ...]
    """One row per parameter (and per undeclared key sent)."""
    error: str | None
    """Why the arguments do not bind (or do not parse), else ``None``."""
    sent: dict[str, Any] | None = None
    """For a tool bound elsewhere: the object sent as it is (``None`` when it does not
    parse, or when agentforge binds the arguments)."""
    note: str | None = None
    """For a tool bound elsewhere: who binds it, what is sent and the schema it declares;
    ``None`` when agentforge binds the arguments (the rows say it all)."""

    @property
    def bound_elsewhere(self) -> bool:
        """Another party (an MCP server, a library) binds the arguments."""
        return self.note is not None


@runtime_checkable
class ExplainingToolExecutor(ToolExecutor, Protocol):
    """An executor that says how a call's arguments bind (``tools call --explain``)."""

    def explain_arguments(self, arguments: str | dict[str, Any] | None
                          ) -> ArgumentExplanation:
        """How ``arguments`` bind, or are sent on, without calling the tool."""
        ...


def bound_explanation(executor: Any, text: str | dict[str, Any] | None
                      ) -> ArgumentExplanation:
    """The rows of a tool agentforge binds (:func:`~agentforge_cli.core.bind.diagnostics.explain`),
    masked; empty when ``executor`` is not a local tool."""
    from agentforge_cli.core.bind.diagnostics import BOUND, explain
    from agentforge_cli.core.observe.declared_secrets import sensitive_keys
    from agentforge_cli.core.observe.masking import MASK, mask_value

    explanation = explain(executor, text)
    if explanation is None:
        return ArgumentExplanation(rows=(), error=None)
    keys, traces = sensitive_keys(executor), explanation.traces
    raws = mask_value({t.name: json_safe(t.raw) for t in traces}, keys)
    values = mask_value({t.name: json_safe(t.value) for t in traces}, keys)
    rows = []
    for trace in traces:
        bound = trace.status == BOUND
        rows.append(ExplanationRow(
            parameter=trace.name, present=trace.present, raw=raws[trace.name],
            value=values[trace.name] if bound else None,
            python=(MASK if trace.sensitive else repr(mask_value(trace.value)))
            if bound else None,
            type=type(trace.value).__name__ if bound else None,
            status=trace.status, rule=trace.rule))
    return ArgumentExplanation(rows=tuple(rows), error=explanation.error)


def parsed_arguments(text: str | dict[str, Any] | None
                     ) -> tuple[dict[str, Any] | None, str | None]:
    """The object a tool bound elsewhere is sent (parsed as for Python tools), or the
    parse error."""
    from agentforge_cli.core.bind.arguments import parse_arguments
    from agentforge_cli.errors import ArgumentError

    try:
        return parse_arguments(text), None
    except ArgumentError as exc:
        return None, f"the arguments are not a JSON object: {exc}"


def sent_explanation(parameters: Any, text: str | dict[str, Any] | None, *, lead: str,
                     bound_by: str, schema_label: str) -> ArgumentExplanation:
    """Rows shaped like a Python tool's for a tool another party binds: what is sent per
    parameter of its schema (no coerced value), and a note: ``lead`` (who binds it), the
    object sent and the schema (``schema_label``: ``inputSchema``, ``schema``).
    ``bound_by`` opens each row's rule (``bound by the MCP server``)."""
    sent, error = parsed_arguments(text)
    given = sent or {}
    schema = parameters if isinstance(parameters, dict) else {}
    properties = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
    required = schema["required"] if isinstance(schema.get("required"), list) else []
    rows = []
    for key in dict.fromkeys([*properties, *given]):
        declared = properties.get(key)
        rule = (f"{bound_by}; {schema_label}: "
                + (json.dumps(declared, ensure_ascii=False) if declared is not None
                   else "not declared"))
        rows.append(ExplanationRow(
            parameter=key, present=key in given, raw=given.get(key), value=None,
            python=None, type=None,
            status="sent" if key in given else ("missing" if key in required else "not sent"),
            rule=rule + (" (required)" if key in required else "")))
    note = "\n".join([lead,
                      "sent: " + (json.dumps(sent, ensure_ascii=False) if error is None
                                  else error),
                      f"{schema_label}: " + json.dumps(parameters, ensure_ascii=False, indent=2)])
    return ArgumentExplanation(rows=tuple(rows), error=error, sent=sent, note=note)
