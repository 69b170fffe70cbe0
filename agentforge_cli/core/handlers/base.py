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

from agentforge_cli.core.jsonvalues import describe
from agentforge_cli.errors import ArgumentError

__all__ = ["ALL_JSON_TYPES", "TypeHandler", "mismatch"]

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
    """For ``X | None``, the handler of ``X`` (its schema is what a parameter or field
    shows); otherwise ``None``."""

    @property
    def field_schema(self) -> dict[str, Any]:
        """The schema for a parameter or object field (``X | None`` shows as ``X``)."""
        return self.optional_of.field_schema if self.optional_of is not None else self.schema

    def __repr__(self) -> str:
        return f"TypeHandler({self.label})"


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
    from agentforge_cli.core.arguments import loads_exact, strip_one_layer

    for text in (value, strip_one_layer(value)):
        try:
            decoded = loads_exact(text.strip(), lenient=True)
        except ArgumentError:
            continue
        if type(decoded) is want:
            return decoded
    return None
