"""``invalid-default``: a default that its own schema refuses.

``{"enum": ["fast", "safe"], "default": "turbo"}`` contradicts itself: a model told the
default may leave the argument out expecting it, and a client that fills defaults in
sends a value the tool refuses. Each ``default`` in a schema is validated against the
schema that holds it (without the ``default``) with ``jsonschema``, so the rule works on
any tool: agentforge's, an MCP server's, another library's.

agentforge's own export leaves out a default its type refuses, so for a Python tool the
function's default is checked too: a call that leaves the argument out runs with it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from agentforge_cli.core.observe.masking import MASK, is_sensitive_name
from agentforge_cli.schema.findings import ERROR, Finding, finding

__all__ = ["RULE", "DefaultChecker", "json_form"]

RULE = "invalid-default"

_NOT_JSON = object()
_LAST_KEY = re.compile(r'(?:\.([^.\[\]"]+)|\["([^"]*)"\])$')
_REASONS = 3
"""At most this many broken constraints are named per default."""
_SHOWN = 60
"""A default longer than this (as JSON) is shortened in messages."""


def json_form(value: Any) -> Any:
    """The JSON value a Python default stands for, as the export writes it (an ``Enum``
    member by name, a tuple or set as an array); ``None`` is null. Returns a sentinel
    (never JSON) for a value with no JSON form: a date, an object, NaN."""
    import enum

    if value is None or type(value) in (str, bool, int):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else _NOT_JSON
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, list | tuple | set | frozenset):
        items = [json_form(item) for item in value]
        return _NOT_JSON if any(item is _NOT_JSON for item in items) else items
    if isinstance(value, dict) and all(type(key) is str for key in value):
        pairs = {key: json_form(item) for key, item in value.items()}
        return _NOT_JSON if any(item is _NOT_JSON for item in pairs.values()) else pairs
    return _NOT_JSON


def _last_key(path: str) -> str:
    """The property a path ends with: ``$.auth.token`` -> ``token``, ``$["api-key"]`` ->
    ``api-key`` (``""`` for an element or the root)."""
    found = _LAST_KEY.search(path)
    return (found.group(1) or found.group(2) or "") if found else ""


def _location(parts: list[Any]) -> str:
    """`` at [1].qty``: where inside the default a constraint fails (``""``: itself)."""
    if not parts:
        return ""
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)
    return f" at {where.lstrip('.')}"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


class DefaultChecker:
    """Validates the defaults of one tool's parameters schema (its ``$ref``s resolve
    against it)."""

    def __init__(self, tool: str, root: dict[str, Any], validator_class: Any) -> None:
        self.tool = tool
        self.root_validator = validator_class(
            root, format_checker=validator_class.FORMAT_CHECKER)

    def refusals(self, value: Any, schema: dict[str, Any], *, secret: bool) -> list[str]:
        """What ``schema`` (its ``default`` aside) says against ``value``; empty when it
        accepts it, or when the schema cannot be used (an invalid pattern, a ``$ref``
        that resolves to nothing or only to itself). A secret value is not
        repeated: only the keyword it breaks is named."""
        from referencing.exceptions import Unresolvable

        own = {key: sub for key, sub in schema.items() if key != "default"}
        try:
            errors = list(self.root_validator.evolve(schema=own).iter_errors(value))
        except (Unresolvable, re.error, TypeError, ValueError, LookupError, RecursionError):
            return []  # RecursionError: a $ref that leads back to itself, checking nothing
        reasons = [(f"it breaks {error.validator}" if secret else error.message)
                   + _location(list(error.absolute_path)) for error in errors]
        return list(dict.fromkeys(reasons))[:_REASONS]

    def in_schema(self, schema: dict[str, Any], path: str) -> Iterator[Finding]:
        """The finding for a ``default`` written in ``schema`` (at ``path``), if refused."""
        default = schema.get("default", _NOT_JSON)
        if default is _NOT_JSON:
            return
        secret = is_sensitive_name(_last_key(path))
        reasons = self.refusals(default, schema, secret=secret)
        if reasons:
            yield finding(self.tool, RULE, ERROR,
                          f"the default {MASK if secret else _shown(default)} is refused by "
                          f"its own schema ({'; '.join(reasons)}): a model told this default "
                          "may leave the argument out and get a value the tool refuses; "
                          "make the default a value the schema accepts, or widen the schema",
                          path)

    def in_python(self, default: Any, schema: dict[str, Any], path: str, *,
                  secret: bool) -> Iterator[Finding]:
        """The finding for a parameter's Python ``default``, if the parameter's schema
        refuses it (a default with no JSON form is not judged)."""
        value = json_form(default)
        if value is _NOT_JSON:
            return
        reasons = self.refusals(value, schema, secret=secret)
        if reasons:
            yield finding(self.tool, RULE, ERROR,
                          f"the default {MASK if secret else _shown(value)} is refused by "
                          f"its own type ({'; '.join(reasons)}): a call that leaves the "
                          "argument out runs with it, and the exported schema leaves it "
                          "out; give a default the type accepts, or change the type", path)
