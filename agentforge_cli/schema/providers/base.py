"""What a provider is (:class:`Provider`) and what every provider's export shares: issues,
the conversion result, the tool-name rule, and :class:`ProviderWalker`.

A provider's export converts one tool's specification into the entry that provider
documents. Whatever the provider cannot express exactly is recorded as a *warning*
(:class:`SchemaIssue`) and exported in the closest accepted form; whatever has no accepted
form at all is recorded as an *error*, and the export raises
:class:`ProviderExportError` listing every one of them — a parameter is never dropped
silently.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.errors import ProviderExportError
from agentforge_cli.schema.findings import Finding, subject
from agentforge_cli.schema.jsonschema import (
    ROOT,
    SchemaWalker,
    is_object_root,
    resolve_ref,
    unresolved_reason,
)
from agentforge_cli.schema.tool_origins import ToolOrigin

__all__ = [
    "META_KEYWORDS",
    "LintRule",
    "NameRule",
    "Provider",
    "ProviderExportError",
    "ProviderWalker",
    "SchemaIssue",
    "ToolConversion",
    "plain_copy",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class SchemaIssue:
    """Something a provider cannot take as it is."""

    provider: str
    """The provider's name (``openai-strict``, ``gemini``, ...)."""
    tool: str
    """The tool's name."""
    path: str
    """Where, as a JSONPath into the arguments (``$.items[*].qty``)."""
    rule: str
    """A short stable identifier, e.g. ``free-form-object``."""
    message: str
    """What is wrong and what the export does about it."""

    def told(self, origin: ToolOrigin) -> SchemaIssue:
        """The issue as it is true for a tool of ``origin``: a closing "(binding still
        ...)" note, true only where agentforge binds the calls, says who can still
        check the value instead."""
        note = _BINDING_NOTE.search(self.message)
        if note is None or not origin.unbound:
            return self
        return replace(self, message=f"{self.message[:note.start()]} ({origin.unbound})")

    def __str__(self) -> str:
        return f"{self.provider}: {subject(self.tool, self.path)}: {self.message} [{self.rule}]"


_BINDING_NOTE = re.compile(r" \(binding still [^()]*\)$")
"""The closing note of a message about a constraint an export leaves out that agentforge's
binding still enforces."""

META_KEYWORDS = frozenset({"$schema", "$id", "$comment"})
"""Keywords that constrain no value and tell the model nothing: an export leaves them out
without an issue."""


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


@dataclass(frozen=True, kw_only=True, slots=True)
class NameRule:
    """What a provider accepts as a tool name."""

    pattern: re.Pattern[str]
    """The whole name must match."""
    text: str
    """The rule in words, for messages."""

    def problem(self, name: str) -> str | None:
        """``None`` when ``name`` is accepted, else what is wrong with it."""
        if self.pattern.fullmatch(name):
            return None
        return f'the name "{name}": {self.text}'


LintRule = Callable[[ToolSpecification], Iterable[Finding]]
"""A provider's own lint rule: the findings it has about one tool."""


def _entries_as_they_are(entries: list[dict[str, Any]]) -> Any:
    return entries


@dataclass(frozen=True, kw_only=True, slots=True)
class Provider:
    """Everything agentforge knows about one provider; the registry in
    :mod:`agentforge_cli.schema.providers` lists them."""

    name: str
    """What ``tools check --provider`` takes, and the prefix of its findings' rules
    (``gemini:free-form-object``)."""
    convert: Callable[[ToolSpecification], ToolConversion]
    """The export of one tool."""
    name_rule: NameRule
    """The tool names it accepts (lint reports ``<name>:name`` for any other)."""
    lint_rules: tuple[LintRule, ...] = ()
    """Its rules beyond the name rule and what the export reports."""
    wrap: Callable[[list[dict[str, Any]]], Any] = _entries_as_they_are
    """The document the exported entries go in (by default the list itself)."""
    list_format: bool = True
    """Whether ``tools list --format <name>`` exports it (a strict form is reached with
    ``--strict`` on its plain format instead)."""
    strict: str | None = None
    """The provider ``--strict`` selects for this one (``openai`` -> ``openai-strict``; a
    strict form names itself); ``None`` when there is no strict form."""


def plain_copy(value: Any) -> Any:
    """A deep copy, so an export never shares dicts with the specification."""
    return copy.deepcopy(value)


