"""``TypeHandler``: one supported type's schema and coercer, side by side.

Every handler is built once per tool at registration. ``coerce`` receives a parsed JSON
value (never a missing one) and returns the Python value for the annotation, or raises an
:class:`~agentforge_cli.errors.ArgumentError` without a path; containers and the binder add
their path segment while the error travels up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentforge_cli.core.bind.jsonvalues import describe, json_type
from agentforge_cli.errors import ArgumentError

__all__ = ["ALL_JSON_TYPES", "TypeHandler", "mismatch", "nullable", "property_schema"]

ALL_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})


# Not frozen: an object type's handler exists (for recursive references) before its
# coercer is built, and the registry sets ``coerce`` once it is. Compared by identity.
@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class TypeHandler:
    """The schema and the coercer of one annotation."""

    label: str
    """How messages name the type (``int``, ``Int32``, ``list[int]``, ``Color``)."""
    schema: dict[str, Any]
    """The JSON Schema fragment."""
    coerce: Callable[[Any], Any]
    """``value -> python value``; raises ``ArgumentError`` (path-less)."""
    json_types: frozenset[str]
    """JSON types the handler takes natively (used to order ``Union`` members)."""
    fast_type: type | None = None
    """When a parsed value has exactly this Python type it is already the answer, and the
    binder skips ``coerce``."""
    lenient_default: Any = None
    """Value for a missing top-level argument when nothing else applies and the binding
    is not strict: ``0`` / ``0.0`` / ``False`` / ``None``."""
    optional_of: TypeHandler | None = None
    """For ``X | None``, the handler of ``X`` (a parameter or field shows its schema made
    nullable, see :func:`property_schema`); otherwise ``None``."""

    def __repr__(self) -> str:
        return f"TypeHandler({self.label})"


_NULL = {"type": "null"}
_NO_DEFAULT = object()


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or ``null``: a ``type`` list for a plain scalar, ``anyOf`` otherwise (a
    ``description`` stays outside)."""
    kind = schema.get("type")
    if isinstance(kind, str) and kind not in ("object", "array") and not (
            {"enum", "const", "$ref", "anyOf"} & schema.keys()):
        return {**schema, "type": [kind, "null"]}
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], dict(_NULL)]}
    outer = {k: schema[k] for k in ("description",) if k in schema}
    inner = {k: v for k, v in schema.items() if k not in outer}
    return {"anyOf": [inner, dict(_NULL)], **outer}


def property_schema(handler: TypeHandler, *, description: str | None, has_default: bool,
                    default: Any) -> dict[str, Any]:
    """The schema of a parameter or an object field, whose every ``default`` validates.

    ``X | None``, and a default of ``None``, admit ``null`` (see :func:`nullable`; binding
    reads null as missing). A default is shown when it is a plain constant (an ``Enum``
    member by name) that the field's own type accepts; any other default is left out.
    """
    field = handler.optional_of if handler.optional_of is not None else handler
    prop = dict(field.schema)
    if (handler.optional_of is not None or (has_default and default is None)) and (
            "null" not in field.json_types):
        prop = nullable(prop)
    if description:
        prop["description"] = description
    shown = _json_default(field, default) if has_default else _NO_DEFAULT
    if shown is not _NO_DEFAULT:
        prop["default"] = shown
    return prop


def _json_default(field: TypeHandler, default: Any) -> Any:
    """The JSON form of ``default`` when the field's type accepts it, else ``_NO_DEFAULT``."""
    import enum

    if default is None:
        return None
    value = default.name if isinstance(default, enum.Enum) else default
    if type(value) not in (str, int, float, bool) or value != value:  # NaN has no JSON form
        return _NO_DEFAULT
    kind = json_type(value)
    if kind not in field.json_types and not (kind == "integer" and "number" in field.json_types):
        return _NO_DEFAULT
    try:
        field.coerce(value)  # bounds, Literal values, formats
    except ArgumentError:
        return _NO_DEFAULT
    return value


def mismatch(kind: str, label: str, value: object) -> ArgumentError:
    """Build the standard refusal: ``has non-integer value for int: <5.5>``.

    Args:
        kind: The adjective for the value expected (``integer``, ``numeric``, ``array``).
        label: The target type's label.
        value: What was received.
    """
    if value is None:
        return ArgumentError(f"is null, which {label} does not accept", expected=label,
                             received=None)
    return ArgumentError(f"has non-{kind} value for {label}: {describe(value)}",
                         expected=label, received=value)


def decode_nested(value: str, want: type) -> Any:
    """Decode a container the model encoded twice (``"[1,2]"`` for a list).

    Parse the string; use it if it has the wanted shape (``list`` or ``dict``), else strip
    one layer of quotes and escapes and try once more.

    Returns:
        The decoded container, or ``None`` when the string holds no such shape.
    """
    from agentforge_cli.core.bind.arguments import loads_exact, strip_one_layer

    for text in (value, strip_one_layer(value)):
        try:
            decoded = loads_exact(text.strip(), lenient=True)
        except ArgumentError:
            continue
        if type(decoded) is want:
            return decoded
    return None
