"""The ``outputSchema`` of a Python tool served over MCP, and the ``structuredContent`` of
its results.

A tool whose return annotation is a dataclass or a ``TypedDict`` declares the JSON Schema
of that type (the same handlers as for parameters) as its ``outputSchema``; its result's
text, the JSON object :mod:`~agentforge_cli.core.returns` writes, is also sent as
``structuredContent``. Other return types declare none: a ``NamedTuple`` is written as an
array, and a pydantic model's schema names fields by alias while its result does not.

A client validates ``structuredContent`` against the ``outputSchema``, so a result that
does not match (a tool returning something other than it declares) is checked here first
and becomes an error result saying so (``jsonschema`` comes with the ``mcp`` SDK).
"""

from __future__ import annotations

import json
import typing
from typing import Any

__all__ = ["OutputSchemas"]


class OutputSchemas:
    """Each tool's ``outputSchema`` (``None``: none), read once per tool from its
    executor's definition, and a validator per schema."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self._schemas: dict[str, dict[str, Any] | None] = {}
        self._validators: dict[str, Any] = {}

    def schema(self, name: str) -> dict[str, Any] | None:
        """The ``outputSchema`` of the Python tool ``name``, or ``None``."""
        if name not in self._schemas:
            definition = getattr(self.service.executor(name), "definition", None)
            self._schemas[name] = None if definition is None else _schema_of(definition)
        return self._schemas[name]

    def problem(self, name: str, value: Any) -> str | None:
        """Why ``value`` does not match the tool's ``outputSchema`` (``None``: it does)."""
        schema = self.schema(name)
        if schema is None:
            return None
        if name not in self._validators:
            from jsonschema import Draft202012Validator

            self._validators[name] = Draft202012Validator(schema)
        from jsonschema.exceptions import best_match

        error = best_match(self._validators[name].iter_errors(value))
        if error is None:
            return None
        where = "".join(f"[{json.dumps(part)}]" for part in error.absolute_path)
        return f"{where or 'the result'}: {error.message}"


def _schema_of(definition: Any) -> dict[str, Any] | None:
    from agentforge_cli.core.handlers.registry import BuildContext, is_typeddict
    from agentforge_cli.core.handlers.schema_defs import finalize_schema

    try:
        returned = typing.get_type_hints(definition.original).get("return")
    except Exception:  # an unresolvable annotation: no outputSchema, as before
        return None
    import dataclasses

    if not isinstance(returned, type) or not (
            dataclasses.is_dataclass(returned) or is_typeddict(returned)):
        return None
    context = BuildContext()
    try:
        handler = context.resolve(returned)
    except Exception:  # a return type no parameter could have: no outputSchema
        return None
    schema = finalize_schema(dict(handler.schema), context.defs)
    reference = schema.get("$ref", "")
    if reference.startswith("#/$defs/"):  # a recursive type stays under $defs: the root
        defs = schema.get("$defs", {})    # is its definition, next to them
        schema = {**defs[reference.removeprefix("#/$defs/")], "$defs": defs}
    return schema if schema.get("type") == "object" else None
