"""The type registry: one table from a Python type to its :class:`TypeHandler`.

A handler carries both the JSON Schema and the coercer of a type, so the schema a model
sees and the binding its arguments get cannot disagree. Three tables are consulted in
order:

* ``EXACT`` — a type itself (``str``, ``int``, ``Decimal``, ``UUID``, ``datetime``, ...);
* ``GENERIC`` — a generic origin (``list[T]``, ``dict[K, V]``, ``tuple[...]``,
  ``Literal``, ``Union``, ``Annotated``, ...);
* ``CLASS_RULES`` — a predicate on a class (``Enum``, dataclass, ``TypedDict``,
  ``NamedTuple``, pydantic model).

Object types are filed under ``$defs`` while a tool is built (:class:`BuildContext`);
:func:`~agentforge_cli.core.define.handlers.schema_defs.finalize_schema` inlines each one again
unless it recurs. :mod:`~agentforge_cli.core.define.handlers.param_info` merges a parameter's
``P(...)`` marks.
"""

from __future__ import annotations

import collections.abc as cabc
import datetime as _dt
import enum
import pathlib
import re
import types
import typing
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from agentforge_cli.core.declare.params import FixedWidth
from agentforge_cli.core.define.handlers import choices, containers, objects, scalars
from agentforge_cli.core.define.handlers.base import TypeHandler
from agentforge_cli.core.define.handlers.param_info import param_metadata
from agentforge_cli.errors import ToolDefinitionError

__all__ = ["EXACT", "BuildContext", "UnsupportedTypeError", "handler_for", "is_typeddict",
           "type_label"]


class UnsupportedTypeError(ToolDefinitionError):
    """An annotation no handler supports."""


class BuildContext:
    """State while one tool's handlers are built: ``$defs`` and object recursion.

    Attributes:
        defs: ``$defs`` name -> schema of every object type met so far.
    """

    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}
        self._objects: dict[type, TypeHandler] = {}
        self._names: dict[str, type] = {}

    def resolve(self, annotation: Any) -> TypeHandler:
        """Return the handler of ``annotation`` (see :func:`handler_for`)."""
        return handler_for(annotation, self)

    def define(self, cls: type,
               build: Callable[[], tuple[dict[str, Any], Callable[[Any], Any]]]
               ) -> TypeHandler:
        """Return the handler of an object type, building it once per tool.

        A recursive reference met while building gets the same handler; its coercer is a
        trampoline that reaches the real one once the build finishes.
        """
        known = self._objects.get(cls)
        if known is not None:
            return known
        name = self._def_name(cls)
        cell: list[Callable[[Any], Any]] = []

        def trampoline(value: Any) -> Any:
            return cell[0](value)

        handler = TypeHandler(label=cls.__name__, schema={"$ref": f"#/$defs/{name}"},
                              coerce=trampoline, json_types=frozenset({"object"}))
        self._objects[cls] = handler
        schema, coerce = build()
        cell.append(coerce)
        handler.coerce = coerce
        self.defs[name] = schema
        return handler

    def _def_name(self, cls: type) -> str:
        name = cls.__name__
        owner = self._names.get(name)
        if owner is not None and owner is not cls:
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{cls.__module__}.{cls.__qualname__}")
        self._names[name] = cls
        return name


# --- the tables -------------------------------------------------------------------------

EXACT: dict[Any, Callable[[], TypeHandler]] = {
    str: scalars.str_handler,
    bool: scalars.bool_handler,
    int: scalars.int_handler,
    float: scalars.float_handler,
    Decimal: scalars.decimal_handler,
    uuid.UUID: scalars.uuid_handler,
    _dt.datetime: lambda: scalars.iso_handler(_dt.datetime),
    _dt.date: lambda: scalars.iso_handler(_dt.date),
    _dt.time: lambda: scalars.iso_handler(_dt.time),
    pathlib.Path: scalars.path_handler,
    Any: scalars.any_handler,
    object: scalars.any_handler,
}
"""Types handled as they are: type -> a function building its handler. Adding a type is
one handler function and one line here (see docs/adding-a-type.md)."""

_BUILT: dict[Callable[[], TypeHandler], TypeHandler] = {}
"""Each ``EXACT`` handler, built once (keyed by its maker, so the table stays the truth)."""

_ARRAY_BUILDS: dict[Any, type] = {
    list: list, cabc.Sequence: list, cabc.MutableSequence: list, cabc.Iterable: list,
    cabc.Collection: list, set: set, cabc.Set: set, cabc.MutableSet: set,
    frozenset: frozenset,
}
_MAPPINGS = {dict, cabc.Mapping, cabc.MutableMapping}


