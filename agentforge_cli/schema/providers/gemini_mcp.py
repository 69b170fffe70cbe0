"""Gemini through google-genai's MCP bridge: what ``mcp_to_gemini_tool`` makes of a tool.

The google-genai SDK (checked against 3.6.1) turns an MCP tool into a Gemini function
declaration in two steps, and both lose or refuse valid JSON Schema:

1. ``_filter_to_supported_schema`` walks ``items``, ``additionalProperties``, ``anyOf``,
   ``oneOf``, ``properties`` and ``$defs`` as schema *objects*: a boolean schema there
   (``additionalProperties: false``, ``items: false``, a ``true`` property) raises
   ``AttributeError`` and the request fails. Every keyword outside the SDK's
   ``JSONSchema`` field names is dropped, among them ``const``, ``allOf``, ``not``,
   ``prefixItems``, ``patternProperties``, ``exclusiveMinimum`` and, because the names
   are compared in snake case, ``minLength``, ``maxLength``, ``minItems``,
   ``maxItems``, ``minProperties``, ``maxProperties`` and ``uniqueItems``.
2. ``Schema.from_json_schema`` resolves each ``$ref`` by path (a missing one raises
   ``KeyError``), replaces the ``$ref`` schema by the definition (its sibling keywords
   are lost), turns the second visit of a recursive reference into an empty schema,
   sends the ``$ref`` of a definition that is itself a ``$ref`` unresolved, and drops
   ``oneOf`` and ``additionalProperties`` and, for a ``type`` list of several types,
   ``default``.

The lint reports every crash as an error (``gemini-mcp:boolean-schema``,
``gemini-mcp:ref-crash``) and every loss as a warning, at the tool and argument path.
The export is the MCP tool the bridge receives (``name``, ``description``,
``inputSchema``), so it is not a ``tools list`` format: ``tools list --format gemini``
or ``gemini-json-schema`` give what to send to Gemini directly. Titles of resolved
definitions, ``$schema``, ``$id`` and ``$comment`` are dropped too, without a finding.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.jsonschema import ROOT, child_path, definition_path
from agentforge_cli.schema.providers.base import (
    META_KEYWORDS,
    Provider,
    ProviderWalker,
    ToolConversion,
    plain_copy,
)
from agentforge_cli.schema.providers.gemini import GEMINI_NAMES

__all__ = ["BRIDGE_KEEPS", "GEMINI_MCP", "convert_gemini_mcp"]

BRIDGE_KEEPS = frozenset({
    # the field names of google.genai.types.JSONSchema ...
    "type", "format", "title", "description", "default", "items", "min_items", "max_items",
    "enum", "properties", "required", "min_properties", "max_properties", "minimum",
    "maximum", "min_length", "max_length", "pattern", "additional_properties", "any_of",
    "unique_items", "ref", "defs", "one_of",
    # ... and the JSON Schema names _filter_to_supported_schema adds
    "additionalProperties", "anyOf", "oneOf", "$defs", "$ref",
})
"""The keywords the bridge's filter keeps; it drops every other one."""

_BRIDGE = "the google-genai MCP bridge"
_FIX_BOOLEAN = ("agentforge serve --schema-form gemini-mcp serves the form the bridge takes; "
                'by hand, write {} for true and {"not": {}} for false (same meaning), or '
                "pass the schema to Gemini as parametersJsonSchema")
_SERVER_CHECKS = "the server still has to check it"


def convert_gemini_mcp(spec: ToolSpecification) -> ToolConversion:
    """The MCP tool the bridge receives, with what the bridge would refuse or lose."""
    walker = _Bridge(spec)
    if not isinstance(walker.root, dict):  # MCP's inputSchema is always an object
        walker.root_object()  # records root-not-object
        return walker.conversion(None)
    walker.filter(walker.root, ROOT)
    if not walker.errors:  # the filter raised: the conversion never gets further
        walker.convert(walker.root, ROOT, frozenset())
    return walker.conversion({"name": spec.name, "description": spec.description,
                              "inputSchema": plain_copy(spec.parameters)})