class ProviderWalker(SchemaWalker):
    """Base of a provider's transform of one tool: collects issues, resolves ``$ref``s, and
    takes the steps the transforms share.

    A subclass phrases what its provider lacks in :attr:`unsupported`, :attr:`no_form` and
    :attr:`untyped_text`, which the shared steps (:meth:`untyped`, :meth:`flatten`,
    :meth:`elements`, :meth:`drop`) put in their messages.
    """

    provider = ""
    """The provider's name, as its issues carry it."""
    unsupported = "is not supported"
    """Ends a message about a keyword the provider leaves out (``oneOf ...``)."""
    no_form = "has no accepted form"
    """Ends a message about a part with no accepted form (``allOf of several schemas ...``)."""
    untyped_text = "a value of any type (Any) has no accepted form; declare a concrete type"
    """The message of an ``untyped-value`` error."""

    def __init__(self, spec: ToolSpecification, provider: str | None = None) -> None:
        super().__init__(spec.parameters)
        if provider is not None:
            self.provider = provider
        self.tool = spec.name
        self.warnings: list[SchemaIssue] = []
        self.errors: list[SchemaIssue] = []

    if TYPE_CHECKING:  # each hook of a provider's walk returns its form of the schema
        def walk(self, schema: Any, path: str) -> dict[str, Any]: ...

    def warn(self, path: str, rule: str, message: str) -> None:
        """Record a part exported in the closest accepted form."""
        self.warnings.append(SchemaIssue(provider=self.provider, tool=self.tool, path=path,
                                         rule=rule, message=message))

    def error(self, path: str, rule: str, message: str) -> None:
        """Record a part with no accepted form."""
        self.errors.append(SchemaIssue(provider=self.provider, tool=self.tool, path=path,
                                       rule=rule, message=message))

    def conversion(self, data: dict[str, Any] | None) -> ToolConversion:
        """The result for the tool: ``data`` (``None`` when there are errors) and the
        issues recorded."""
        return ToolConversion(tool=self.tool, data=None if self.errors else data,
                              warnings=self.warnings, errors=self.errors)

    def root_object(self) -> bool:
        """Check that the parameters schema is a plain object; record an error if not."""
        if not is_object_root(self.root):
            self.error(ROOT, "root-not-object",
                       'the parameters schema must be a plain {"type": "object"} schema')
            return False
        return True

    # -- hooks every transform shares

    def untyped(self, schema: Any, path: str) -> dict[str, Any]:
        """A value of any type: an ``untyped-value`` error."""
        self.error(path, "untyped-value", self.untyped_text)
        return {}

    def invalid(self, schema: Any, path: str) -> dict[str, Any]:
        """Not a schema object: an ``invalid-schema`` error."""
        self.error(path, "invalid-schema", f"not a schema object: {schema!r}")
        return {}

    # -- shared steps

    def resolve(self, schema: dict[str, Any], path: str) -> tuple[dict[str, Any], str | None]:
        """Merge a ``$ref``'s definition under the schema's own keywords.

        Returns:
            ``(merged schema, definition name)``; the schema itself and ``None`` when it
            has no ``$ref``. An unknown reference is an error and resolves to the schema's
            other keywords.
        """
        if "$ref" not in schema:
            return schema, None
        merged, name = resolve_ref(schema, self.defs)
        if name is None:
            self.error(path, "unresolved-ref", unresolved_reason(schema["$ref"]))
            return {k: v for k, v in schema.items() if k != "$ref"}, None
        return merged, name

    def drop(self, key: str, path: str) -> None:
        """Record a keyword the provider lacks, left out of the export (warning); one of
        :data:`META_KEYWORDS` is left out without a warning."""
        if key in META_KEYWORDS:
            return
        self.warn(path, "unsupported-keyword", f'"{key}" {self.unsupported}; exported '
                  "without it (binding still checks the value)")

    def flatten(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        """``allOf`` of one schema merged in; ``oneOf`` read as ``anyOf`` (warning).
        ``allOf`` of several schemas is an error and is dropped.

        An ``allOf`` of one ``$ref`` becomes that ``$ref`` with the schema's keywords beside
        it: the caller walks it again (:meth:`reference` resolves it, and tells a
        recursive type, which resolving it here would inline into itself forever)."""
        if "allOf" in schema:
            parts = schema["allOf"]
            rest = {k: v for k, v in schema.items() if k != "allOf"}
            if isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict):
                part = parts[0]
                if "$ref" not in part or "$ref" in rest:
                    part, _ = self.resolve(part, path)
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

    def elements(self, schema: dict[str, Any], out: dict[str, Any], path: str) -> bool:
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
            for converted in self.prefix_items(schema, path):
                if converted not in distinct:
                    distinct.append(converted)
            if isinstance(items, dict) and items:
                distinct.append(self.items(schema, path))
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
            out["items"] = self.items(schema, path)
        else:
            found = False
        if schema.get("uniqueItems"):
            self.warn(path, "unique-items", f"uniqueItems {self.unsupported}; exported "
                      "without it (binding still removes duplicates of a set)")
        return found
