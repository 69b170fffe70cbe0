"""Scalars: ``str``, ``bool``, ``int``, ``float``, ``Decimal``, ``UUID``, dates, ``Any``.

Each ``*_handler`` returns a :class:`TypeHandler`; the numeric ones take optional bounds
(from ``P(minimum=..., maximum=...)`` or a fixed-width alias) that show in the schema and
are enforced when binding.
"""

from __future__ import annotations

import datetime as _dt
import math
import uuid
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from agentforge_cli.core.bind.jsonvalues import (
    NUMBER_TEXT,
    JsonFloat,
    describe,
    plain,
    to_json_text,
)
from agentforge_cli.core.define.handlers.base import ALL_JSON_TYPES, TypeHandler, mismatch
from agentforge_cli.errors import ArgumentError

__all__ = [
    "any_handler",
    "bool_handler",
    "decimal_handler",
    "float_handler",
    "int_handler",
    "iso_handler",
    "path_handler",
    "str_handler",
    "uuid_handler",
]

_MAX_INT_DIGITS = 4300
_STRING = frozenset({"string"})

Bound = int | float | None
"""A ``minimum``/``maximum`` (``P(minimum=...)``, a fixed-width alias); ``None``: none."""


def str_handler() -> TypeHandler:
    """``str``: strings as is; numbers/booleans as JSON text; containers as compact JSON."""

    def coerce(value: Any) -> str:
        kind = type(value)
        if type(value) is str:
            return value
        if kind is bool:
            return "true" if value else "false"
        if kind is int:
            return int.__repr__(value)
        if type(value) is JsonFloat:
            return value.text
        if kind is float:
            return repr(value)
        if kind is dict or kind is list:
            return to_json_text(value)
        raise mismatch("string", "str", value)

    return TypeHandler(label="str", schema={"type": "string"}, coerce=coerce,
                       json_types=_STRING, fast_type=str, lenient_default=None)


def bool_handler() -> TypeHandler:
    """``bool``: JSON ``true``/``false`` only (``"true"``, ``1`` are refused)."""

    def coerce(value: Any) -> bool:
        if type(value) is bool:
            return value
        raise mismatch("boolean", "bool", value)

    return TypeHandler(label="bool", schema={"type": "boolean"}, coerce=coerce,
                       json_types=frozenset({"boolean"}), fast_type=bool, lenient_default=False)


def _numeric_string(value: str) -> str | None:
    text = value.strip()
    return text if NUMBER_TEXT.fullmatch(text) else None


def _bounds_check(label: str, minimum: Bound, maximum: Bound, fixed: bool
                  ) -> Callable[[float | Decimal, Any], None] | None:
    """Return ``check(number, received)`` raising when the number is out of bounds."""
    if minimum is None and maximum is None:
        return None
    if fixed:
        problem = f"is out of range for {label}"
    else:
        limits = ", ".join(
            f"{name} {bound}" for name, bound in (("minimum", minimum), ("maximum", maximum))
            if bound is not None
        )
        problem = f"is out of range for {label} ({limits})"

    def check(number: float | Decimal, received: Any) -> None:
        if (minimum is not None and number < minimum) or (
            maximum is not None and number > maximum
        ):
            raise ArgumentError(f"{problem}: {describe(received)}", expected=label,
                                received=received)

    return check


def _bounded_schema(base: dict[str, Any], minimum: Bound, maximum: Bound) -> dict[str, Any]:
    schema = dict(base)
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def _exact_integer(text: str, label: str, received: Any) -> int:
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise mismatch("integer", label, received) from None
    if number.is_zero():
        return 0
    if number.adjusted() > _MAX_INT_DIGITS:
        raise ArgumentError(f"is too large for {label}: {describe(received)}",
                            expected=label, received=received)
    if number != number.to_integral_value():
        raise mismatch("integer", label, received)
    return int(number)


def int_handler(label: str = "int", minimum: Bound = None, maximum: Bound = None,
                fixed: bool = False) -> TypeHandler:
    """``int`` and fixed-width aliases: exact, never through ``float``; bounds enforced."""
    check = _bounds_check(label, minimum, maximum, fixed)

    def to_int(value: Any) -> int:
        kind = type(value)
        if type(value) is int:
            return value
        if kind is JsonFloat or kind is float:
            if kind is float and not math.isfinite(value):
                raise mismatch("integer", label, value)
            return _exact_integer(value.text if kind is JsonFloat else repr(value), label,
                                  value)
        if kind is str:
            text = _numeric_string(value)
            if text is None:
                raise mismatch("integer", label, value)
            if "." in text or "e" in text or "E" in text:
                return _exact_integer(text, label, value)
            try:
                return int(text)
            except ValueError:
                raise ArgumentError(f"is too large for {label}: {describe(value)}",
                                    expected=label, received=value) from None
        raise mismatch("integer", label, value)

    if check is None:
        coerce = to_int
    else:
        def coerce(value: Any) -> int:
            number = to_int(value)
            check(number, value)
            return number

    return TypeHandler(
        label=label, schema=_bounded_schema({"type": "integer"}, minimum, maximum),
        coerce=coerce, json_types=frozenset({"integer"}),
        fast_type=int if check is None else None, lenient_default=0,
    )


