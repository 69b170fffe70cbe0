"""The handlers of generic annotations: ``list[T]`` and the other collections, ``tuple[...]``,
``dict[K, V]``, ``Union``/``X | None``, ``Literal``, ``Annotated`` (its ``P(...)`` marks and
bounds), and the ``Required``-like wrappers. Each build is ``(origin, args, ctx)``."""

from __future__ import annotations

import collections.abc as cabc
import types
import typing
from decimal import Decimal
from typing import Any

from agentforge_cli.core.declare.params import FixedWidth
from agentforge_cli.core.define.handlers import choices, containers, scalars
from agentforge_cli.core.define.handlers.base import TypeHandler
from agentforge_cli.core.define.handlers.param_info import param_metadata
from agentforge_cli.core.define.handlers.type_rule import Resolver, UnsupportedTypeError

__all__ = ["ARRAY_BUILDS", "MAPPINGS", "build_annotated", "build_array", "build_literal",
           "build_mapping", "build_tuple", "build_union", "build_wrapped"]

ARRAY_BUILDS: dict[Any, type] = {
    list: list, cabc.Sequence: list, cabc.MutableSequence: list, cabc.Iterable: list,
    cabc.Collection: list, set: set, cabc.Set: set, cabc.MutableSet: set,
    frozenset: frozenset,
}
MAPPINGS = {dict, cabc.Mapping, cabc.MutableMapping}


def build_array(origin: Any, args: tuple[Any, ...], ctx: Resolver) -> TypeHandler:
    item = ctx.resolve(args[0] if args else Any)
    build = ARRAY_BUILDS[origin]
    return containers.array_handler(item, build, f"{build.__name__}[{item.label}]")


def build_tuple(origin: Any, args: tuple[Any, ...], ctx: Resolver) -> TypeHandler:
    if not args or (len(args) == 2 and args[1] is Ellipsis):
        item = ctx.resolve(args[0] if args else Any)
        return containers.array_handler(item, tuple, f"tuple[{item.label}, ...]")
    if args == ((),):
        return containers.fixed_tuple_handler([], "tuple[()]")
    items = [ctx.resolve(a) for a in args]
    return containers.fixed_tuple_handler(items, f"tuple[{', '.join(h.label for h in items)}]")


def build_mapping(origin: Any, args: tuple[Any, ...], ctx: Resolver) -> TypeHandler:
    key = ctx.resolve(args[0] if args else str)
    value = ctx.resolve(args[1] if len(args) > 1 else Any)
    if "string" not in key.json_types and key.schema.get("type") not in ("integer", "number"):
        raise UnsupportedTypeError(f"dict keys must be str, a number or an Enum, got {key.label}")
    return containers.mapping_handler(key, value, f"dict[{key.label}, {value.label}]")


def build_union(origin: Any, args: tuple[Any, ...], ctx: Resolver) -> TypeHandler:
    members = [a for a in args if a is not type(None)]
    if len(members) < len(args):  # X | None
        inner = members[0] if len(members) == 1 else typing.Union[tuple(members)]  # noqa: UP007
        return choices.optional_handler(ctx.resolve(inner))
    return choices.union_handler([ctx.resolve(a) for a in members])


def build_literal(origin: Any, args: tuple[Any, ...], ctx: Resolver) -> TypeHandler:
    return choices.literal_handler(args)


def build_annotated(origin: Any, args: tuple[Any, ...], ctx: Resolver) -> TypeHandler:
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


def build_wrapped(origin: Any, args: tuple[Any, ...], ctx: Resolver) -> TypeHandler:
    return ctx.resolve(args[0])
