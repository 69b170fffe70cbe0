"""The constraints another library's schema declares, checked on the values agentforge bound.

Under ``--binding agentforge`` the library's validation does not run: agentforge's
coercion table binds the arguments from the function's signature, a reading that knows
agentforge's own constraints (``P(minimum=..., maximum=...)``) and not the library's
(pydantic's ``Field(ge=..., max_length=..., pattern=...)``, ``conint``/``constr``,
``annotated_types`` marks, a smolagents ``(choices: [...])``). Every one of those is in
the schema the library sends the model, which ``tools list`` prints: each argument the
model sent is checked, once bound, against its property of that schema, with
``jsonschema``, on the value's JSON form (:func:`json_form`).

Values are checked, at any depth the schema describes (``items``, nested ``properties``,
``$ref``): bounds, ``multipleOf``, lengths, ``pattern``, ``enum``, ``const``, item and
key counts, ``uniqueItems``. Structure is the binding's business and is not reported:
``type`` (agentforge's coercion chose the value's type from the signature), ``required``
and ``additionalProperties`` (missing and unknown keys are refused or not by the binding
mode, strict or lenient); they still decide which member of a union a value is checked
against. An argument the model did not send, or sent as null, is not checked: it gets the
function's default.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.bind.jsonvalues import describe
from agentforge_cli.core.define.definition import NO_DEFAULT
from agentforge_cli.core.observe.masking import is_sensitive_name
from agentforge_cli.errors import ArgumentError

if TYPE_CHECKING:
    from agentforge_cli.core.define.definition import ParamDef

__all__ = ["SchemaConstraints", "json_form", "schema_constraints"]

_VALUE_KEYWORDS = frozenset({
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "enum", "const", "minItems", "maxItems",
    "uniqueItems", "minProperties", "maxProperties", "not", "contains"})
"""Keywords whose presence anywhere in a schema makes checking it worth a call."""
_STRUCTURE = frozenset({"type", "required", "additionalProperties", "unevaluatedProperties",
                        "dependentRequired"})
"""Keywords left to the binding (see the module docstring)."""
_UNIONS = frozenset({"anyOf", "oneOf"})
_ANY_TYPES = ("any", "image", "audio")
"""smolagents' own type names, which JSON Schema does not have: any value is one."""


def json_form(value: Any) -> Any:
    """A bound value as the library's schema describes it: a pydantic model by
    ``model_dump(mode="json", by_alias=True)`` of the fields that were given (a default
    pydantic filled in is not the model's to defend), an enum member by its value, a
    dataclass as an object of its fields, tuples and sets as arrays, dates and times in
    ISO 8601, a UUID or a path as its text, a ``Decimal`` as the number it is."""
    kind = type(value)
    if value is None or kind is str or kind is int or kind is bool:
        return value
    if isinstance(value, enum.Enum):
        return json_form(value.value)
    if isinstance(value, str | int | float | Decimal):  # bool is an int
        return float(value) if isinstance(value, float) else value
    dump = getattr(value, "model_dump", None)
    if callable(dump) and hasattr(type(value), "model_fields"):  # a pydantic model
        return _model_form(dump)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: json_form(getattr(value, field.name))
                for field in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(json_form(key)): json_form(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_form(item) for item in value]
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, uuid.UUID | PurePath):
        return str(value)
    return value


def _model_form(dump: Any) -> Any:
    """A pydantic model's fields that were given, in JSON, without computed fields (which
    its schema does not list) where pydantic can leave them out (2.12 and later)."""
    try:
        return dump(mode="json", by_alias=True, exclude_unset=True,
                    exclude_computed_fields=True)
    except TypeError:  # an older pydantic
        return dump(mode="json", by_alias=True, exclude_unset=True)


def _readable(schema: Any) -> Any:
    """``schema`` without the ``pattern``s Python's ``re`` cannot compile (pydantic's Rust
    engine reads ``\\p{L}``, ``re`` does not): those are not checked, the rest is."""
    if isinstance(schema, list):
        return [_readable(part) for part in schema]
    if not isinstance(schema, dict):
        return schema
    kept = {}
    for key, part in schema.items():
        if key == "pattern" and isinstance(part, str):
            try:
                re.compile(part)
            except re.error:
                continue
        kept[key] = part if key in ("enum", "const", "default", "examples") else _readable(part)
    return kept


