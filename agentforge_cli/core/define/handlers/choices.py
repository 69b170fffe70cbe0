"""Choices: ``Enum``, ``Literal[...]``, ``X | None`` and ``Union[A, B]``."""

from __future__ import annotations

import contextlib
import enum
from typing import Any

from agentforge_cli.core.bind.jsonvalues import JsonFloat, describe, json_type
from agentforge_cli.core.define.handlers.base import TypeHandler
from agentforge_cli.errors import ArgumentError

__all__ = ["enum_handler", "literal_handler", "optional_handler", "union_handler"]

_NULL = {"type": "null"}


def _folded(choices: dict[str, Any]) -> dict[str, Any]:
    """Strings compared ignoring case -> their choice, for the strings that stay apart
    (``"Celsius"`` and ``"CELSIUS"`` both given: neither is matched that way)."""
    folded: dict[str, Any] = {}
    clashing: set[str] = set()
    for text, choice in choices.items():
        key = text.casefold()
        if key in folded and folded[key] is not choice:
            clashing.add(key)
        folded[key] = choice
    return {key: choice for key, choice in folded.items() if key not in clashing}


def enum_handler(cls: type[enum.Enum]) -> TypeHandler:
    """``Enum``: member name exactly, then upper-cased, then a member whose value matches,
    then the one member whose name or string value matches ignoring case.

    The schema is ``string`` with ``enum`` = the member names.
    """
    by_name = dict(cls.__members__)
    by_value: dict[tuple[str, Any], enum.Enum] = {}
    for member in cls:
        with contextlib.suppress(TypeError):  # an unhashable value: reachable by name only
            by_value.setdefault((_tag(member.value), member.value), member)
    by_case = _folded({**{member.value: member for member in cls
                          if type(member.value) is str}, **by_name})
    names = list(by_name)
    shown = ", ".join(names)

    def coerce(value: Any) -> enum.Enum:
        if type(value) is str:
            member = by_name.get(value) or by_name.get(value.upper())
            if member is not None:
                return member
        try:
            member = by_value.get((_tag(value), value))
        except TypeError:
            member = None
        if member is None and type(value) is str:
            member = by_case.get(value.casefold())
        if member is not None:
            return member
        raise ArgumentError(
            f"is not a valid enum value for {cls.__name__}: {describe(value)} "
            f"(expected one of: {shown})",
            expected=cls.__name__, received=value)

    return TypeHandler(label=cls.__name__, schema={"type": "string", "enum": names},
                       coerce=coerce, json_types=frozenset({"string"}))


def _tag(value: Any) -> str:
    """JSON-type tag that keeps ``True`` apart from ``1`` in lookups."""
    kind = type(value)
    if kind is bool:
        return "boolean"
    if kind is int or kind is float or kind is JsonFloat:
        return "number"
    return kind.__name__


def literal_handler(values: tuple[Any, ...]) -> TypeHandler:
    """``Literal[...]``: one of the values, matched with its JSON type (``True`` is not 1);
    then the one string value that matches ignoring case (``"CELSIUS"``)."""
    allowed = {}  # (JSON tag, JSON value) -> the Python value the tool receives
    for literal in values:
        shown = literal.name if isinstance(literal, enum.Enum) else literal
        allowed[(_tag(shown), shown)] = literal
    literals = [shown for _, shown in allowed]
    kinds = {json_type(v) for v in literals}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    schema: dict[str, Any] = {"enum": literals}
    if len(kinds) == 1:
        schema = {"type": kinds.pop(), "enum": literals}
    label = f"Literal[{', '.join(repr(v) for v in literals)}]"
    by_case = _folded({shown: literal for (tag, shown), literal in allowed.items()
                       if tag == "str"})

    def coerce(value: Any) -> Any:
        try:
            match = allowed.get((_tag(value), value), _MISSING)
        except TypeError:
            match = _MISSING
        if match is _MISSING and type(value) is str:
            match = by_case.get(value.casefold(), _MISSING)
        if match is _MISSING:
            raise ArgumentError(f"is not one of the values of {label}: {describe(value)}",
                                expected=label, received=value)
        return match

    json_types = frozenset({json_type(v) for v in literals})
    return TypeHandler(label=label, schema=schema, coerce=coerce, json_types=json_types)


_MISSING = object()


def optional_handler(inner: TypeHandler) -> TypeHandler:
    """``X | None``: ``null`` -> ``None``, anything else coerced to ``X``.

    Inside containers the schema is ``anyOf [X, null]``; a parameter or field shows ``X``'s
    schema made nullable (``base.property_schema``; null there means missing).
    """
    convert = inner.coerce

    def coerce(value: Any) -> Any:
        return None if value is None else convert(value)

    return TypeHandler(
        label=f"{inner.label} | None",
        schema={"anyOf": [inner.schema, _NULL]},
        coerce=coerce,
        json_types=inner.json_types | {"null"},
        fast_type=inner.fast_type,
        lenient_default=None,
        optional_of=inner,
    )


def union_handler(members: list[TypeHandler]) -> TypeHandler:
    """``Union[A, B]``: the first member that accepts the value, preferring members whose
    JSON type matches it; when none accepts, every member's reason is listed."""
    label = " | ".join(m.label for m in members)

    def coerce(value: Any) -> Any:
        kind = json_type(value)
        preferred = [m for m in members if kind in m.json_types]
        reasons = []
        for member in preferred + [m for m in members if kind not in m.json_types]:
            try:
                return member.coerce(value)
            except ArgumentError as error:
                reasons.append(f"{member.label}: {error.problem}")
        raise ArgumentError(
            f"matches no member of {label}: {describe(value)} ({'; '.join(reasons)})",
            expected=label, received=value)

    json_types = frozenset().union(*(m.json_types for m in members))
    return TypeHandler(label=label, schema={"anyOf": [m.schema for m in members]},
                       coerce=coerce, json_types=json_types)
