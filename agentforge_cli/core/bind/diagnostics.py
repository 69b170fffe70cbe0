"""How a tool's arguments bind, without calling it: ``--explain`` and the bound-values views.

:func:`explain` traces each parameter (raw value, bound value, the rule used) and stops at
the first failing one, as a call does. :func:`try_bind` gives the values a call would
receive, or ``None``. Both work through wrappers such as the logging decorator and never
run the tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentforge_cli.core.bind.arguments import parse_arguments
from agentforge_cli.core.bind.binder import make_binder, param_binder, tool_argument_error
from agentforge_cli.core.bind.jsonvalues import describe, json_type
from agentforge_cli.core.define.capabilities import BindingToolExecutor, declares
from agentforge_cli.core.define.definition import ParamDef, ToolDefinition
from agentforge_cli.core.observe.masking import MASK, mask_text, mask_value
from agentforge_cli.core.run.wrapping import innermost
from agentforge_cli.errors import AgentForgeError, ArgumentError

__all__ = ["BOUND", "FAILED", "NOT_BOUND", "Explanation", "ParamTrace", "explain", "try_bind"]

BOUND = "bound"
FAILED = "failed"
NOT_BOUND = "not bound"


@dataclass(frozen=True, kw_only=True, slots=True)
class ParamTrace:
    """How one parameter was bound."""

    name: str
    """The JSON key."""
    raw: Any
    """The parsed JSON value received (``None`` when missing)."""
    present: bool
    """The key was present and not null."""
    value: Any
    """The Python value the tool receives (``None`` unless ``status`` is ``bound``)."""
    rule: str
    """The rule that produced the value, or why binding failed (secrets masked)."""
    sensitive: bool
    """``raw`` and ``value`` are secrets: show them as ``***``."""
    status: str = BOUND
    """``bound``, ``failed`` (this parameter stopped binding) or ``not bound``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Explanation:
    """What :func:`explain` found."""

    traces: tuple[ParamTrace, ...]
    """One trace per parameter, in declaration order."""
    error: str | None
    """The message the call would answer when binding fails (secrets masked), else
    ``None``."""


def try_bind(executor: Any, arguments: str | dict[str, Any] | None
             ) -> tuple[ToolDefinition, dict[str, Any]] | None:
    """``(definition, bound values)`` of a local tool's arguments, or ``None`` when
    ``executor`` is not a local tool or the arguments do not bind."""
    executor = innermost(executor)
    if not declares(executor, BindingToolExecutor):
        return None
    try:
        return executor.definition, executor.bind_arguments(arguments)
    except AgentForgeError:
        return None


def explain(executor: Any, arguments: str | dict[str, Any] | None) -> Explanation | None:
    """Trace, per parameter, the raw value, the bound value and the rule used.

    Binding stops at the first parameter that fails, as a call does: that parameter's
    trace is ``failed`` with the error as its rule, later ones are ``not bound``, and the
    explanation's ``error`` is the message the call would answer. Nothing is raised for
    argument errors. ``None`` when ``executor`` is not a local tool.
    """
    executor = innermost(executor)
    if not isinstance(executor, BindingToolExecutor):
        return None
    definition = executor.definition
    params, strict = definition.params, executor.strict

    def failed(error: ArgumentError) -> str:
        return str(tool_argument_error(error, definition.name, definition.sensitive_keys))

    try:
        parsed = parse_arguments(arguments, max_chars=executor.max_argument_chars,
                                 max_depth=executor.max_depth)
    except ArgumentError as error:
        return Explanation(traces=tuple(_not_bound(p, None) for p in params),
                           error=failed(error))
    traces: list[ParamTrace] = []
    for index, param in enumerate(params):
        raw = parsed.get(param.key)
        try:
            value = param_binder(definition, param, strict)(raw)
        except ArgumentError as error:
            traces.append(ParamTrace(name=param.key, raw=raw, present=raw is not None,
                                     value=None, rule=error.problem,
                                     sensitive=param.sensitive, status=FAILED))
            traces.extend(_not_bound(p, parsed.get(p.key)) for p in params[index + 1:])
            return Explanation(traces=tuple(traces), error=failed(error))
        traces.append(ParamTrace(name=param.key, raw=raw, present=raw is not None, value=value,
                                 rule=_rule(param, raw), sensitive=param.sensitive))
    try:  # what the binding as a whole refuses (strict: unknown keys)
        make_binder(definition, strict=strict)(parsed)
    except ArgumentError as error:
        return Explanation(traces=tuple(traces), error=failed(error))
    return Explanation(traces=tuple(traces), error=None)


def _not_bound(param: ParamDef, raw: Any) -> ParamTrace:
    return ParamTrace(name=param.key, raw=raw, present=raw is not None, value=None,
                      rule=NOT_BOUND, sensitive=param.sensitive, status=NOT_BOUND)


def _rule(param: ParamDef, raw: Any) -> str:
    """The rule that bound a present or missing value."""
    label = param.handler.label
    if raw is None:
        return param.missing_rule()
    if param.handler.fast_type is not None and type(raw) is param.handler.fast_type:
        return f"JSON {json_type(raw)} taken as is for {label}"
    # a secret-named key inside the value is masked, parsed or still encoded as text
    shown = f"<{MASK}>" if param.sensitive else mask_text(describe(mask_value(raw)))
    return f"JSON {json_type(raw)} {shown} coerced to {label}"
