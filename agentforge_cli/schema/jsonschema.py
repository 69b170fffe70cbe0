"""The JSON Schema helpers every schema module shares: argument paths, ``$ref``s, the
annotation keywords, the object-root check, and :class:`SchemaWalker`.

Paths name the argument the model writes, JSONPath style: ``$`` is the arguments object,
``$.items[*].qty`` the ``qty`` field of every element of ``items``, ``$.levels.*`` any
value of the mapping ``levels``, ``$.destination[0]`` the first member of a fixed tuple and
``$defs.Node`` a shared definition.

References are local ones: ``#/$defs/Name`` (the form the core generates) and any other
local JSON Pointer (``#/properties/flag``, ``#/definitions/Old``, with ``~0``/``~1``
escapes and percent-encoding), the form servers built on zod write for a reused schema.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

from agentforge_cli.core.bind.jsonvalues import json_type

__all__ = [
    "META_KEYWORDS",
    "REF_PREFIX",
    "ROOT",
    "Definitions",
    "SchemaWalker",
    "argument_path",
    "child_path",
    "definition_path",
    "definitions",
    "display_path",
    "is_object_root",
    "is_untyped",
    "json_type",
    "ref_cycle",
    "ref_name",
    "resolve_ref",
    "unresolved_reason",
]

ROOT = "$"
"""The path of the arguments object itself."""

META_KEYWORDS = frozenset({"description", "title", "default", "examples", "deprecated",
                           "readOnly", "writeOnly", "$comment"})
"""Annotation keywords: they describe a value without constraining it, so a schema made
of them only accepts any value."""

REF_PREFIX = "#/$defs/"
"""What a ``$ref`` to a shared definition starts with."""

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NOT_PLAIN_ROOT = ("anyOf", "oneOf", "allOf", "$ref", "not", "enum")


# --- paths -------------------------------------------------------------------------------

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


def definition_path(name: str) -> str:
    """The path of a shared definition: ``Node`` -> ``$defs.Node``."""
    return f"$defs.{name}"


def display_path(path: str) -> str:
    """The parameter as a person reads it: ``$.items[*].qty`` -> ``items[*].qty``."""
    if path.startswith("$."):
        return path[2:]
    if path.startswith("$"):
        return path[1:]
    return path


def argument_path(segments: Sequence[Any]) -> str:
    """A location inside a schema (``properties/items/items/properties/qty``) as the path
    of the argument it describes (``$.items[*].qty``); it stops at the first segment that
    names no argument."""
    path = ROOT
    index = 0
    while index < len(segments):
        segment = segments[index]
        following = segments[index + 1] if index + 1 < len(segments) else None
        if segment == "properties" and following is not None:
            path = child_path(path, following)
            index += 2
        elif segment == "prefixItems" and isinstance(following, int):
            path = child_path(path, following, "prefix")
            index += 2
        elif segment == "items":
            path = child_path(path, 0, "items")
            index += 1
        elif segment == "additionalProperties":
            path = child_path(path, 0, "any")
            index += 1
        elif segment in ("anyOf", "oneOf", "allOf") and isinstance(following, int):
            index += 2
        elif segment == "$defs" and following is not None:
            path = definition_path(following)
            index += 2
        else:
            break
    return path


# --- references --------------------------------------------------------------------------

def _pointer_parts(ref: str) -> list[str]:
    """The reference tokens of a local JSON Pointer ``#/a~1b/c%20d`` -> ``["a/b", "c d"]``."""
    from urllib.parse import unquote

    text = unquote(ref[1:])
    if not text:
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in text[1:].split("/")]


def ref_name(ref: Any) -> str | None:
    """The key a local ``$ref`` has in :class:`Definitions`: ``#/$defs/Node`` -> ``Node``;
    any other local JSON Pointer (``#/properties/flag``) is its own key; ``None`` for any
    other value (a remote reference, not a string)."""
    if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
        return None
    parts = _pointer_parts(ref)
    if ref.startswith(REF_PREFIX) and len(parts) == 2:
        return parts[1]
    return ref