def _has_value_keyword(schema: Any) -> bool:
    if isinstance(schema, dict):
        return bool(_VALUE_KEYWORDS & schema.keys()) or any(
            _has_value_keyword(part) for key, part in schema.items()
            if key not in ("default", "examples", "description", "title"))
    if isinstance(schema, list):
        return any(_has_value_keyword(part) for part in schema)
    return False


def schema_constraints(parameters: Any, params: Sequence[ParamDef], library: str
                       ) -> SchemaConstraints | None:
    """The checker of a tool's parameters ``schema``, or ``None`` when the schema declares
    no value constraint on any of ``params`` (nothing to check: no ``jsonschema``)."""
    if not isinstance(parameters, dict) or not isinstance(parameters.get("properties"), dict):
        return None
    properties: dict[str, Any] = parameters["properties"]
    checked = tuple((index, param, properties[param.key])
                    for index, param in enumerate(params)
                    if isinstance(properties.get(param.key), dict))
    defs = [parameters[key] for key in ("$defs", "definitions") if key in parameters]
    if not _has_value_keyword([*(schema for _, _, schema in checked), *defs]):
        return None
    return SchemaConstraints(root=parameters, checked=checked, library=library)


class SchemaConstraints:
    """Checks bound arguments against the value constraints of a library's schema.

    Args:
        root: The tool's parameters schema (``$ref`` resolve against it).
        checked: Each parameter with a property in the schema: its position among the
            bound values, its definition and that property.
        library: The library's name, for messages (``FastMCP``).
    """

    def __init__(self, *, root: dict[str, Any], checked: tuple[tuple[int, ParamDef, Any], ...],
                 library: str) -> None:
        self.root = root
        self.checked = checked
        self.library = library
        self._validators: list[Any] | None = None  # one per checked parameter, made once
        self._unreadable: tuple[type[Exception], ...] = ()
        """What evaluating the schema raises where ``jsonschema`` cannot read it: a type
        name JSON Schema does not know, a ``$ref`` that resolves nowhere, a value pydantic
        cannot write as JSON. That parameter is not checked."""

    def _made(self) -> list[Any]:
        if self._validators is None:
            from jsonschema import Draft202012Validator, validators
            from jsonschema.exceptions import UnknownType
            from referencing.exceptions import Unresolvable

            self._unreadable = (UnknownType, Unresolvable, ValueError, re.error)

            checker = Draft202012Validator.TYPE_CHECKER.redefine_many(
                dict.fromkeys(_ANY_TYPES, lambda _checker, _instance: True))
            kind = validators.extend(Draft202012Validator, type_checker=checker)
            # format stays an annotation (no format checker): dates and the like are typing
            root = kind(_readable(self.root))
            self._validators = [root.evolve(schema=_readable(schema))
                                for _, _, schema in self.checked]
        return self._validators

    def check(self, arguments: dict[str, Any], values: Sequence[Any]) -> None:
        """Check each argument sent (not null) in ``arguments`` once bound (``values``,
        in the order of the tool's parameters), and each value the lenient binding filled
        in for a missing one (a function's own default is not checked).

        Raises:
            ArgumentError: The first parameter, in declaration order, whose value breaks a
                constraint: its path, the constraint and the value (masked when secret).
        """
        for (index, param, _), validator in zip(self.checked, self._made(), strict=True):
            sent = arguments.get(param.key)
            if sent is None and (param.default is not NO_DEFAULT or param.optional):
                continue  # not sent: the function's default, or None
            try:
                error = _reported(validator.iter_errors(json_form(values[index])))
            except self._unreadable:
                continue  # see _unreadable
            if error is not None and sent is None:
                raise self._filled_error(param, error, values[index])
            if error is not None:
                raise self._argument_error(param, error, sent)

    def _filled_error(self, param: ParamDef, error: Any, value: Any) -> ArgumentError:
        """A lenient default (``0`` for an ``int``) that breaks the schema's constraint."""
        shown = "***" if param.sensitive else repr(value)
        kind = "Required parameter" if param.required else "Parameter"
        phrase = _phrase(error)
        return ArgumentError(
            f'{kind} "{param.key}" is missing, and the lenient default {shown} {phrase} '
            f"(declared in the {self.library} schema); send a value", expected=phrase)

    def _argument_error(self, param: ParamDef, error: Any, sent: Any) -> ArgumentError:
        path = [param.key, *(f"[{part}]" if isinstance(part, int) else f".{part}"
                             for part in error.absolute_path)]
        phrase = _phrase(error)
        received = _received(sent, error.absolute_path, error.instance)
        failure = ArgumentError(
            f"{phrase} (declared in the {self.library} schema), received "
            f"{describe(received)}", path=path, expected=phrase, received=received)
        if param.sensitive or any(is_sensitive_name(str(part))
                                  for part in error.absolute_path):
            failure.mask_received()
        return failure