def _array(origin: Any, args: tuple[Any, ...], ctx: BuildContext) -> TypeHandler:
    item = ctx.resolve(args[0] if args else Any)
    build = _ARRAY_BUILDS[origin]
    return containers.array_handler(item, build, f"{build.__name__}[{item.label}]")


def _tuple(origin: Any, args: tuple[Any, ...], ctx: BuildContext) -> TypeHandler:
    if not args or (len(args) == 2 and args[1] is Ellipsis):
        item = ctx.resolve(args[0] if args else Any)
        return containers.array_handler(item, tuple, f"tuple[{item.label}, ...]")
    if args == ((),):
        return containers.fixed_tuple_handler([], "tuple[()]")
    items = [ctx.resolve(a) for a in args]
    return containers.fixed_tuple_handler(items, f"tuple[{', '.join(h.label for h in items)}]")


def _mapping(origin: Any, args: tuple[Any, ...], ctx: BuildContext) -> TypeHandler:
    key = ctx.resolve(args[0] if args else str)
    value = ctx.resolve(args[1] if len(args) > 1 else Any)
    if "string" not in key.json_types and key.schema.get("type") not in ("integer", "number"):
        raise UnsupportedTypeError(f"dict keys must be str, a number or an Enum, got {key.label}")
    return containers.mapping_handler(key, value, f"dict[{key.label}, {value.label}]")


def _union(origin: Any, args: tuple[Any, ...], ctx: BuildContext) -> TypeHandler:
    members = [a for a in args if a is not type(None)]
    if len(members) < len(args):  # X | None
        inner = members[0] if len(members) == 1 else typing.Union[tuple(members)]  # noqa: UP007
        return choices.optional_handler(ctx.resolve(inner))
    return choices.union_handler([ctx.resolve(a) for a in members])


def _literal(origin: Any, args: tuple[Any, ...], ctx: BuildContext) -> TypeHandler:
    return choices.literal_handler(args)


def _annotated(origin: Any, args: tuple[Any, ...], ctx: BuildContext) -> TypeHandler:
    base, metadata = args[0], args[1:]
    if typing.get_origin(base) in (typing.Union, types.UnionType) and type(None) in (
            typing.get_args(base)):
        rest = [a for a in typing.get_args(base) if a is not type(None)]
        inner = rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007
        return choices.optional_handler(ctx.resolve(typing.Annotated[(inner, *metadata)]))
    handler = ctx.resolve(base)
    info = param_metadata(metadata)
    fixed = next((m for m in metadata if isinstance(m, FixedWidth)), None)
    minimum = info.minimum if info.minimum is not None else (fixed.minimum if fixed else None)
    maximum = info.maximum if info.maximum is not None else (fixed.maximum if fixed else None)
    if minimum is not None or maximum is not None:
        handler = _bounded(base, handler, fixed, minimum, maximum)
    if info.description:
        handler = _described(handler, info.description)
    return handler


def _bounded(base: Any, handler: TypeHandler, fixed: FixedWidth | None,
             minimum: scalars.Bound, maximum: scalars.Bound) -> TypeHandler:
    label = fixed.label if fixed else handler.label
    exact = fixed is not None and minimum == fixed.minimum and maximum == fixed.maximum
    if base is int:
        return scalars.int_handler(label, minimum, maximum, fixed=exact)
    if base is float:
        return scalars.float_handler(label, minimum, maximum, fixed=exact)
    if base is Decimal:
        return scalars.decimal_handler(minimum, maximum)
    raise UnsupportedTypeError(f"minimum/maximum apply to int, float and Decimal, not {label}")


def _described(handler: TypeHandler, description: str) -> TypeHandler:
    return TypeHandler(label=handler.label, schema={**handler.schema, "description": description},
                       coerce=handler.coerce, json_types=handler.json_types,
                       fast_type=handler.fast_type, lenient_default=handler.lenient_default,
                       optional_of=handler.optional_of)


def _required_wrapper(origin: Any, args: tuple[Any, ...], ctx: BuildContext) -> TypeHandler:
    return ctx.resolve(args[0])


GENERIC: dict[Any, Callable[[Any, tuple[Any, ...], BuildContext], TypeHandler]] = {
    **dict.fromkeys(_ARRAY_BUILDS, _array),
    tuple: _tuple,
    **dict.fromkeys(_MAPPINGS, _mapping),
    typing.Union: _union,
    types.UnionType: _union,
    typing.Literal: _literal,
    typing.Annotated: _annotated,
    typing.Required: _required_wrapper,
    typing.NotRequired: _required_wrapper,
    typing.ClassVar: _required_wrapper,
}
"""Generic origins (``typing.get_origin``) and how to build them."""