def unresolved_reason(ref: Any) -> str:
    """Why a ``$ref`` resolves to no schema, for a finding's message."""
    if ref_name(ref) is None:
        return f"$ref {ref!r} is not a local JSON Pointer (#/...) and cannot be resolved"
    if isinstance(ref, str) and ref.startswith(REF_PREFIX) and ref_name(ref) != ref:
        return f"$ref {ref!r} names no definition under $defs"
    return f"$ref {ref!r} points at nothing in the tool's parameters"


class Definitions(dict[str, Any]):
    """The root schema's ``$defs`` by name; a key that is a local JSON Pointer (see
    :func:`ref_name`) is looked up in the root schema itself."""

    def __init__(self, root: Any) -> None:
        super().__init__(_defs_of(root))
        self.root = root

    def pointed(self, key: str) -> Any:
        """What the pointer ``key`` names in the root schema, or ``None``."""
        target: Any = self.root
        for part in _pointer_parts(key):
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                return None
        return target

    def shared(self, key: Any) -> bool:
        """Whether ``key`` names an entry of ``$defs`` (not a pointer elsewhere)."""
        return dict.__contains__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        if self.shared(key):
            return dict.__getitem__(self, key)
        if isinstance(key, str) and key.startswith("#"):
            found = self.pointed(key)
            return default if found is None else found
        return default

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None

    def __getitem__(self, key: Any) -> Any:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found


def _defs_of(root: Any) -> dict[str, Any]:
    defs = root.get("$defs") if isinstance(root, dict) else None
    return defs if isinstance(defs, dict) else {}


def definitions(root: Any) -> Definitions:
    """The root schema's ``$defs`` (empty when it has none), which also resolves local
    JSON Pointers into the root (:class:`Definitions`)."""
    return Definitions(root)


def resolve_ref(schema: dict[str, Any], defs: dict[str, Any]
                ) -> tuple[dict[str, Any], str | None]:
    """Merge a ``$ref``'s definition under the schema's own keywords, one level deep.

    Returns:
        ``(merged schema, definition key)`` (see :func:`ref_name`); ``(schema, None)``
        when the schema has no ``$ref`` or it names no schema object in ``defs``.
    """
    name = ref_name(schema.get("$ref"))
    target = defs.get(name) if name is not None else None
    if not isinstance(target, dict):
        return schema, None
    return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}, name


def ref_cycle(start: str, defs: dict[str, Any]) -> list[str]:
    """The chain of bare ``$ref``s leading from the definition ``start`` back to itself
    (``["A", "B", "A"]``), or ``[]`` when the definition describes a value."""
    chain = [start]
    current = defs.get(start)
    while isinstance(current, dict) and isinstance(current.get("$ref"), str) and (
            current.keys() - META_KEYWORDS == {"$ref"}):
        target = ref_name(current["$ref"])
        if target is None or target not in defs:
            return []
        chain.append(target)
        if target == start:
            return chain
        if target in chain[:-1]:
            return []  # a cycle further on, reported for its own members
        current = defs[target]
    return []


# --- whole schemas -----------------------------------------------------------------------

def is_untyped(schema: Any) -> bool:
    """True for a schema that accepts any value: ``true``, ``{}`` or annotations only."""
    return schema is True or (isinstance(schema, dict) and schema.keys() <= META_KEYWORDS)


def is_object_root(schema: Any) -> bool:
    """True for a plain ``{"type": "object"}`` schema, the form every provider requires of
    a tool's parameters (no ``$ref``, combinator, ``not`` or ``enum`` at the root)."""
    return isinstance(schema, dict) and schema.get("type") == "object" and not any(
        key in schema for key in _NOT_PLAIN_ROOT)


