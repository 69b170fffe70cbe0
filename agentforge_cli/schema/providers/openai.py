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

Two providers live here: :data:`OPENAI` (``openai``) and :data:`OPENAI_STRICT`
(``openai-strict``, what ``tools list --format openai --strict`` exports).
"""

from __future__ import annotations

import re
from typing import Any

from agentforge_cli.core.define.handlers.base import nullable as core_nullable
from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.jsonschema import ROOT, definition_path, ref_cycle, ref_name
from agentforge_cli.schema.providers.base import (
    NameRule,
    Provider,
    ProviderWalker,
    ToolConversion,
    plain_copy,
)

__all__ = [
    "MAX_NESTING",
    "MAX_PROPERTIES",
    "OPENAI",
    "OPENAI_NAMES",
    "OPENAI_STRICT",
    "STRICT_FORMATS",
    "STRICT_KEYWORDS",
    "convert_openai",
    "convert_openai_strict",
    "strict_parameters",
]

OPENAI_NAMES = NameRule(pattern=re.compile(r"[a-zA-Z0-9_-]{1,64}"),
                        text="use 1 to 64 letters, digits, '_' or '-'")
"""The tool names OpenAI accepts, plain or strict."""

STRICT_KEYWORDS = frozenset({
    "type", "description", "properties", "required", "additionalProperties", "items",
    "enum", "anyOf", "$defs", "$ref", "const", "title", "pattern", "format", "multipleOf",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
})
"""The keywords OpenAI strict mode accepts."""

STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname",
                            "ipv4", "ipv6", "uuid"})
"""The string formats strict mode supports."""

MAX_NESTING = 10
"""Strict mode's documented limit on object nesting."""

MAX_PROPERTIES = 5000
"""Strict mode's documented limit on object properties, in total."""



def convert_openai(spec: ToolSpecification) -> ToolConversion:
    """The plain (non-strict) function tool: ``parameters`` as generated."""
    walker = ProviderWalker(spec, "openai")
    return walker.conversion({
        "type": "function",
        "function": {"name": spec.name, "description": spec.description,
                     "parameters": plain_copy(spec.parameters)},
    } if walker.root_object() else None)


def convert_openai_strict(spec: ToolSpecification) -> ToolConversion:
    """The strict-mode function tool (``"strict": true``)."""
    walker, parameters = strict_parameters(spec, "openai-strict")
    return walker.conversion({
        "type": "function",
        "function": {"name": spec.name, "description": spec.description,
                     "parameters": parameters, "strict": True},
    })


def strict_parameters(spec: ToolSpecification, provider: str
                      ) -> tuple[ProviderWalker, dict[str, Any]]:
    """The strict-mode form of a tool's parameters, and the walker holding its issues
    (shared by the Chat Completions and the Responses API exports)."""
    walker = _Strict(spec, provider)
    return walker, walker.convert_root()


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
    """``schema`` or ``null`` (the core's form), unchanged when it admits ``null`` already."""
    return schema if is_nullable(schema) else core_nullable(schema)


class _Strict(ProviderWalker):
    provider = "openai-strict"
    unsupported = "is not supported in strict mode"
    no_form = "has no strict-mode form"
    untyped_text = ("a value of any type (Any) has no strict-mode form: every schema needs "
                    "a type; declare a concrete type")

    def __init__(self, spec: ToolSpecification, provider: str) -> None:
        super().__init__(spec, provider)
        self.property_count = 0
        self.depth = 0  # objects around the node being walked
        self.inlining: set[tuple[str, int]] = set()  # (definition, depth) being inlined

    def convert_root(self) -> dict[str, Any]:
        if not self.root_object():
            return {}
        out = self.walk(self.root, ROOT)
        if self.defs:
            out["$defs"] = {}
            self.depth = 1
            for name, schema in self.defs.items():
                if ref_cycle(name, self.defs):
                    self.error(definition_path(name), "ref-cycle", f"the definition "
                               f"{name!r} is only a $ref back to itself; it describes no "
                               "value")
                out["$defs"][name] = self.walk(schema, definition_path(name))
            self.depth = 0
        if self.property_count > MAX_PROPERTIES:
            self.error(ROOT, "too-many-properties",
                       f"{self.property_count} object properties in total; strict mode "
                       f"allows at most {MAX_PROPERTIES}")
        return out

    def reference(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        name = ref_name(schema["$ref"])
        if len(schema) == 1 and (name is None or self.defs.shared(name)):
            if name not in self.defs:  # kept: the definition is exported under $defs
                self.resolve(schema, path)  # records the unresolved reference
            return dict(schema)
        merged, name = self.resolve(schema, path)  # strict mode takes no $ref siblings
        if name is None:
            return self.node(merged, path)
        # Inlining a recursive type ends at MAX_NESTING objects; one that meets itself
        # again before the next object level would never end.
        inlined = (name, self.depth)
        if inlined in self.inlining:
            self.error(path, "recursive-ref", f"the definition {name!r} is inlined into "
                       "itself (strict mode takes no keywords beside a $ref); it has no "
                       "strict-mode form")
            return {}
        self.inlining.add(inlined)
        try:
            return self.walk(merged, path) if "$ref" in merged else self.node(merged, path)
        finally:
            self.inlining.discard(inlined)

    def node(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        schema = self.flatten(schema, path)
        if "$ref" in schema:  # an allOf of one $ref
            return self.reference(schema, path)
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
                out["anyOf"] = self.members(schema, "anyOf", path)
            elif key == "format" and value not in STRICT_FORMATS:
                self.warn(path, "unsupported-format",
                          f'format "{value}" is not supported in strict mode; exported '
                          "without it (binding still checks the value)")
            elif key in STRICT_KEYWORDS:
                out[key] = plain_copy(value)
            else:
                self.drop(key, path)
        if is_object:
            self.object(schema, out, path)
        if is_array:
            self.array(schema, out, path)
        return out

    def object(self, schema: dict[str, Any], out: dict[str, Any], path: str) -> None:
        if self.depth >= MAX_NESTING:
            self.error(path, "too-deep", f"objects nested more than {MAX_NESTING} levels "
                       "deep; strict mode does not accept them")
            return
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
        self.depth += 1
        try:
            converted = self.properties(schema, path)
        finally:
            self.depth -= 1
        self.property_count += len(converted)
        out["type"] = "object"
        out["properties"] = {key: prop if key in required else nullable(prop)
                             for key, prop in converted.items()}
        out["required"] = list(converted)
        out["additionalProperties"] = False

    def array(self, schema: dict[str, Any], out: dict[str, Any], path: str) -> None:
        out["type"] = "array"
        if not self.elements(schema, out, path) and schema.get("items") is None:
            self.error(path, "untyped-items", f"an array without an items schema "
                       f"{self.no_form}; declare the element type")


OPENAI = Provider(name="openai", convert=convert_openai, name_rule=OPENAI_NAMES,
                  strict="openai-strict")
"""OpenAI function tools as generated (``--strict`` selects :data:`OPENAI_STRICT`)."""

OPENAI_STRICT = Provider(name="openai-strict", convert=convert_openai_strict,
                         name_rule=OPENAI_NAMES, list_format=False, strict="openai-strict")
"""OpenAI function tools in strict mode (``tools list --format openai --strict``)."""
