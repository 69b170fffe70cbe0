"""OpenAI function tools: ``{"type": "function", "function": {...}}``, plain or strict.

The plain form carries ``parameters`` as generated. Strict mode (``"strict": true``,
Structured Outputs) accepts a subset of JSON Schema only, so the strict transform:

* keeps only the keywords strict mode supports (:data:`STRICT_KEYWORDS`), dropping
  ``default`` silently (strict mode has no defaults: an omitted optional argument is sent
  as ``null``, which binding treats as missing) and any other keyword with a warning;
* gives every object ``additionalProperties: false`` and lists every property in
  ``required``, turning an optional property into a union with ``null`` (a ``type`` list
  for a plain scalar, ``anyOf [X, {"type": "null"}]`` otherwise);
* turns a fixed tuple (``prefixItems``) into ``items`` (exact when every position has the
  same type, with a warning otherwise), ``oneOf`` into ``anyOf`` (warning) and a ``$ref``
  with sibling keywords into the definition inlined one level;
* keeps only the string formats strict mode knows (:data:`STRICT_FORMATS`).

No accepted form exists — and the export fails — for an object whose keys are not fixed
(``dict[str, V]``, a free-form object), a value typed ``Any``, ``allOf`` of several
schemas, and schemas beyond strict mode's documented size limits.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.core.spec import ToolSpecification
from agentforge_cli.schema.providers.base import (
    ROOT,
    ToolConversion,
    Walker,
    child_path,
    plain_copy,
    ref_cycle,
)

__all__ = [
    "MAX_NESTING",
    "MAX_PROPERTIES",
    "STRICT_FORMATS",
    "STRICT_KEYWORDS",
    "convert_openai",
    "convert_openai_strict",
]

STRICT_KEYWORDS = frozenset({
    "type", "description", "properties", "required", "additionalProperties", "items",
    "enum", "anyOf", "$defs", "$ref", "const", "title", "pattern", "format", "multipleOf",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
})
"""The keywords OpenAI strict mode accepts (SPEC 5)."""

STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname",
                            "ipv4", "ipv6", "uuid"})
"""The string formats strict mode supports."""

MAX_NESTING = 10
"""Strict mode's documented limit on object nesting."""

MAX_PROPERTIES = 5000
"""Strict mode's documented limit on object properties, in total."""

_NULL = {"type": "null"}


def convert_openai(spec: ToolSpecification) -> ToolConversion:
    """The plain (non-strict) function tool: ``parameters`` as generated."""
    walker = Walker(spec)
    walker.provider = "openai"
    return walker.conversion({
        "type": "function",
        "function": {"name": spec.name, "description": spec.description,
                     "parameters": plain_copy(spec.parameters)},
    } if walker.root_object() else None)


def convert_openai_strict(spec: ToolSpecification) -> ToolConversion:
    """The strict-mode function tool (``"strict": true``)."""
    walker = _Strict(spec)
    parameters = walker.convert_root()
    return walker.conversion({
        "type": "function",
        "function": {"name": spec.name, "description": spec.description,
                     "parameters": parameters, "strict": True},
    })


