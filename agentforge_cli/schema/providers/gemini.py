"""Gemini function declarations: ``{"name", "description", "parameters"}``.

Gemini reads ``parameters`` as a subset of the OpenAPI 3.0 schema object, so the transform:

* keeps only the keywords that subset has (:data:`GEMINI_KEYWORDS`) and exactly one
  ``type`` per schema: ``X | None`` inside a container becomes ``X`` with
  ``nullable: true``, other unions become ``anyOf`` of single-typed schemas;
* inlines every ``$ref`` (the subset has no references); a recursive type has no
  accepted form and fails the export;
* keeps ``enum`` for strings only: the values of a non-string ``Literal`` are listed in
  the description instead (warning), as are string formats other than ``date-time``;
* exports ``dict[str, V]`` as a free-form object (warning; binding still coerces the
  values), a fixed tuple as ``items`` (warning when positions differ in type), an
  exclusive bound as an inclusive one (exact for integers);
* leaves ``parameters`` out for a tool without parameters, as Gemini asks.

No accepted form exists for a recursive type and for a value typed ``Any`` (every
schema needs one type). Lint also warns about parameter names outside
``^[A-Za-z_][A-Za-z0-9_]{0,63}$`` (``gemini:parameter-name``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.findings import WARNING, Finding, finding
from agentforge_cli.schema.jsonschema import ROOT, child_path, json_type, ref_name
from agentforge_cli.schema.providers.base import (
    NameRule,
    Provider,
    ProviderWalker,
    ToolConversion,
    plain_copy,
)

__all__ = ["GEMINI", "GEMINI_FORMATS", "GEMINI_KEYWORDS", "GEMINI_NAMES", "convert_gemini"]

GEMINI_NAMES = NameRule(pattern=re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}"),
                        text="start with a letter or '_', then letters, digits, '_', '.', "
                             "':' or '-', at most 64 characters")
"""The tool names Gemini accepts."""

_PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")

GEMINI_KEYWORDS = frozenset({
    "type", "format", "title", "description", "nullable", "default", "items", "minItems",
    "maxItems", "enum", "properties", "propertyOrdering", "required", "minProperties",
    "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "minimum",
    "maximum",
})
"""The keywords of Gemini's OpenAPI subset."""

GEMINI_FORMATS: dict[str, frozenset[str]] = {
    "string": frozenset({"date-time", "enum"}),
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}
"""The formats Gemini accepts, per type (other string formats are refused with
``only 'enum' and 'date-time' are supported for STRING type``)."""

_TYPES = ("string", "integer", "number", "boolean", "array", "object")


def convert_gemini(spec: ToolSpecification) -> ToolConversion:
    """One function declaration in Gemini's schema subset."""
    walker = _Gemini(spec)
    data: dict[str, Any] = {"name": spec.name, "description": spec.description}
    if walker.root_object():
        parameters = walker.walk(walker.root, ROOT)
        if parameters.get("properties"):
            data["parameters"] = parameters
    return walker.conversion(data)


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and (
        schema.get("type") == "null" or schema.get("enum") == [None]
        or ("const" in schema and schema["const"] is None))


def _describe(out: dict[str, Any], note: str) -> None:
    text = out.get("description")
    out["description"] = f"{text} ({note})" if text else note.capitalize()


def parameter_names(spec: ToolSpecification) -> Iterator[Finding]:
    """Lint: a warning for each parameter name Gemini does not document."""
    properties = spec.parameters.get("properties") if isinstance(spec.parameters, dict) else None
    for key in properties or {}:
        if not _PARAMETER_NAME.fullmatch(key):
            yield finding(spec.name, "gemini:parameter-name", WARNING,
                          "Gemini documents parameter names as a letter or '_' followed by "
                          "letters, digits or '_', at most 64 characters",
                          child_path(ROOT, key))