def _received(sent: Any, path: Iterable[Any], bound: Any) -> Any:
    """The value the model sent at ``path`` of its argument ``sent``; ``bound`` (the
    checked value) where the sent value has no such path (a repair decoded it)."""
    for part in path:
        held = (isinstance(sent, dict) and isinstance(part, str) and part in sent) or (
            isinstance(sent, list) and isinstance(part, int) and 0 <= part < len(sent))
        if not held:
            return bound
        sent = sent[part]
    return sent


def _structural(error: Any) -> bool:
    """The error is about structure only (see the module docstring): a structural keyword,
    or a union none of whose members fails but for structure."""
    if error.validator in _STRUCTURE:
        return True
    if error.validator in _UNIONS and error.context:
        return all(_structural(inner) for inner in error.context)
    return False


def _reported(errors: Iterable[Any]) -> Any:
    """The error to report among ``errors`` (``jsonschema``'s best match, descending
    into unions), or ``None`` when each is structural."""
    from jsonschema.exceptions import best_match, relevance

    def key(error: Any) -> tuple[Any, ...]:  # inside a union, a value's failure first
        return (_structural(error), *relevance(error))

    kept = [error for error in errors if not _structural(error)]
    return best_match(kept, key=key) if kept else None


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _count(number: Any, what: str) -> str:
    return f"{number} {what}{'' if number == 1 else 's'}"


def _phrase(error: Any) -> str:
    """What the value must be, in words: ``must be <= 50``."""
    keyword, limit = error.validator, error.validator_value
    phrases: dict[str, Callable[[], str]] = {
        "minimum": lambda: f"must be >= {_shown(limit)}",
        "maximum": lambda: f"must be <= {_shown(limit)}",
        "exclusiveMinimum": lambda: f"must be > {_shown(limit)}",
        "exclusiveMaximum": lambda: f"must be < {_shown(limit)}",
        "multipleOf": lambda: f"must be a multiple of {_shown(limit)}",
        "minLength": lambda: f"must be at least {_count(limit, 'character')} long",
        "maxLength": lambda: f"must be at most {_count(limit, 'character')} long",
        "pattern": lambda: f"must match the pattern {_shown(limit)}",
        "enum": lambda: "must be one of " + ", ".join(_shown(item) for item in limit),
        "const": lambda: f"must be {_shown(limit)}",
        "minItems": lambda: f"must hold at least {_count(limit, 'item')}",
        "maxItems": lambda: f"must hold at most {_count(limit, 'item')}",
        "uniqueItems": lambda: "must not hold the same item twice",
        "minProperties": lambda: f"must hold at least {_count(limit, 'key')}",
        "maxProperties": lambda: f"must hold at most {_count(limit, 'key')}",
        "not": lambda: f"must not match {_shown(limit)}",
    }
    made = phrases.get(keyword)
    if made is not None:
        return made()
    if keyword in _UNIONS:
        inner = dict.fromkeys(_phrase(item) for item in error.context or ()
                              if not _structural(item))
        if inner:
            return " or ".join(inner)
        if keyword == "oneOf":  # valid under several members
            return "must match exactly one member of the schema's union, not several"
        return "must match a member of the schema's union"
    return f"must satisfy the schema's {_shown(keyword)} keyword ({_shown(limit)})"
