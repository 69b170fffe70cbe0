"""Helpers for the provider tests: walk every schema node of an exported schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agentforge_cli import ToolSpecification, build_local_tools, tool_specification_from


def schema_nodes(schema: Any, path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(path, node)`` for every schema object inside ``schema`` (itself included).

    Property names and ``$defs`` names are never mistaken for keywords: only the values
    under ``properties``, ``$defs``, ``items``, ``prefixItems``, ``anyOf``/``oneOf``/
    ``allOf`` and a schema-valued ``additionalProperties`` are visited.
    """
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key, sub in (schema.get("properties") or {}).items():
        yield from schema_nodes(sub, f"{path}.{key}")
    for key, sub in (schema.get("$defs") or {}).items():
        yield from schema_nodes(sub, f"$defs.{key}")
    if isinstance(schema.get("items"), dict):
        yield from schema_nodes(schema["items"], f"{path}[*]")
    for index, sub in enumerate(schema.get("prefixItems") or ()):
        yield from schema_nodes(sub, f"{path}[{index}]")
    for keyword in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(keyword) or ():
            yield from schema_nodes(sub, path)
    if isinstance(schema.get("additionalProperties"), dict):
        yield from schema_nodes(schema["additionalProperties"], f"{path}.*")


def keywords_outside(schema: dict[str, Any], allowed: frozenset[str]) -> list[str]:
    """``path: keyword`` for every keyword used in ``schema`` that ``allowed`` lacks."""
    return [f"{path}: {key}" for path, node in schema_nodes(schema) for key in node
            if key not in allowed]


def spec(func: Any) -> ToolSpecification:
    """The specification of one function."""
    return tool_specification_from(func)


def specs_of(*targets: Any) -> list[ToolSpecification]:
    """The specifications ``build_local_tools`` makes of the targets."""
    return list(build_local_tools(list(targets)))


def raw(name: str, parameters: dict[str, Any], description: str = "A tool.") -> (
        ToolSpecification):
    """A specification with a hand-written parameters schema."""
    return ToolSpecification(name=name, description=description, parameters=parameters)


def obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """``{"type": "object", "properties": ..., "required": ...}``."""
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required}


def parameter_schemas(provider: str, data: Any) -> list[tuple[str, dict[str, Any]]]:
    """``(tool name, parameters schema)`` of every entry of one provider's export (``json``:
    a list of ``ToolSpecification.to_dict()`` rows)."""
    if provider == "mcp":
        return [(e["name"], e["inputSchema"]) for e in data["tools"]]
    found = []
    for entry in data:
        if provider in ("openai", "openai-strict"):
            found.append((entry["function"]["name"], entry["function"]["parameters"]))
        else:
            key = {"anthropic": "input_schema", "gemini-json-schema": "parametersJsonSchema",
                   "gemini-mcp": "inputSchema"}.get(provider, "parameters")
            found.append((entry["name"], entry.get(key) or {}))
    return found


def invalid_defaults(root: dict[str, Any]) -> list[str]:
    """``path: default`` for every ``default`` in ``root`` that its own schema refuses
    (``$ref``s resolved against ``root``; JSON Schema 2020-12)."""
    import jsonschema

    defs = root.get("$defs") or {}
    bad = []
    for path, node in schema_nodes(root):
        if "default" not in node:
            continue
        schema = {**node, "$defs": defs} if defs else node
        if not jsonschema.Draft202012Validator(schema).is_valid(node["default"]):
            bad.append(f"{path}: {node['default']!r} against {node}")
    return bad
