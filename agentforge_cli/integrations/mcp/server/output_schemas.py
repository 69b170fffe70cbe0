"""The ``outputSchema`` of a Python tool served over MCP, and the ``structuredContent`` of
its results.

A tool whose return annotation is an object type declares an ``outputSchema``, and its
successful result is also sent as ``structuredContent`` matching it:

* a dataclass, a ``TypedDict`` or a ``NamedTuple``: the JSON Schema of that type (the same
  handlers as for parameters, a ``NamedTuple`` as an object of its fields); a
  ``NamedTuple``'s text is the JSON array :mod:`~agentforge_cli.core.run.returns` writes, and
  its ``structuredContent`` the object of its fields (as the SDK's own server sends it),
  at any depth;
* a pydantic model: pydantic's schema of what ``model_dump(mode="json")`` writes (the
  serialization schema, by field name, or by alias when the model serializes by alias),
  so the result's JSON object is the ``structuredContent`` as it is.

Other return types declare none. In a session of revision 2026-07-28, where
``structuredContent`` may be any JSON value, a tool whose return type is not an object (a
number, a string, a boolean, a list, a tuple: :meth:`OutputSchemas.value`) also sends its
successful result's value as ``structuredContent``, when it matches the JSON Schema of
that type (it declares no ``outputSchema``: older sessions, which list the same tools,
must see an object there). A client validates ``structuredContent`` against the
``outputSchema``, so a result that does not match (a tool returning something other than
it declares) is checked here first and becomes an error result saying so (``jsonschema``
comes with the ``mcp`` SDK).
"""

from __future__ import annotations

import json
import typing
from typing import Any

from agentforge_cli.core.define.capabilities import DefinedToolExecutor
from agentforge_cli.core.define.spec import ToolExecutionResult
from agentforge_cli.core.run.wrapping import innermost

__all__ = ["OutputSchemas", "StructuredResult"]


class OutputSchemas:
    """Each tool's ``outputSchema`` (``None``: none), read once per tool from its
    executor's definition, and a validator per schema."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self._schemas: dict[str, dict[str, Any] | None] = {}
        self._validators: dict[str, Any] = {}
        self._values: dict[str, tuple[bool, Any] | None] = {}

    def value(self, name: str, text: str) -> tuple[bool, Any]:
        """``(True, value)``: the JSON value of a successful result's ``text`` for the
        Python tool ``name`` whose return type is not an object (a ``str`` return's text
        is the string itself), when it matches that type's JSON Schema; else
        ``(False, None)``."""
        if name not in self._values:
            base = innermost(self.service.executor(name))
            self._values[name] = (_value_type(base.definition) if isinstance(
                base, DefinedToolExecutor) else None)
        known = self._values[name]
        if known is None:
            return False, None
        is_text, validator = known
        if is_text:
            return True, text
        try:
            value = json.loads(text, parse_constant=_refuse_constant)
        except (ValueError, RecursionError):
            return False, None
        if type(value) is dict or not validator.is_valid(value):
            return False, None
        return True, value

    def schema(self, name: str) -> dict[str, Any] | None:
        """The ``outputSchema`` of the Python tool ``name``, or ``None``."""
        if name not in self._schemas:
            base = innermost(self.service.executor(name))
            self._schemas[name] = (_schema_of(base.definition) if isinstance(
                base, DefinedToolExecutor) else None)
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

    def structured(self, name: str, text: str) -> tuple[dict[str, Any] | None, str | None]:
        """The ``structuredContent`` of a successful result's ``text`` for a tool with an
        ``outputSchema``, and why it does not match (``None``: it does)."""
        schema = self.schema(name)
        try:
            value = json.loads(text, parse_constant=_refuse_constant)
        except (ValueError, RecursionError):
            return None, "the result is not a JSON object"
        if schema is not None:
            value = objects_of_arrays(value, schema, schema.get("$defs") or {})
        if type(value) is not dict:
            return None, "the result is not a JSON object"
        return value, self.problem(name, value)


class StructuredResult(ToolExecutionResult):
    """A successful result and the ``structuredContent`` that matches its tool's
    ``outputSchema``."""

    structured_content: Any


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)


def objects_of_arrays(value: Any, schema: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """``value`` with each array that ``schema`` declares an object of its fields (a
    ``NamedTuple``, which is written as an array) made that object; the rest as it is."""
    if not isinstance(schema, dict) or depth > 64:
        return value
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        schema = defs.get(ref.removeprefix("#/$defs/"), {})
    properties = schema.get("properties")
    if isinstance(properties, dict) and type(value) is list and len(value) == len(properties):
        value = dict(zip(properties, value, strict=True))
    if type(value) is dict and isinstance(properties, dict):
        return {key: objects_of_arrays(item, properties.get(key), defs, depth + 1)
                for key, item in value.items()}
    if type(value) is list and isinstance(schema.get("items"), dict):
        return [objects_of_arrays(item, schema["items"], defs, depth + 1) for item in value]
    for member in schema.get("anyOf") or ():
        if isinstance(member, dict) and member.get("type") != "null":
            changed = objects_of_arrays(value, member, defs, depth + 1)
            if changed is not value:
                return changed
    return value


def _value_type(definition: Any) -> tuple[bool, Any] | None:
    """``(is_str, validator)`` of a return type that is not an object: whether it is
    ``str`` (its text is the value), and a validator of its JSON Schema; ``None`` for an
    object type, ``None`` or a type no parameter could have."""
    from agentforge_cli.core.define.handlers.registry import BuildContext
    from agentforge_cli.core.define.handlers.schema_defs import finalize_schema

    try:
        returned = typing.get_type_hints(definition.original).get("return")
    except Exception:  # an unresolvable annotation: nothing structured
        return None
    if returned is None or returned is type(None) or returned is typing.Any:
        return None
    context = BuildContext()
    try:
        schema = finalize_schema(dict(context.resolve(returned).schema), context.defs)
    except Exception:  # a return type no parameter could have
        return None
    if schema.get("type") == "object" or not ("type" in schema or "anyOf" in schema):
        return None
    from jsonschema import Draft202012Validator

    return returned is str, Draft202012Validator(schema)


def _schema_of(definition: Any) -> dict[str, Any] | None:
    from agentforge_cli.core.define.handlers.registry import BuildContext, is_typeddict
    from agentforge_cli.core.define.handlers.schema_defs import finalize_schema

    try:
        returned = typing.get_type_hints(definition.original).get("return")
    except Exception:  # an unresolvable annotation: no outputSchema, as before
        return None
    import dataclasses

    from agentforge_cli.core.define.handlers.objects import is_named_tuple, is_pydantic_model

    if not isinstance(returned, type):
        return None
    if is_pydantic_model(returned):
        return _model_schema(returned)
    if not (dataclasses.is_dataclass(returned) or is_typeddict(returned)
            or is_named_tuple(returned)):
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


def _model_schema(model: Any) -> dict[str, Any] | None:
    """pydantic's schema of what ``model_dump(mode="json")`` writes: the serialization
    schema, by alias only when the model serializes by alias."""
    by_alias = bool(model.model_config.get("serialize_by_alias", False))
    try:
        schema = model.model_json_schema(mode="serialization", by_alias=by_alias)
    except Exception:  # a type pydantic cannot describe: no outputSchema
        return None
    return schema if isinstance(schema, dict) and schema.get("type") == "object" else None
