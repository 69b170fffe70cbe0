"""Object types: dataclasses, ``TypedDict``, ``NamedTuple`` and pydantic models.

An object accepts a JSON object (or a string holding one), refuses unknown fields and
missing required fields, and coerces each field with its own handler. Its schema goes to
``$defs`` under the class name; the registry inlines it again unless it recurs.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any, NotRequired, Protocol, Required, get_origin, get_type_hints

from agentforge_cli.core.bind.jsonvalues import describe, plain
from agentforge_cli.core.define.handlers.base import (
    TypeHandler,
    decode_nested,
    mismatch,
    property_schema,
)
from agentforge_cli.errors import ArgumentError

__all__ = [
    "FieldSpec",
    "is_named_tuple",
    "is_pydantic_model",
    "object_fields",
    "object_handler",
]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class FieldSpec:
    """One field of an object type."""

    attr: str
    """Python attribute / keyword name."""
    key: str
    """JSON key (``P(name=...)`` or ``attr``)."""
    handler: TypeHandler
    """The field type's handler."""
    has_default: bool
    """The class supplies a value when the field is missing."""
    default: Any
    """The default value, when it is a plain constant (shown in the schema)."""
    description: str | None
    """From ``P`` or the class docstring, else ``None``."""


def is_named_tuple(cls: type) -> bool:
    """True for classes made by ``typing.NamedTuple`` / ``collections.namedtuple``."""
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def is_pydantic_model(cls: type) -> bool:
    """True for a pydantic ``BaseModel`` subclass (only checked when pydantic is loaded)."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(cls, type) and issubclass(cls, pydantic.BaseModel)


_NO_DEFAULT = dataclasses.MISSING


def object_fields(cls: type) -> list[tuple[str, Any, bool, Any]]:
    """List ``(name, annotation, has_default, default)`` for a dataclass, TypedDict or
    NamedTuple, in declaration order."""
    hints = get_type_hints(cls, include_extras=True)
    if dataclasses.is_dataclass(cls):
        out: list[tuple[str, Any, bool, Any]] = []
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            has_default = f.default is not _NO_DEFAULT or f.default_factory is not _NO_DEFAULT
            default = f.default if f.default is not _NO_DEFAULT else _NO_DEFAULT
            out.append((f.name, hints.get(f.name, Any), has_default, default))
        return out
    if is_named_tuple(cls):
        defaults = getattr(cls, "_field_defaults", {})
        return [(name, hints.get(name, Any), name in defaults, defaults.get(name, _NO_DEFAULT))
                for name in cls._fields]  # type: ignore[attr-defined]  # a named tuple's
    required = getattr(cls, "__required_keys__", frozenset(hints))
    out = []
    for name, hint in hints.items():
        # Required[]/NotRequired[] decide first: under ``from __future__ import
        # annotations`` Python 3.11 does not see them when it fills __required_keys__.
        origin = get_origin(hint)
        optional_key = (origin is NotRequired or (origin is not Required
                                                  and name not in required))
        out.append((name, hint, optional_key, _NO_DEFAULT))
    return out


def object_handler(label: str, fields: list[FieldSpec], construct: Callable[[dict[str, Any]], Any]
                   ) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    """Build the schema and the coercer of an object type from its fields.

    Returns:
        ``(schema, coerce)``; the caller files the schema under ``$defs``.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for f in fields:
        properties[f.key] = property_schema(f.handler, description=f.description,
                                            has_default=f.default is not _NO_DEFAULT,
                                            default=f.default)
        if not f.has_default and f.handler.optional_of is None:
            required.append(f.key)
    schema = {"type": "object", "properties": properties, "required": required,
              "additionalProperties": False}
    known = frozenset(properties)
    shown = ", ".join(properties) or "none"
    plan = [(f.key, f.attr, f.handler.coerce, f.has_default, f.handler.optional_of is not None)
            for f in fields]

    def coerce(value: Any) -> Any:
        if type(value) is str:
            decoded = decode_nested(value, dict)
            value = decoded if decoded is not None else value
        if type(value) is not dict:
            raise mismatch("object", label, value)
        if not known.issuperset(value):
            unknown = ", ".join(f'"{k}"' for k in value if k not in known)
            raise ArgumentError(f"has unknown fields for {label}: {unknown} (known: {shown})",
                                expected=label, received=value)
        out: dict[str, Any] = {}
        for key, attr, convert, has_default, optional in plan:
            item = value.get(key)
            if item is None:
                if has_default:
                    continue
                if optional:
                    out[attr] = None
                    continue
                raise ArgumentError(f"is missing, a required field of {label}",
                                    expected=label).at("." + key)
            try:
                out[attr] = convert(item)
            except ArgumentError as error:
                error.at("." + key)
                raise
        try:
            return construct(out)
        except (TypeError, ValueError) as exc:
            raise ArgumentError(f"could not be built as {label}: {exc}", expected=label,
                                received=value) from exc

    return schema, coerce


class ModelClass(Protocol):
    """What is used of a pydantic model class (the core never imports pydantic)."""

    __name__: str

    def model_json_schema(self, *, ref_template: str) -> dict[str, Any]: ...

    def model_validate(self, obj: Any) -> Any: ...


def pydantic_handler_parts(cls: ModelClass) -> tuple[dict[str, Any], dict[str, Any],
                                                     Callable[[Any], Any]]:
    """Schema, nested ``$defs`` and coercer of a pydantic model (validated by pydantic)."""
    schema = cls.model_json_schema(ref_template="#/$defs/{model}")
    nested = schema.pop("$defs", {})
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and len(schema) == 1:
        # a recursive model: pydantic puts the model itself under $defs and points to it
        schema = nested.pop(ref[len("#/$defs/"):], schema)
    for model in (schema, *nested.values()):
        _drop_refused_null_defaults(model)
    label = cls.__name__

    def coerce(value: Any) -> Any:
        if type(value) is str:
            decoded = decode_nested(value, dict)
            value = decoded if decoded is not None else value
        if type(value) is not dict:
            raise mismatch("object", label, value)
        try:
            return cls.model_validate(plain(value))
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            errors = getattr(exc, "errors", None)
            if callable(errors):
                detail = "; ".join(
                    f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}"
                    for e in errors())
            else:
                detail = str(exc)
            raise ArgumentError(f"is not a valid {label}: {describe(value)} ({detail})",
                                expected=label, received=value) from None

    return schema, nested, coerce


def _drop_refused_null_defaults(model: dict[str, Any]) -> None:
    """Leave out ``"default": null`` where pydantic shows it on a field that refuses null
    (``x: str = None``): the field is still optional, and the schema stays true."""
    for prop in (model.get("properties") or {}).values():
        if isinstance(prop, dict) and "default" in prop and prop["default"] is None and (
                not _admits_null(prop)):
            del prop["default"]


def _admits_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if not ({"type", "anyOf", "oneOf", "$ref", "enum", "const", "allOf"} & schema.keys()):
        return True  # any value
    return any(isinstance(m, dict) and _admits_null(m)
               for m in schema.get("anyOf", ()) or schema.get("oneOf", ()))