def float_handler(label: str = "float", minimum: Bound = None, maximum: Bound = None,
                  fixed: bool = False) -> TypeHandler:
    """``float`` and ``Float32``: JSON numbers or numeric strings, finite only."""
    check = _bounds_check(label, minimum, maximum, fixed)

    def coerce(value: Any) -> float:
        kind = type(value)
        if kind is bool:
            raise mismatch("numeric", label, value)
        if kind is JsonFloat or kind is float:
            number = float(value)
        elif kind is int:
            try:
                number = float(value)
            except OverflowError:
                number = math.inf
        elif kind is str and _numeric_string(value) is not None:
            number = float(value)
        else:
            raise mismatch("numeric", label, value)
        if not math.isfinite(number):
            raise ArgumentError(f"is not a finite number for {label}: {describe(value)}",
                                expected=label, received=value)
        if check is not None:
            check(number, value)
        return number

    return TypeHandler(
        label=label, schema=_bounded_schema({"type": "number"}, minimum, maximum),
        coerce=coerce, json_types=frozenset({"integer", "number"}), lenient_default=0.0,
    )


def decimal_handler(minimum: Bound = None, maximum: Bound = None) -> TypeHandler:
    """``Decimal``: exact to the digits the model wrote; no ``NaN``/``Infinity``."""
    check = _bounds_check("Decimal", minimum, maximum, False)

    def coerce(value: Any) -> Decimal:
        kind = type(value)
        if kind is int:
            number = Decimal(value)
        elif kind is JsonFloat:
            number = Decimal(value.text)
        elif kind is float and math.isfinite(value):
            number = Decimal(repr(value))
        elif kind is str and (text := _numeric_string(value)) is not None:
            number = Decimal(text)
        else:
            raise mismatch("numeric", "Decimal", value)
        if check is not None:
            check(number, value)
        return number

    return TypeHandler(label="Decimal",
                       schema=_bounded_schema({"type": "number"}, minimum, maximum),
                       coerce=coerce, json_types=frozenset({"integer", "number"}))


def uuid_handler() -> TypeHandler:
    """``uuid.UUID``: any string ``UUID()`` accepts."""

    def coerce(value: Any) -> uuid.UUID:
        if type(value) is str:
            try:
                return uuid.UUID(value)
            except ValueError:
                pass
        raise ArgumentError(f"is not a valid UUID: {describe(value)}", expected="UUID",
                            received=value)

    return TypeHandler(label="UUID", schema={"type": "string", "format": "uuid"},
                       coerce=coerce, json_types=_STRING)


_ISO_KINDS = {_dt.datetime: "date-time", _dt.date: "date", _dt.time: "time"}


def iso_handler(target: type[_dt.date | _dt.time]) -> TypeHandler:
    """``datetime``/``date``/``time``: ISO 8601 strings."""
    label = target.__name__
    parse = target.fromisoformat

    def coerce(value: Any) -> _dt.date | _dt.time:
        if type(value) is str:
            try:
                return parse(value.strip())
            except ValueError:
                pass
        raise ArgumentError(f"is not an ISO 8601 {label}: {describe(value)}",
                            expected=label, received=value)

    return TypeHandler(label=label, schema={"type": "string", "format": _ISO_KINDS[target]},
                       coerce=coerce, json_types=_STRING)


def path_handler() -> TypeHandler:
    """``pathlib.Path``: a non-empty string, as ``Path(value)`` (never resolved or checked
    against the file system: that is the tool's business)."""
    from pathlib import Path

    def coerce(value: Any) -> Path:
        if type(value) is str and value.strip() and "\x00" not in value:
            return Path(value)
        raise ArgumentError(f"is not a file path: {describe(value)}", expected="Path",
                            received=value)

    return TypeHandler(label="Path", schema={"type": "string"}, coerce=coerce,
                       json_types=_STRING)


def any_handler() -> TypeHandler:
    """``Any`` / no annotation: the parsed JSON value as plain Python."""

    def coerce(value: Any) -> Any:
        try:
            return plain(value)
        except ValueError as exc:
            raise ArgumentError(f"is not a finite number: <{exc}>", received=value) from None
        except RecursionError:
            raise ArgumentError("is nested too deeply", received=None) from None

    return TypeHandler(label="Any", schema={}, coerce=coerce, json_types=ALL_JSON_TYPES)
