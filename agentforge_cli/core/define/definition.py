"""A callable -> :class:`ToolDefinition`: the signature read once, in small steps.

1. find the function to read (``__wrapped__`` chain; the call still goes to the wrapper);
2. read its signature and resolved type hints (``from __future__ import annotations`` works);
3. read the docstring (summary, parameter descriptions);
4. turn each parameter into a :class:`ParamDef` (key, handler, default, required, ...),
   collecting every problem of the definition before raising once;
5. assemble the JSON Schema and the :class:`~agentforge_cli.core.define.spec.ToolSpecification`.

The binder (``binder.py``) and the executor are built from the definition, so nothing here
runs per call.
"""

from __future__ import annotations

import inspect
import types
import typing
from dataclasses import dataclass
from typing import Any

from agentforge_cli.core.declare.decorator import tool_meta
from agentforge_cli.core.define.docstrings import parse_docstring
from agentforge_cli.core.define.handlers.base import TypeHandler, property_schema
from agentforge_cli.core.define.handlers.param_info import param_metadata
from agentforge_cli.core.define.handlers.registry import BuildContext, UnsupportedTypeError
from agentforge_cli.core.define.handlers.schema_defs import finalize_schema
from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.core.observe.masking import fold_name, is_sensitive_name
from agentforge_cli.errors import ToolDefinitionError

__all__ = ["NO_DEFAULT", "ParamDef", "ToolDefinition", "define_tool", "tool_specification_from"]

NO_DEFAULT = inspect.Parameter.empty
"""Marks a parameter without a Python default."""

@dataclass(frozen=True, slots=True, kw_only=True)
class ParamDef:
    """One parameter of a tool, resolved once at registration."""

    name: str
    """The Python parameter name."""
    key: str
    """The JSON key the model uses (``P(name=...)`` or ``name``)."""
    handler: TypeHandler
    """Schema and coercer of the annotation."""
    keyword_only: bool
    """Passed by keyword (declared after ``*``)."""
    default: Any
    """The Python default, or :data:`NO_DEFAULT`."""
    optional: bool
    """The annotation is ``X | None``."""
    required: bool
    """Listed in the schema's ``required``."""
    sensitive: bool
    """``P(sensitive=True)`` or a key named like a secret: masked in every output."""
    description: str | None
    """From ``P`` or the docstring."""

    def missing_rule(self) -> str:
        """Name the rule that supplies a missing (or null) value in lenient mode."""
        if self.default is not NO_DEFAULT:
            return "missing -> the parameter's default"
        if self.optional:
            return "missing -> None (Optional)"
        return f"missing {self.handler.label} -> {self.handler.lenient_default!r} (lenient default)"

    def missing_value(self) -> Any:
        """The value a missing (or null) argument gets in lenient mode (refused when it
        breaks a constraint the parameter declares, see ``binder.broken_constraint``)."""
        if self.default is not NO_DEFAULT:
            return self.default
        if self.optional:
            return None
        return self.handler.lenient_default


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDefinition:
    """Everything about a tool that depends only on its signature."""

    name: str
    """Tool name."""
    description: str
    """Tool description."""
    params: tuple[ParamDef, ...]
    """Parameters in declaration order."""
    spec: ToolSpecification
    """What the model sees."""
    call: Any
    """The callable the executor invokes (the wrapper / bound method)."""
    original: Any
    """The function names and types were read from (unwrapped)."""
    is_async: bool
    """``async def`` (the result is awaited)."""
    qualname: str
    """``module.Class.method`` for messages."""
    sensitive_keys: frozenset[str]
    """JSON keys of the sensitive parameters (masked in every output)."""


def _target_function(func: Any, original: Any) -> tuple[Any, bool]:
    """Return ``(function to read, drop the first parameter)``."""
    drop_first = isinstance(func, types.MethodType)
    source = original if original is not None else func
    if isinstance(source, types.MethodType):
        source = source.__func__
        drop_first = True
    if isinstance(source, staticmethod | classmethod):
        drop_first = isinstance(source, classmethod)
        source = source.__func__
    source = inspect.unwrap(source)
    if isinstance(source, types.MethodType):  # wrapped a bound method
        source, drop_first = source.__func__, True
    return source, drop_first


def _qualname(func: Any) -> str:
    module = getattr(func, "__module__", None) or "?"
    return f"{module}.{getattr(func, '__qualname__', repr(func))}"


