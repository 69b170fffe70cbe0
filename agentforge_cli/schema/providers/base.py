"""What every provider transform shares: issues, the export error, paths, ``$ref``s, and
the steps the schema-walking transforms (Gemini, OpenAI strict) take alike.

A transform walks one tool's ``parameters`` schema and builds the provider's form of it.
Whatever the provider cannot express exactly is recorded as a *warning*
(:class:`SchemaIssue`) and exported in the closest accepted form; whatever has no accepted
form at all is recorded as an *error*, and the export raises
:class:`ProviderExportError` listing every one of them — a parameter is never dropped
silently.

Paths name the argument the model writes, JSONPath style: ``$`` is the arguments object,
``$.items[*].qty`` the ``qty`` field of every element of ``items``, ``$.levels.*`` any
value of the mapping ``levels``, ``$.destination[0]`` the first member of a fixed tuple and
``$defs.Node`` a shared definition.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.core.spec import ToolSpecification
from agentforge_cli.errors import ProviderExportError

__all__ = [
    "ROOT",
    "ProviderExportError",
    "SchemaIssue",
    "ToolConversion",
    "Walker",
    "child_path",
    "display_path",
    "json_type",
    "plain_copy",
    "ref_cycle",
]

ROOT = "$"
"""The path of the arguments object itself."""

_META_KEYS = frozenset({"description", "title", "default", "examples", "deprecated",
                        "readOnly", "writeOnly", "$comment"})
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REF_PREFIX = "#/$defs/"


def child_path(path: str, segment: str | int, kind: str = "property") -> str:
    """Extend a path: a ``property`` name, an ``items`` element, a ``prefix`` index, ``any``
    value of a mapping."""
    if kind == "property":
        key = str(segment)
        return f"{path}.{key}" if _IDENTIFIER.match(key) else f'{path}["{key}"]'
    if kind == "items":
        return f"{path}[*]"
    if kind == "prefix":
        return f"{path}[{segment}]"
    if kind == "any":
        return f"{path}.*"
    raise ValueError(f"unknown path segment kind: {kind}")


def display_path(path: str) -> str:
    """The parameter as a person reads it: ``$.items[*].qty`` -> ``items[*].qty``."""
    if path.startswith("$."):
        return path[2:]
    if path.startswith("$"):
        return path[1:]
    return path


def json_type(value: Any) -> str:
    """The JSON type of a JSON value: ``null``, ``boolean``, ``integer``, ``number``,
    ``string``, ``array`` or ``object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


@dataclass(frozen=True, kw_only=True, slots=True)
class SchemaIssue:
    """Something a provider cannot take as it is."""

    provider: str
    """``openai``, ``openai-strict``, ``anthropic``, ``gemini`` or ``mcp``."""
    tool: str
    """The tool's name."""
    path: str
    """Where, as a JSONPath into the arguments (``$.items[*].qty``)."""
    rule: str
    """A short stable identifier, e.g. ``free-form-object``."""
    message: str
    """What is wrong and what the export does about it."""

    def __str__(self) -> str:
        where = display_path(self.path)
        subject = f'tool "{self.tool}"' + (f', parameter "{where}"' if where else "")
        return f"{self.provider}: {subject}: {self.message} [{self.rule}]"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolConversion:
    """One tool converted for one provider."""

    tool: str
    """The tool's name."""
    data: dict[str, Any] | None
    """The provider's entry for the tool; ``None`` when there are errors."""
    warnings: list[SchemaIssue] = field(default_factory=list)
    """Parts exported in the closest accepted form."""
    errors: list[SchemaIssue] = field(default_factory=list)
    """Parts with no accepted form."""


Convert = Callable[[Any, str], dict[str, Any]]
"""A transform's recursion: ``(subschema, its path) -> the provider's form of it``."""