class _Bridge(ProviderWalker):
    provider = "gemini-mcp"

    # -- step 1: _filter_to_supported_schema, along the schema's structure

    def filter(self, schema: dict[str, Any], path: str) -> None:
        dropped = []
        for key, value in schema.items():
            if key in ("items", "additionalProperties"):
                kind = "items" if key == "items" else "any"
                self.sub_schema(value, key, path, child_path(path, 0, kind))
            elif key in ("anyOf", "oneOf"):
                members = value if isinstance(value, list) else [value]
                for index, member in enumerate(members):
                    self.sub_schema(member, f"{key}[{index}]", path, path)
            elif key in ("properties", "$defs"):
                entries = value.items() if isinstance(value, dict) else [("", value)]
                for name, member in entries:
                    where = (definition_path(name) if key == "$defs" and path == ROOT
                             else f"{path}.$defs.{name}" if key == "$defs"
                             else child_path(path, name))
                    self.sub_schema(member, "the schema" if name else key, where, where)
            elif key == "$ref" and not isinstance(value, str):
                self.crash(path, "$ref", value)
            elif key not in BRIDGE_KEEPS and key not in META_KEYWORDS:
                dropped.append(key)
        if dropped:
            them = "them" if len(dropped) > 1 else "it"
            self.warn(path, "dropped-keyword",
                      f"{_BRIDGE} drops {', '.join(dropped)} (only the fields of its "
                      "JSONSchema type pass, compared in snake case): the model never sees "
                      f"{them} and the server still has to check {them}")

    def sub_schema(self, value: Any, where: str, path: str, child: str) -> None:
        if isinstance(value, dict):
            self.filter(value, child)
        else:
            self.crash(path, where, value)

    def crash(self, path: str, where: str, value: Any) -> None:
        shown = str(value).lower() if isinstance(value, bool) else repr(value)
        what = f"the schema {shown}" if where == "the schema" else f"{where}: {shown}"
        self.error(path, "boolean-schema",
                   f"{what} crashes {_BRIDGE} (AttributeError in its schema filter): no "
                   f"request with this tool reaches Gemini; {_FIX_BOOLEAN}")

    # -- step 2: Schema.from_json_schema, following $ref as the bridge does

    def convert(self, schema: dict[str, Any], path: str, visited: frozenset[str]) -> None:
        ref = schema.get("$ref")
        if ref:
            if ref in visited:
                self.warn(path, "recursive-type",
                          f"the recursive reference {ref} is sent as an empty schema (any "
                          f"value) from its second level on by {_BRIDGE}; {_SERVER_CHECKS}")
                return
            target = self.target(ref)
            if target is None:
                self.error(path, "ref-crash",
                           f"$ref {ref!r}: {_BRIDGE} resolves a reference by its path in the "
                           "schema and crashes (KeyError) on this one; refer to an entry of "
                           "the root's $defs by name")
                return
            siblings = [k for k in schema if k in BRIDGE_KEEPS and k not in ("$ref", "$defs")]
            if siblings:
                self.warn(path, "ref-siblings-dropped",
                          f"{_BRIDGE} replaces a $ref schema by its definition and drops "
                          f"the keywords beside it ({', '.join(siblings)}); move them into "
                          "the definition")
            schema, visited = target, visited | {ref}
            if target.get("$ref"):
                self.warn(path, "ref-sent-unresolved",
                          f"the definition behind {ref} is itself a $ref "
                          f"({target['$ref']}), which {_BRIDGE} sends unresolved and "
                          "without definitions; refer to the final definition directly")
        self.losses(schema, path)
        for child, child_schema in self.children(schema, path):
            self.convert(child_schema, child, visited)

    def target(self, ref: str) -> dict[str, Any] | None:
        """What the bridge's ``_resolve_ref`` finds for ``ref``, or ``None`` where it
        raises."""
        current: Any = self.root
        in_map = False  # the segment names an entry of properties/$defs
        for part in ref.lstrip("#/").split("/"):
            if not isinstance(current, dict) or part not in current:
                return None
            if not in_map and part not in ("$defs", "properties", "items"):
                return None
            in_map = not in_map and part != "items"
            current = current[part]
        return current if isinstance(current, dict) and not in_map else None

    def types(self, schema: dict[str, Any]) -> list[str]:
        kind = schema.get("type")
        kinds = kind if isinstance(kind, list) else [kind] if kind else []
        return [k for k in kinds if k != "null"]

    def losses(self, schema: dict[str, Any], path: str) -> None:
        kinds = self.types(schema)
        enum = schema.get("enum")
        if isinstance(enum, list) and not all(isinstance(v, str) for v in enum):
            self.warn(path, "non-string-enum",
                      f"{_BRIDGE} puts these enum values into Gemini's enum, which takes "
                      "strings only (the SDK warns, the API may refuse the tool); use "
                      "string values or list the values in the description")
        if "oneOf" in schema:
            self.warn(path, "one-of-dropped",
                      f"{_BRIDGE} drops oneOf with all its members, so the value is sent "
                      "unconstrained; use anyOf")
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            self.warn(path, "mapping-values-dropped",
                      f"{_BRIDGE} drops additionalProperties: the type of the mapping's "
                      f"values is not sent; {_SERVER_CHECKS}")
        if len(kinds) > 1:
            lost = [k for k in ("default",) if schema.get(k) is not None]
            if "anyOf" in schema and "object" not in kinds:
                lost.append("anyOf")
            if lost:
                self.warn(path, "type-list-dropped",
                          f"{_BRIDGE} splits a type list into anyOf and drops "
                          f"{', '.join(lost)}; use anyOf of single-typed schemas")
        if kinds == ["array"] and not self.has_items(schema.get("items")):
            self.warn(path, "array-without-items",
                      f"{_BRIDGE} sends this array without items (none, or none it "
                      "keeps), and Gemini's schema asks for items on every array; declare "
                      "the element type")

    def has_items(self, items: Any) -> bool:
        if not isinstance(items, dict):
            return False
        kept = BRIDGE_KEEPS - {"oneOf", "one_of", "additionalProperties", "$defs", "defs"}
        return any(key in kept for key in items)

    def children(self, schema: dict[str, Any], path: str) -> list[tuple[str, dict[str, Any]]]:
        kinds = self.types(schema)
        union = len(kinds) > 1
        found: list[tuple[str, dict[str, Any]]] = []
        if isinstance(schema.get("items"), dict) and (not union or "array" in kinds):
            found.append((child_path(path, 0, "items"), schema["items"]))
        if not union or "object" in kinds:
            found.extend((path, member) for member in schema.get("anyOf") or ())
            found.extend((child_path(path, key), value)
                         for key, value in (schema.get("properties") or {}).items())
        return found


GEMINI_MCP = Provider(name="gemini-mcp", convert=convert_gemini_mcp, name_rule=GEMINI_NAMES,
                      list_format=False)
"""Gemini through google-genai's MCP bridge (lint only: ``tools check --provider``)."""