def is_nullable(schema: dict[str, Any]) -> bool:
    """True when ``null`` is already one of the schema's values."""
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "enum" in schema and None in schema["enum"]:
        return True
    if "const" in schema and schema["const"] is None:
        return True
    return any(isinstance(m, dict) and is_nullable(m) for m in schema.get("anyOf", ()))


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or ``null``: a ``type`` list for a plain scalar, ``anyOf`` otherwise."""
    if is_nullable(schema):
        return schema
    kind = schema.get("type")
    if isinstance(kind, str) and kind not in ("object", "array") and not (
            {"enum", "const", "$ref", "anyOf"} & schema.keys()):
        return {**schema, "type": [kind, "null"]}
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], dict(_NULL)]}
    outer = {k: schema[k] for k in ("description",) if k in schema}
    inner = {k: v for k, v in schema.items() if k not in outer}
    return {"anyOf": [inner, dict(_NULL)], **outer}


class _Strict(Walker):
    provider = "openai-strict"
    unsupported = "is not supported in strict mode"
    no_form = "has no strict-mode form"
    untyped = ("a value of any type (Any) has no strict-mode form: every schema needs a "
               "type; declare a concrete type")

    def __init__(self, spec: ToolSpecification) -> None:
        super().__init__(spec)
        self.properties = 0

    def convert_root(self) -> dict[str, Any]:
        if not self.root_object():
            return {}
        out = self.node(self.root, ROOT, 0)
        if self.defs:
            out["$defs"] = {}
            for name, schema in self.defs.items():
                if ref_cycle(name, self.defs):
                    self.error(f"$defs.{name}", "ref-cycle", f"the definition {name!r} is "
                               "only a $ref back to itself; it describes no value")
                out["$defs"][name] = self.node(schema, f"$defs.{name}", 1)
        if self.properties > MAX_PROPERTIES:
            self.error(ROOT, "too-many-properties",
                       f"{self.properties} object properties in total; strict mode allows "
                       f"at most {MAX_PROPERTIES}")
        return out

    def node(self, schema: Any, path: str, depth: int) -> dict[str, Any]:
        if not self.typed(schema, path):
            return {}
        if "$ref" in schema:
            if len(schema) == 1:
                if self.ref_name(schema["$ref"]) is None:
                    self.resolve(schema, path)  # records the unresolved reference
                return dict(schema)
            schema, _ = self.resolve(schema, path)  # strict mode takes no $ref siblings
            if "$ref" in schema:
                return self.node(schema, path, depth)
        schema = self.flatten(schema, path)
        out: dict[str, Any] = {}
        kind = schema.get("type")
        is_object = kind == "object" or "properties" in schema
        is_array = kind == "array" or "items" in schema or "prefixItems" in schema
        # handled below ($defs at the root; no defaults in strict mode: an omitted
        # argument arrives as null, which binding treats as missing)
        skip = {"$defs", "default"}
        if is_object:
            skip |= {"properties", "required", "additionalProperties", "propertyNames"}
        if is_array:
            skip |= {"items", "prefixItems", "uniqueItems"}
        for key, value in schema.items():
            if key in skip:
                continue
            if key == "anyOf":
                out["anyOf"] = [self.node(m, path, depth) for m in value]
            elif key == "format" and value not in STRICT_FORMATS:
                self.warn(path, "unsupported-format",
                          f'format "{value}" is not supported in strict mode; exported '
                          "without it (binding still checks the value)")
            elif key in STRICT_KEYWORDS:
                out[key] = plain_copy(value)
            else:
                self.drop(key, path)
        if is_object:
            self.object(schema, out, path, depth)
        if is_array:
            self.array(schema, out, path, depth)
        return out

    def object(self, schema: dict[str, Any], out: dict[str, Any], path: str,
               depth: int) -> None:
        if depth >= MAX_NESTING:
            self.error(path, "too-deep", f"objects nested more than {MAX_NESTING} levels "
                       "deep; strict mode does not accept them")
            return
        properties = schema.get("properties") or {}
        # An object that lists its properties is closed here (the arguments object lists
        # them without saying additionalProperties); one that lists none is free-form.
        extra = schema.get("additionalProperties", "properties" not in schema)
        if extra is not False:
            what = ("a mapping (dict[str, V])" if isinstance(extra, dict) and extra
                    else "a free-form object")
            self.error(path, "free-form-object",
                       f"{what} has no strict-mode form: strict mode needs every object "
                       "to list its keys with additionalProperties: false; use a dataclass "
                       "or TypedDict, or export without --strict")
        if "propertyNames" in schema:
            self.warn(path, "unsupported-keyword", '"propertyNames" is not supported in '
                      "strict mode; exported without it")
        required = set(schema.get("required") or ())
        converted: dict[str, Any] = {}
        for key, sub in properties.items():
            self.properties += 1
            prop = self.node(sub, child_path(path, key), depth + 1)
            converted[key] = prop if key in required else nullable(prop)
        out["type"] = "object"
        out["properties"] = converted
        out["required"] = list(converted)
        out["additionalProperties"] = False

    def array(self, schema: dict[str, Any], out: dict[str, Any], path: str,
              depth: int) -> None:
        out["type"] = "array"
        found = self.elements(schema, out, path, lambda sub, at: self.node(sub, at, depth))
        if not found and schema.get("items") is None:
            self.error(path, "untyped-items", f"an array without an items schema {self.no_form}; "
                       "declare the element type")