def _enum(cls: type, ctx: BuildContext) -> TypeHandler:
    return choices.enum_handler(cls)


def _fields_object(cls: type, ctx: BuildContext) -> TypeHandler:
    from agentforge_cli.core.define.docstrings import parse_docstring

    def build() -> tuple[dict[str, Any], Callable[[Any], Any]]:
        # the class's own docstring: inspect.getdoc would inherit dict's or a base's
        doc = parse_docstring(cls.__dict__.get("__doc__") or "")
        fields = []
        for name, annotation, has_default, default in objects.object_fields(cls):
            info = param_metadata(typing.get_args(annotation)[1:]
                                  if typing.get_origin(annotation) is typing.Annotated else ())
            fields.append(objects.FieldSpec(
                attr=name, key=info.name or name, handler=ctx.resolve(annotation),
                has_default=has_default, default=default,
                description=info.description or doc.params.get(name)))
        if objects.is_named_tuple(cls) or not is_typeddict(cls):
            construct: Callable[[dict[str, Any]], Any] = lambda kw: cls(**kw)  # noqa: E731
        else:
            construct = dict
        schema, coerce = objects.object_handler(cls.__name__, fields, construct)
        summary = doc.summary
        if summary and not summary.startswith(f"{cls.__name__}("):
            schema = {"description": summary, **schema}
        return {"title": cls.__name__, **schema}, coerce

    return ctx.define(cls, build)


def _pydantic(cls: type, ctx: BuildContext) -> TypeHandler:
    def build() -> tuple[dict[str, Any], Callable[[Any], Any]]:
        # is_pydantic_model chose the class (by duck typing: the core never imports pydantic)
        model = typing.cast("objects.ModelClass", cls)
        schema, nested, coerce = objects.pydantic_handler_parts(model)
        for name, sub in nested.items():
            ctx.defs.setdefault(name, sub)
        return schema, coerce

    return ctx.define(cls, build)


def is_typeddict(cls: type) -> bool:
    """True for ``typing.TypedDict`` classes (and ``typing_extensions``' on 3.11)."""
    return isinstance(cls, type) and issubclass(cls, dict) and hasattr(cls, "__total__")


def _is_dataclass_type(cls: type) -> bool:
    import dataclasses

    return dataclasses.is_dataclass(cls)


CLASS_RULES: list[tuple[Callable[[type], bool], Callable[[type, BuildContext], TypeHandler]]] = [
    (lambda c: issubclass(c, enum.Enum), _enum),
    (_is_dataclass_type, _fields_object),
    (is_typeddict, _fields_object),
    (objects.is_named_tuple, _fields_object),
    (objects.is_pydantic_model, _pydantic),
]
"""Class predicates, tried in order, and the handler each builds."""


# --- lookup ------------------------------------------------------------------------------

def handler_for(annotation: Any, ctx: BuildContext) -> TypeHandler:
    """Return the :class:`TypeHandler` for an annotation.

    Raises:
        UnsupportedTypeError: When no table knows the annotation.
    """
    try:
        maker = EXACT.get(annotation)
    except TypeError:  # unhashable annotation
        maker = None
    if maker is not None:
        handler = _BUILT.get(maker)
        if handler is None:
            handler = _BUILT[maker] = maker()
        return handler
    origin = typing.get_origin(annotation)
    if origin is not None:
        build = GENERIC.get(origin)
        if build is not None:
            return build(origin, typing.get_args(annotation), ctx)
    elif annotation in _ARRAY_BUILDS or annotation in _MAPPINGS or annotation is tuple:
        return GENERIC[annotation](annotation, (), ctx)
    if annotation is None or annotation is type(None):
        return choices.literal_handler((None,))
    supertype = getattr(annotation, "__supertype__", None)  # typing.NewType
    if supertype is not None:
        return ctx.resolve(supertype)
    if isinstance(annotation, type):
        for applies, build_class in CLASS_RULES:
            if applies(annotation):
                return build_class(annotation, ctx)
    raise UnsupportedTypeError(f"unsupported type {type_label(annotation)}")


def type_label(annotation: Any) -> str:
    """A short readable name for an annotation (for messages)."""
    if isinstance(annotation, type) and typing.get_origin(annotation) is None:
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "")
