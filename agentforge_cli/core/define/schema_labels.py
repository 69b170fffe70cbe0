"""Short labels for JSON Schema types, with the bounds they set: ``integer 1..50``,
``string 1..50 chars``, ``enum(a, b)``, ``array<string>``.

Read by ``tools list`` and by the argument errors that tell a model what a tool takes.
"""

from __future__ import annotations

import json
from typing import Any

from agentforge_cli.core.declare.aliases import FLOAT32_MAX

__all__ = ["schema_label"]


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _bounds(schema: dict[str, Any]) -> str:
    """The bounds a schema sets, shortly: `` 1..100``, `` >= 0``, `` 1..50 chars``,
    `` <= 5 items`` (``""`` for none)."""
    for low, high, unit in (("minimum", "maximum", ""), ("minLength", "maxLength", " chars"),
                            ("minItems", "maxItems", " items")):
        if unit == " items" and "prefixItems" in schema:
            continue  # a tuple: its length is its items
        least, most = schema.get(low), schema.get(high)
        if unit == "":  # a fixed-width integer's own range says nothing of the domain
            least = None if least in _WIDTH_LIMITS else least
            most = None if most in _WIDTH_LIMITS else most
            if least is None and "exclusiveMinimum" in schema:
                return f" > {_number(schema['exclusiveMinimum'])}" + (
                    f", <= {_number(most)}" if most is not None else "")
            if most is None and "exclusiveMaximum" in schema:
                return (f" >= {_number(least)}, " if least is not None else " ") + \
                    f"< {_number(schema['exclusiveMaximum'])}"
        if least is not None and most is not None:
            return f" {_number(least)}..{_number(most)}{unit}"
        if least is not None:
            return f" >= {_number(least)}{unit}"
        if most is not None:
            return f" <= {_number(most)}{unit}"
    return ""


_WIDTH_LIMITS = frozenset([*(limit for bits in (8, 16, 32, 64)
                             for limit in (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)),
                           -FLOAT32_MAX, FLOAT32_MAX])
"""The ranges of ``Int8`` … ``Int64`` and ``Float32``: not shown as bounds."""


def _number(value: Any) -> str:
    return json.dumps(value) if isinstance(value, int | float) else str(value)


def schema_label(schema: Any) -> str:
    """A short type name for a JSON Schema: ``integer``, ``array<string>``, ``enum(a, b)``,
    with the bounds it sets (``integer 1..100``, ``string 1..50 chars``)."""
    label = _type_name(schema)
    return label + _bounds(schema) if isinstance(schema, dict) and "type" in schema else label


def _type_name(schema: Any) -> str:
    if not isinstance(schema, dict) or not schema:
        return "any"
    if "$ref" in schema:
        return _ref_name(str(schema["$ref"]))
    if "enum" in schema:
        values = [v if isinstance(v, str) else json.dumps(v) for v in schema["enum"]]
        shown = ", ".join(values[:6]) + (", …" if len(values) > 6 else "")
        return f"enum({shown})"
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(schema_label(s) for s in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(schema_label({**schema, "type": k}) for k in kind)
    if kind == "array":
        if isinstance(schema.get("prefixItems"), list):
            return "[" + ", ".join(schema_label(s) for s in schema["prefixItems"]) + "]"
        items = schema.get("items")
        return f"array<{schema_label(items)}>" if isinstance(items, dict) else "array"
    if kind == "object":
        if schema.get("title"):
            return str(schema["title"])
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return f"object<string, {schema_label(extra)}>"
        return "object"
    if kind == "string" and schema.get("format"):
        return f"string({schema['format']})"
    return str(kind) if kind else "any"