def define_tool(
    func: Any,
    *,
    name: str | None = None,
    description: str | None = None,
    original: Any = None,
) -> ToolDefinition:
    """Read a callable once and return its :class:`ToolDefinition`.

    Args:
        func: The function or bound method the executor will call.
        name: Tool name; defaults to ``@tool(name=...)``, then the function's name.
        description: Tool description; defaults to ``@tool(description=...)``, then the
            docstring's summary.
        original: The function to read names and types from, when ``func`` is a proxy
            that does not carry ``__wrapped__``.

    Raises:
        ToolDefinitionError: Listing every problem of the definition at once.
    """
    source, drop_first = _target_function(func, original)
    meta = tool_meta(func) or tool_meta(source)
    qualname = _qualname(source)
    tool_name = name or (meta.name if meta else None) or getattr(source, "__name__", None)
    if not tool_name or not isinstance(tool_name, str):
        raise ToolDefinitionError(f"{qualname}: cannot tell the tool's name; use @tool(name=...)")
    try:
        signature = inspect.signature(source)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"{qualname}: cannot read the signature: {exc}") from None
    try:
        hints = typing.get_type_hints(source, include_extras=True)
    except Exception as exc:  # NameError for an unresolvable forward reference, ...
        raise ToolDefinitionError(
            f"{qualname}: cannot resolve the type annotations: {exc}") from None
    doc = parse_docstring(source)
    tool_description = description if description is not None else (
        meta.description if meta and meta.description is not None else doc.summary)

    parameters = list(signature.parameters.values())
    looks_like_method = bool(parameters) and parameters[0].name in ("self", "cls") and (
        "." in getattr(source, "__qualname__", ""))
    if parameters and (drop_first or looks_like_method):
        parameters = parameters[1:]

    ctx = BuildContext()
    problems: list[str] = []
    params: list[ParamDef] = []
    for parameter in parameters:
        param = _param(parameter, hints, doc.params, ctx, qualname, problems)
        if param is not None:
            params.append(param)
    seen: dict[str, str] = {}
    for param in params:
        if param.key in seen:
            problems.append(f'{qualname}: parameters "{seen[param.key]}" and "{param.name}" '
                            f'both use the key "{param.key}"')
        seen[param.key] = param.name
    if problems:
        raise ToolDefinitionError(
            f"Tool {tool_name!r} cannot be defined:\n  " + "\n  ".join(problems),
            problems=problems)

    schema = finalize_schema(_parameters_schema(params), ctx.defs)
    spec = ToolSpecification(name=tool_name, description=tool_description, parameters=schema,
                             title=meta.title if meta else None,
                             annotations=meta.annotations if meta else None,
                             icons=[dict(icon) for icon in meta.icons]
                             if meta and meta.icons else None,
                             meta=dict(meta.meta) if meta and meta.meta else None)
    return ToolDefinition(
        name=tool_name, description=tool_description, params=tuple(params), spec=spec,
        call=func, original=source, is_async=inspect.iscoroutinefunction(source)
        or inspect.iscoroutinefunction(func), qualname=qualname,
        sensitive_keys=_sensitive_keys(params))


def _sensitive_keys(params: list[ParamDef]) -> frozenset[str]:
    """The names a sensitive parameter's value may arrive under: its JSON key and Python
    name, each also folded (a model's ``passCode`` for ``pass_code``)."""
    names = [name for p in params if p.sensitive for name in (p.key, p.name)]
    return frozenset(names) | frozenset(map(fold_name, names))


def _param(parameter: inspect.Parameter, hints: dict[str, Any], doc_params: dict[str, str],
           ctx: BuildContext, qualname: str, problems: list[str]) -> ParamDef | None:
    kind = parameter.kind
    where = f'{qualname}: parameter "{parameter.name}"'
    if kind is inspect.Parameter.VAR_POSITIONAL:
        problems.append(f"{where}: *{parameter.name} is not supported; declare each argument")
        return None
    if kind is inspect.Parameter.VAR_KEYWORD:
        problems.append(f"{where}: **{parameter.name} is not supported; declare each argument")
        return None
    if kind is inspect.Parameter.POSITIONAL_ONLY:
        problems.append(f"{where}: positional-only parameters are not supported; remove the '/'")
        return None
    annotation = hints.get(parameter.name, Any)
    metadata = (typing.get_args(annotation)[1:]
                if typing.get_origin(annotation) is typing.Annotated else ())
    info = param_metadata(metadata)
    try:
        handler = ctx.resolve(annotation)
    except UnsupportedTypeError as exc:
        problems.append(f"{where}: {exc}")
        return None
    except ToolDefinitionError as exc:
        problems.append(f"{where}: {exc}")
        return None
    optional = handler.optional_of is not None
    has_default = parameter.default is not inspect.Parameter.empty
    required = info.required if info.required is not None else not (has_default or optional)
    key = info.name or parameter.name
    return ParamDef(
        name=parameter.name, key=key, handler=handler,
        keyword_only=kind is inspect.Parameter.KEYWORD_ONLY, default=parameter.default,
        optional=optional, required=required,
        sensitive=info.sensitive or is_sensitive_name(key),
        description=info.description or doc_params.get(parameter.name))


def _parameters_schema(params: list[ParamDef]) -> dict[str, Any]:
    # a sensitive parameter's default is never published (it may be a secret)
    properties = {
        param.key: property_schema(param.handler, description=param.description,
                                   has_default=param.default is not NO_DEFAULT and not (
                                       param.sensitive and param.default is not None),
                                   default=param.default)
        for param in params}
    # unknown keys are refused (strict binding); the schema says so to every client
    return {"type": "object", "properties": properties,
            "required": [p.key for p in params if p.required], "additionalProperties": False}


def tool_specification_from(func: Any) -> ToolSpecification:
    """Generate the :class:`ToolSpecification` of a function or method.

    Args:
        func: A ``@tool`` function, a bound method, or a plain function (its name and
            docstring summary are used).

    Raises:
        ToolDefinitionError: When the signature cannot be turned into a tool.
    """
    return define_tool(func).spec
