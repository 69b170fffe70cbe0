"""The form of a tool's ``inputSchema`` that google-genai's MCP bridge takes whole
(``serve --schema-form gemini-mcp``, ``tools list --format mcp --schema-form gemini-mcp``).

The bridge (see :mod:`~agentforge_cli.schema.providers.gemini_mcp`) crashes on boolean
schemas and silently drops what its ``JSONSchema`` type lacks. This form starts from the
Gemini export (:mod:`~agentforge_cli.schema.providers.gemini`: one type per schema,
``$ref`` inlined, ``allOf`` merged, ``oneOf`` read as ``anyOf``, closed objects without
``additionalProperties``, what Gemini lacks noted in the description) and writes it as
the JSON Schema the bridge reads back into the same Gemini schema:

* ``nullable: true`` -> ``"type": [T, "null"]`` (a union: ``{"type": "null"}`` joins its
  ``anyOf``);
* ``minLength``, ``maxLength``, ``minItems``, ``maxItems``, ``minProperties`` and
  ``maxProperties`` -> their snake-case names, which the bridge keeps and sends (it
  compares keyword names in snake case);
* ``example`` and ``propertyOrdering``, which the bridge has no field for, are left out.

``tools check --provider gemini-mcp`` has no finding on the result. What the form leaves
out, ``serve`` still checks: it binds every call against the tool's own signature.
A part with no Gemini form (a recursive type, a value typed ``Any``) has none here either:
the conversion reports it as an error, as the Gemini export does; so does a form the
bridge's own lint still finds fault with (an array whose elements have no Gemini type),
so that no schema this module returns has a finding.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.providers.base import ToolConversion
from agentforge_cli.schema.providers.gemini import convert_gemini
from agentforge_cli.schema.providers.gemini_mcp import convert_gemini_mcp

__all__ = ["SNAKE_CASE", "bridge_form", "convert_gemini_mcp_form"]

SNAKE_CASE = {"minLength": "min_length", "maxLength": "max_length", "minItems": "min_items",
              "maxItems": "max_items", "minProperties": "min_properties",
              "maxProperties": "max_properties"}
"""The bounds the bridge drops by their JSON Schema names and keeps by these."""

_LEFT_OUT = frozenset({"example", "propertyOrdering"})


def convert_gemini_mcp_form(spec: ToolSpecification) -> ToolConversion:
    """``spec``'s parameters in the bridge's form: ``data`` is the new ``inputSchema``
    (``None`` when a part has no form), with the Gemini export's issues."""
    gemini = convert_gemini(spec)
    if gemini.data is None:
        return ToolConversion(tool=spec.name, data=None, warnings=gemini.warnings,
                              errors=gemini.errors)
    parameters = gemini.data.get("parameters") or {"type": "object", "properties": {}}
    form = bridge_form(parameters)
    faults = convert_gemini_mcp(replace(spec, parameters=form))
    if faults.errors or faults.warnings:
        return ToolConversion(tool=spec.name, data=None, warnings=gemini.warnings,
                              errors=[*faults.errors, *faults.warnings])
    return ToolConversion(tool=spec.name, data=form, warnings=gemini.warnings)


def bridge_form(schema: dict[str, Any]) -> dict[str, Any]:
    """One schema of Gemini's subset as JSON Schema the bridge reads back whole."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _LEFT_OUT or key == "nullable":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: bridge_form(sub) for name, sub in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = bridge_form(value)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [bridge_form(member) for member in value]
        else:
            out[SNAKE_CASE.get(key, key)] = value
    if not schema.get("nullable"):
        return out
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
        return out
    described: dict[str, Any] = {k: out.pop(k) for k in ("description", "title", "default")
                                 if k in out}
    members = out.pop("anyOf", None) or [out]
    return {**described, "anyOf": [*members, {"type": "null"}]}