class Walker:
    """Base of a schema transform for one tool: collects issues, resolves ``$ref``s.

    A subclass that walks the schema phrases what its provider lacks in
    :attr:`unsupported`, :attr:`no_form` and :attr:`untyped`, which the shared steps
    (:meth:`typed`, :meth:`flatten`, :meth:`elements`, :meth:`drop`) put in their
    messages.
    """

    provider = ""
    unsupported = "is not supported"
    """Ends a message about a keyword the provider leaves out (``oneOf ...``)."""
    no_form = "has no accepted form"
    """Ends a message about a part with no accepted form (``allOf of several schemas ...``)."""
    untyped = "a value of any type (Any) has no accepted form; declare a concrete type"
    """The message of an ``untyped-value`` error."""

    def __init__(self, spec: ToolSpecification) -> None:
        self.tool = spec.name
        self.root: dict[str, Any] = spec.parameters if isinstance(spec.parameters, dict) else {}
        defs = self.root.get("$defs")
        self.defs: dict[str, Any] = defs if isinstance(defs, dict) else {}
        self.warnings: list[SchemaIssue] = []
        self.errors: list[SchemaIssue] = []

    def warn(self, path: str, rule: str, message: str) -> None:
        """Record a part exported in the closest accepted form."""
        self.warnings.append(SchemaIssue(provider=self.provider, tool=self.tool, path=path,
                                         rule=rule, message=message))

    def error(self, path: str, rule: str, message: str) -> None:
        """Record a part with no accepted form."""
        self.errors.append(SchemaIssue(provider=self.provider, tool=self.tool, path=path,
                                       rule=rule, message=message))

    def ref_name(self, ref: Any) -> str | None:
        """``#/$defs/Node`` -> ``Node`` when it names a known definition, else ``None``."""
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            name = ref[len(_REF_PREFIX):]
            if name in self.defs:
                return name
        return None

    def resolve(self, schema: dict[str, Any], path: str) -> tuple[dict[str, Any], str | None]:
        """Merge a ``$ref``'s definition under the schema's own keywords.

        Returns:
            ``(merged schema, definition name)``; the schema itself and ``None`` when it
            has no ``$ref``. An unknown reference is an error and resolves to ``{}``.
        """
        ref = schema.get("$ref")
        if ref is None:
            return schema, None
        name = self.ref_name(ref)
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if name is None:
            self.error(path, "unresolved-ref",
                       f"$ref {ref!r} does not name a definition under $defs")
            return siblings, None
        return {**self.defs[name], **siblings}, name

    def conversion(self, data: dict[str, Any] | None) -> ToolConversion:
        """The result for the tool: ``data`` (``None`` when there are errors) and the
        issues recorded."""
        return ToolConversion(tool=self.tool, data=None if self.errors else data,
                              warnings=self.warnings, errors=self.errors)

    def drop(self, key: str, path: str) -> None:
        """Record a keyword the provider lacks, left out of the export (warning)."""
        self.warn(path, "unsupported-keyword", f'"{key}" {self.unsupported}; exported '
                  "without it (binding still checks the value)")

    def typed(self, schema: Any, path: str) -> bool:
        """Whether ``schema`` is a schema object that says something of its type.

        Records an ``untyped-value`` error for a value of any type (``true``, ``{}``, or
        annotations only) and an ``invalid-schema`` error for a non-object.
        """
        if schema is True or schema == {} or (
                isinstance(schema, dict) and schema.keys() <= _META_KEYS):
            self.error(path, "untyped-value", self.untyped)
            return False
        if not isinstance(schema, dict):
            self.error(path, "invalid-schema", f"not a schema object: {schema!r}")
            return False
        return True

    def flatten(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        """``allOf`` of one schema merged in (its ``$ref`` resolved); ``oneOf`` read as
        ``anyOf`` (warning). ``allOf`` of several schemas is an error and is dropped."""
        if "allOf" in schema:
            parts = schema["allOf"]
            rest = {k: v for k, v in schema.items() if k != "allOf"}
            if isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict):
                part, _ = self.resolve(parts[0], path)
                schema = {**part, **rest}
            else:
                self.error(path, "all-of", f"allOf of several schemas {self.no_form}")
                schema = rest
        if "oneOf" in schema:
            rest = {k: v for k, v in schema.items() if k != "oneOf"}
            self.warn(path, "one-of", f"oneOf {self.unsupported}; exported as anyOf "
                      "(binding still checks the value)")
            schema = {**rest, "anyOf": [*rest.get("anyOf", ()), *schema["oneOf"]]}
        return schema

    def elements(self, schema: dict[str, Any], out: dict[str, Any], path: str,
                 convert: Convert) -> bool:
        """Set ``out["items"]`` from an array schema's ``items`` and ``prefixItems``.

        A fixed tuple becomes ``items``: its one member type, or ``anyOf`` its distinct
        member types (warning), with ``minItems``/``maxItems`` fixing its length when it
        takes no further items. ``uniqueItems`` is left out (warning).

        Returns:
            False when the schema gives no element type (no tuple, no ``items`` schema);
            the caller decides whether that is an error.
        """
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        found = True
        if isinstance(prefix, list) and prefix:
            distinct: list[dict[str, Any]] = []
            for i, member in enumerate(prefix):
                converted = convert(member, child_path(path, i, "prefix"))
                if converted not in distinct:
                    distinct.append(converted)
            if isinstance(items, dict) and items:
                distinct.append(convert(items, child_path(path, 0, "items")))
            if len(distinct) > 1:
                self.warn(path, "tuple-positions",
                          f"a fixed tuple (prefixItems) {self.unsupported}; exported as an "
                          "array of any of its member types (binding still checks each "
                          "position)")
                out["items"] = {"anyOf": distinct}
            else:
                out["items"] = distinct[0]
            if items is False:
                out.setdefault("minItems", len(prefix))
                out.setdefault("maxItems", len(prefix))
        elif isinstance(items, dict) or items is True:
            out["items"] = convert(items, child_path(path, 0, "items"))
        else:
            found = False
        if schema.get("uniqueItems"):
            self.warn(path, "unique-items", f"uniqueItems {self.unsupported}; exported "
                      "without it (binding still removes duplicates of a set)")
        return found

    def root_object(self) -> bool:
        """Check that the parameters schema is a plain object; record an error if not."""
        root = self.root
        if not isinstance(root, dict) or root.get("type") != "object" or any(
                key in root for key in ("anyOf", "oneOf", "allOf", "$ref", "not", "enum")):
            self.error(ROOT, "root-not-object",
                       'the parameters schema must be a plain {"type": "object"} schema')
            return False
        return True


def ref_cycle(start: str, defs: dict[str, Any]) -> list[str]:
    """The chain of bare ``$ref``s leading from the definition ``start`` back to itself
    (``["A", "B", "A"]``), or ``[]`` when the definition describes a value."""
    chain = [start]
    current = defs.get(start)
    while isinstance(current, dict) and isinstance(current.get("$ref"), str) and (
            current.keys() - _META_KEYS == {"$ref"}):
        ref = current["$ref"]
        target = ref[len(_REF_PREFIX):] if ref.startswith(_REF_PREFIX) else None
        if target is None or target not in defs:
            return []
        chain.append(target)
        if target == start:
            return chain
        if target in chain[:-1]:
            return []  # a cycle further on, reported for its own members
        current = defs[target]
    return []


def plain_copy(value: Any) -> Any:
    """A deep copy, so an export never shares dicts with the specification."""
    return copy.deepcopy(value)