class SchemaWalker:
    """One depth-first walk over a tool's parameters schema.

    :meth:`walk` sorts each schema into a kind and calls the hook for it:

    * :meth:`untyped` — accepts any value (``true``, ``{}``, annotations only);
    * :meth:`invalid` — not a schema object (``false``, a number, ...);
    * :meth:`reference` — has a ``$ref``;
    * :meth:`node` — any other schema object.

    Recursion lives here, not in the subclasses: a hook reaches the children through
    :meth:`members`, :meth:`properties`, :meth:`items`, :meth:`prefix_items` and
    :meth:`extra` (which build their paths) and walks a ``$ref``'s definition
    :meth:`entering` it. By default nothing is built: :meth:`node` visits every child and
    a ``$ref`` is not followed. A rule that only looks overrides the hooks it needs; a
    provider's transform overrides them to return its form of each schema.
    """

    def __init__(self, root: Any) -> None:
        self.root: dict[str, Any] = root if isinstance(root, dict) else {}
        """The parameters schema (``{}`` when it is not an object)."""
        self.defs: Definitions = definitions(self.root)
        """Its shared definitions."""
        self.following: tuple[str, ...] = ()
        """The definitions being walked through a ``$ref`` (see :meth:`entering`),
        outermost first."""

    def walk(self, schema: Any, path: str) -> Any:
        """Hand ``schema`` to the hook of its kind; returns what the hook returns."""
        if is_untyped(schema):
            return self.untyped(schema, path)
        if not isinstance(schema, dict):
            return self.invalid(schema, path)
        if "$ref" in schema:
            return self.reference(schema, path)
        return self.node(schema, path)

    # -- hooks

    def untyped(self, schema: Any, path: str) -> Any:
        """A schema that accepts any value."""
        return None

    def invalid(self, schema: Any, path: str) -> Any:
        """A value that is not a schema object."""
        return None

    def reference(self, schema: dict[str, Any], path: str) -> Any:
        """A schema with a ``$ref``: by default its own keywords only (see
        :meth:`entering`)."""
        return self.node(schema, path)

    def node(self, schema: dict[str, Any], path: str) -> Any:
        """Any other schema object: by default every child is walked."""
        for keyword in ("anyOf", "oneOf", "allOf"):
            self.members(schema, keyword, path)
        self.properties(schema, path)
        if isinstance(schema.get("items"), dict) or schema.get("items") is True:
            self.items(schema, path)
        self.prefix_items(schema, path)
        if isinstance(schema.get("additionalProperties"), dict) or (
                schema.get("additionalProperties") is True):
            self.extra(schema, path)
        return None

    # -- children

    def members(self, schema: dict[str, Any], keyword: str, path: str) -> list[Any]:
        """Walk the members of ``anyOf``, ``oneOf`` or ``allOf`` (same path)."""
        return [self.walk(member, path) for member in schema.get(keyword) or ()]

    def properties(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        """Walk each property's schema, by property name."""
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            return {}
        return {key: self.walk(sub, child_path(path, key)) for key, sub in properties.items()}

    def items(self, schema: dict[str, Any], path: str) -> Any:
        """Walk the ``items`` schema (every element, or every element past a tuple)."""
        return self.walk(schema.get("items"), child_path(path, 0, "items"))

    def prefix_items(self, schema: dict[str, Any], path: str) -> list[Any]:
        """Walk each position of a fixed tuple (``prefixItems``)."""
        return [self.walk(member, child_path(path, index, "prefix"))
                for index, member in enumerate(schema.get("prefixItems") or ())]

    def extra(self, schema: dict[str, Any], path: str) -> Any:
        """Walk ``additionalProperties`` (any value of a mapping)."""
        return self.walk(schema.get("additionalProperties"), child_path(path, 0, "any"))

    @contextlib.contextmanager
    def entering(self, name: str) -> Iterator[None]:
        """Walk inside the definition ``name`` (through a ``$ref``): it is on
        :attr:`following` meanwhile, so a recursive type can be told."""
        self.following = (*self.following, name)
        try:
            yield
        finally:
            self.following = self.following[:-1]
