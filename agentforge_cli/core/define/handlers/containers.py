"""Containers: ``list``/``set``/``tuple``/``Sequence`` and ``dict[str, V]``.

A container accepts the JSON value of its shape, or a string holding that JSON (the model
encoded it twice). Elements are coerced with the element type's handler; a failure gains
its index or key in the path (``items[2]``, ``prices["apple"]``).
"""

from __future__ import annotations

import json
from typing import Any

from agentforge_cli.core.define.handlers.base import TypeHandler, decode_nested, mismatch
from agentforge_cli.errors import ArgumentError

__all__ = ["array_handler", "fixed_tuple_handler", "mapping_handler"]

_ARRAY = frozenset({"array"})


def _as_list(value: Any, label: str) -> list[Any]:
    kind = type(value)
    if type(value) is list:
        return value
    if kind is str:
        decoded: list[Any] | None = decode_nested(value, list)
        if decoded is not None:
            return decoded
    raise mismatch("array", label, value)


def _coerce_items(items: list[Any], item: TypeHandler) -> list[Any]:
    fast = item.fast_type
    if fast is not None:
        for element in items:
            if type(element) is not fast:
                break
        else:
            return items
    coerce = item.coerce
    out = []
    index = 0
    try:
        for element in items:
            out.append(coerce(element))
            index += 1
    except ArgumentError as error:
        error.at(f"[{index}]")
        raise
    return out


def array_handler(item: TypeHandler, build: type, label: str) -> TypeHandler:
    """``list[T]``, ``set[T]``, ``frozenset[T]``, ``tuple[T, ...]``, ``Sequence[T]``.

    Args:
        item: Handler of the element type.
        build: ``list``, ``set``, ``frozenset`` or ``tuple``: what the tool receives.
        label: How messages name the type.
    """
    schema: dict[str, Any] = {"type": "array", "items": item.schema}
    if build is set or build is frozenset:
        schema["uniqueItems"] = True

    def coerce(value: Any) -> Any:  # a list, set, frozenset or tuple: what ``build`` makes
        items = _coerce_items(_as_list(value, label), item)
        if build is list:
            return items
        try:
            return build(items)
        except TypeError:
            raise ArgumentError(f"has items that cannot be placed in a set for {label}",
                                expected=label, received=value) from None

    return TypeHandler(label=label, schema=schema, coerce=coerce, json_types=_ARRAY)


def fixed_tuple_handler(items: list[TypeHandler], label: str) -> TypeHandler:
    """``tuple[A, B]``: an array of exactly that many items, each of its own type."""
    schema = {
        "type": "array",
        "prefixItems": [h.schema for h in items],
        "items": False,
        "minItems": len(items),
        "maxItems": len(items),
    }
    coercers = [h.coerce for h in items]

    def coerce(value: Any) -> tuple[Any, ...]:
        values = _as_list(value, label)
        if len(values) != len(coercers):
            raise ArgumentError(
                f"has {len(values)} items, but {label} takes exactly {len(coercers)}",
                expected=label, received=value)
        out = []
        for index, (element, convert) in enumerate(zip(values, coercers, strict=True)):
            try:
                out.append(convert(element))
            except ArgumentError as error:
                error.at(f"[{index}]")
                raise
        return tuple(out)

    return TypeHandler(label=label, schema=schema, coerce=coerce, json_types=_ARRAY)


def mapping_handler(key: TypeHandler, value_handler: TypeHandler, label: str) -> TypeHandler:
    """``dict[K, V]``: a JSON object; keys coerced with ``K`` (JSON keys are strings)."""
    schema: dict[str, Any] = {"type": "object", "additionalProperties": value_handler.schema}
    if key.label != "str" and key.schema.get("type") in ("integer", "number"):
        schema["propertyNames"] = {"pattern": r"^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$"}
    elif key.label != "str" and "enum" in key.schema:
        schema["propertyNames"] = key.schema
    convert_key = key.coerce
    convert_value = value_handler.coerce
    plain_keys = key.fast_type is str

    def coerce(value: Any) -> dict[str, Any]:
        if type(value) is str:
            decoded = decode_nested(value, dict)
            value = decoded if decoded is not None else value
        if type(value) is not dict:
            raise mismatch("object", label, value)
        out = {}
        for name, element in value.items():
            try:
                out[name if plain_keys else convert_key(name)] = convert_value(element)
            except ArgumentError as error:
                error.at(f"[{json.dumps(name, ensure_ascii=False)}]")
                raise
        return out

    return TypeHandler(label=label, schema=schema, coerce=coerce,
                       json_types=frozenset({"object"}))