class _Gemini(ProviderWalker):
    provider = "gemini"
    unsupported = "is not in Gemini's schema subset"
    no_form = "has no form in Gemini's schema subset"
    untyped_text = ("a value of any type (Any) has no form in Gemini's schema subset (every "
                    "schema needs one type); declare a concrete type")

    def reference(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        name = ref_name(schema["$ref"])
        if name is not None and name in self.following:
            self.error(path, "recursive-type",
                       f'the recursive type "{name}" has no form in Gemini\'s schema '
                       "subset (no $ref); limit the nesting with a non-recursive type")
            return {"type": "object"}
        merged, name = self.resolve(schema, path)
        if name is None:
            return self.walk(merged, path)
        with self.entering(name):
            return self.walk(merged, path)

    def node(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        schema = self.flatten(schema, path)
        if "$ref" in schema:  # an allOf of one $ref
            return self.reference(schema, path)
        if "anyOf" in schema:
            return self.union(schema, path)
        kind = schema.get("type")
        if isinstance(kind, list):
            return self.type_list(schema, kind, path)
        if "enum" in schema or "const" in schema:
            return self.choices(schema, path)
        return self.single(schema, path)

    def union(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        members = list(schema["anyOf"])
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        others = [m for m in members if not _is_null(m)]
        null = len(others) < len(members)
        if len(others) == 1:
            out = self.walk(_merged(others[0], rest), path)
        elif not others:
            self.error(path, "null-only", "a value that can only be null has no form in "
                       "Gemini's schema subset")
            return {}
        else:
            out = self.keywords(rest, path)
            out["anyOf"] = [self.walk(m, path) for m in others]
        if null:
            out["nullable"] = True
        return out

    def type_list(self, schema: dict[str, Any], kinds: list[Any], path: str) -> dict[str, Any]:
        rest = {k: v for k, v in schema.items() if k != "type"}
        members = [{"type": k} for k in kinds if k != "null"]
        if len(members) == 1:
            out = self.walk({**rest, **members[0]}, path)
        else:
            shared = {k: rest.pop(k) for k in ("description", "title", "default")
                      if k in rest}
            out = self.walk({**shared, "anyOf": [{**rest, **m} for m in members]}, path)
        if "null" in kinds:
            out["nullable"] = True
        return out

    def choices(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        values = list(schema["enum"]) if "enum" in schema else [schema["const"]]
        rest = {k: v for k, v in schema.items() if k not in ("enum", "const", "type")}
        null = None in values
        values = [v for v in values if v is not None]
        if not values:
            self.error(path, "null-only", "a value that can only be null has no form in "
                       "Gemini's schema subset")
            return {}
        kinds = sorted({json_type(v) for v in values}, key=_TYPES.index)
        if kinds == ["integer", "number"]:
            kinds = ["number"]
        out = self.keywords(rest, path)
        if kinds == ["string"]:
            out = {"type": "string", **out, "enum": values}
        else:
            shown = ", ".join(json.dumps(v, ensure_ascii=False) for v in values)
            self.warn(path, "non-string-enum",
                      f"Gemini accepts enum for strings only; the allowed values ({shown}) "
                      "are listed in the description instead (binding still checks them)")
            _describe(out, f"one of: {shown}")
            if len(kinds) == 1:
                out = {"type": kinds[0], **out}
            else:
                strings = [v for v in values if isinstance(v, str)]
                out["anyOf"] = [{"type": "string", "enum": strings} if k == "string" and
                                strings else {"type": k} for k in kinds]
        if null:
            out["nullable"] = True
        return out

    def single(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        kind = schema.get("type")
        if kind is None:
            if "properties" in schema or "additionalProperties" in schema:
                kind = "object"
            elif "items" in schema or "prefixItems" in schema:
                kind = "array"
        if kind == "null":
            self.error(path, "null-only", "a value that can only be null has no form in "
                       "Gemini's schema subset")
            return {}
        out: dict[str, Any] = {"type": kind} if kind else {}
        out.update(self.keywords({k: v for k, v in schema.items() if k != "type"},
                                 path, kind))
        if kind == "object":
            self.object(schema, out, path)
        elif kind == "array":
            self.array(schema, out, path)
        return out

    def keywords(self, schema: dict[str, Any], path: str, kind: str | None = None
                 ) -> dict[str, Any]:
        """The scalar keywords of a schema, in Gemini's form."""
        out: dict[str, Any] = {}
        notes: list[str] = []
        structural = {"properties", "required", "additionalProperties", "propertyNames",
                      "items", "prefixItems", "uniqueItems", "$defs", "type"}
        for key, value in schema.items():
            if key in structural:
                continue
            if key == "format":
                if value in GEMINI_FORMATS.get(kind or "", ()):
                    out["format"] = value
                else:
                    self.warn(path, "unsupported-format",
                              f'format "{value}" is not accepted by Gemini for '
                              f"{kind or 'this'} values; noted in the description instead "
                              "(binding still checks the value)")
                    notes.append(f"format: {value}")
            elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(
                    value, int | float) and not isinstance(value, bool):
                self.exclusive(key, value, kind, schema, out, path)
            elif key == "default":
                if value is not None:
                    out["default"] = plain_copy(value)
            elif key == "examples":
                if isinstance(value, list) and value:
                    out["example"] = plain_copy(value[0])
            elif key in GEMINI_KEYWORDS:
                out[key] = plain_copy(value)
            else:
                self.drop(key, path)
        for note in notes:
            _describe(out, note)
        return out

    def exclusive(self, key: str, value: float, kind: str | None, schema: dict[str, Any],
                  out: dict[str, Any], path: str) -> None:
        lower = key == "exclusiveMinimum"
        bound = "minimum" if lower else "maximum"
        if kind == "integer" and isinstance(value, int):
            inclusive: float = value + 1 if lower else value - 1
        else:
            inclusive = value
            self.warn(path, "exclusive-bound",
                      f"{key} is not in Gemini's schema subset; exported as an inclusive "
                      f"{bound} (binding still checks the value)")
        current = schema.get(bound)
        if isinstance(current, int | float):
            inclusive = max(current, inclusive) if lower else min(current, inclusive)
        out[bound] = inclusive

    def object(self, schema: dict[str, Any], out: dict[str, Any], path: str) -> None:
        properties = schema.get("properties")
        if isinstance(properties, dict):
            out["properties"] = self.properties(schema, path)
            required = [k for k in schema.get("required") or () if k in properties]
            if required or "required" in schema:
                out["required"] = required
        extra = schema.get("additionalProperties")
        if extra is True or (isinstance(extra, dict) and extra) or (
                extra in (None, {}) and not isinstance(properties, dict)):
            what = ("a mapping (dict[str, V])" if isinstance(extra, dict) and extra
                    else "an object with free-form keys")
            self.warn(path, "free-form-object",
                      f"{what} cannot be described in Gemini's schema subset (no "
                      "additionalProperties); exported as a free-form object (binding "
                      "still coerces the values)")

    def array(self, schema: dict[str, Any], out: dict[str, Any], path: str) -> None:
        if not self.elements(schema, out, path):
            self.error(path, "untyped-items", f"an array without an items schema "
                       f"{self.no_form}; declare the element type")


GEMINI = Provider(name="gemini", convert=convert_gemini, name_rule=GEMINI_NAMES,
                  lint_rules=(parameter_names,))
"""Gemini function declarations."""


def _merged(member: Any, rest: dict[str, Any]) -> Any:
    """A union's only member with the union's other keywords (a boolean member too)."""
    if isinstance(member, dict):
        return {**member, **rest}
    return member if member is False or not rest else rest
