"""A hypothesis strategy for the argument objects a tool's exported JSON Schema allows.

The translation covers the JSON Schema agentforge exports (``type``, ``enum``, ``const``,
``anyOf``/``oneOf``/``allOf``, ``$ref`` into ``$defs``, ``properties``/``required``,
``additionalProperties``, ``propertyNames``, ``items``/``prefixItems``, the size and
number bounds, ``pattern`` and the formats ``uuid``, ``date``, ``date-time``, ``time``).
A keyword it does not know is left to the final filter: every generated object is checked
against the whole schema with ``jsonschema``, so only schema-valid objects come out.
"""

from __future__ import annotations

import math
from datetime import UTC
from typing import TYPE_CHECKING, Any

from agentforge_cli.schema.jsonschema import definitions, ref_name

if TYPE_CHECKING:
    from hypothesis import strategies as st

__all__ = ["arguments"]

_FORMATS = ("uuid", "date", "date-time", "time")


def _formatted(name: str) -> st.SearchStrategy[str]:
    """Strings in one of the :data:`_FORMATS`."""
    from hypothesis import strategies as st

    if name == "uuid":
        return st.uuids().map(str)
    if name == "date":
        return st.dates().map(lambda d: d.isoformat())
    if name == "date-time":
        return st.datetimes(timezones=st.none() | st.just(UTC)).map(lambda d: d.isoformat())
    return st.times().map(lambda t: t.isoformat())


def any_json() -> st.SearchStrategy[Any]:
    """Any JSON value (for ``{}``, ``true`` and untyped schemas)."""
    from hypothesis import strategies as st

    scalars = (st.none() | st.booleans() | st.integers()
               | st.floats(allow_nan=False, allow_infinity=False) | st.text())
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(), inner, max_size=3), max_leaves=6)


class _Translator:
    """Schema node -> strategy, with ``$ref``s resolved in the root (``$defs`` or any local
    JSON Pointer)."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.defs = definitions(root)
        self.refs: dict[str, st.SearchStrategy[Any]] = {}

    def node(self, schema: Any) -> st.SearchStrategy[Any]:
        from hypothesis import strategies as st

        if schema is True or schema == {}:
            return any_json()
        if schema is False or not isinstance(schema, dict):
            return st.nothing()
        if "$ref" in schema:
            return self.ref(schema["$ref"])
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(list(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return st.one_of([self.node(sub) for sub in schema[key]])
        if "allOf" in schema:
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for sub in schema["allOf"]:
                merged.update(sub if isinstance(sub, dict) else {})
            return self.node(merged)
        kind = schema.get("type")
        if kind is None:
            kind = ("object" if "properties" in schema or "additionalProperties" in schema
                    else "array" if "items" in schema or "prefixItems" in schema else None)
        if kind is None:
            return any_json()
        kinds = kind if isinstance(kind, list) else [kind]
        return st.one_of([self.typed(name, schema) for name in kinds])

    def ref(self, ref: str) -> st.SearchStrategy[Any]:
        from hypothesis import strategies as st

        if ref not in self.refs:
            target = self.defs.get(ref_name(ref))
            self.refs[ref] = st.deferred(lambda: self.node(target if target is not None
                                                           else True))
        return self.refs[ref]

    def typed(self, kind: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
        from hypothesis import strategies as st

        if kind == "null":
            return st.none()
        if kind == "boolean":
            return st.booleans()
        if kind == "integer":
            return self.integers(schema)
        if kind == "number":
            return self.integers(schema) | self.floats(schema)
        if kind == "string":
            return self.strings(schema)
        if kind == "array":
            return self.arrays(schema)
        if kind == "object":
            return self.objects(schema)
        return st.nothing()

    @staticmethod
    def _bounds(schema: dict[str, Any]) -> tuple[Any, Any, bool, bool]:
        low, high = schema.get("minimum"), schema.get("maximum")
        exclude_low = exclude_high = False
        if isinstance(schema.get("exclusiveMinimum"), int | float):
            low, exclude_low = schema["exclusiveMinimum"], True
        if isinstance(schema.get("exclusiveMaximum"), int | float):
            high, exclude_high = schema["exclusiveMaximum"], True
        return low, high, exclude_low, exclude_high

    def integers(self, schema: dict[str, Any]) -> st.SearchStrategy[int]:
        from hypothesis import strategies as st

        low, high, exclude_low, exclude_high = self._bounds(schema)
        if low is not None:
            low = math.floor(low) + 1 if exclude_low and low == math.floor(low) else math.ceil(low)
        if high is not None:
            high = (math.ceil(high) - 1 if exclude_high and high == math.ceil(high)
                    else math.floor(high))
        if low is not None and high is not None and low > high:
            return st.nothing()
        return st.integers(min_value=low, max_value=high)

    def floats(self, schema: dict[str, Any]) -> st.SearchStrategy[float]:
        from hypothesis import strategies as st

        low, high, exclude_low, exclude_high = self._bounds(schema)
        return st.floats(min_value=low, max_value=high, exclude_min=exclude_low and low
                         is not None, exclude_max=exclude_high and high is not None,
                         allow_nan=False, allow_infinity=False)

    def strings(self, schema: dict[str, Any]) -> st.SearchStrategy[str]:
        from hypothesis import strategies as st

        if schema.get("format") in _FORMATS:
            return _formatted(schema["format"])
        if isinstance(schema.get("pattern"), str):
            return st.from_regex(schema["pattern"])
        return st.text(min_size=schema.get("minLength", 0), max_size=schema.get("maxLength"))

    def arrays(self, schema: dict[str, Any]) -> st.SearchStrategy[list[Any]]:
        from hypothesis import strategies as st

        low, high = schema.get("minItems", 0), schema.get("maxItems")
        prefix = [self.node(sub) for sub in schema.get("prefixItems", ())]
        rest = schema.get("items", True)
        unique = (lambda v: repr(v)) if schema.get("uniqueItems") else None
        if prefix:
            head = st.tuples(*prefix).map(list)
            if rest is False or (high is not None and high <= len(prefix)):
                return head
            more = st.lists(self.node(rest), max_size=None if high is None
                            else high - len(prefix))
            return st.builds(lambda a, b: a + b, head, more)
        return st.lists(self.node(rest), min_size=low, max_size=high, unique_by=unique)

    def objects(self, schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        from hypothesis import strategies as st

        properties = schema.get("properties") or {}
        if properties:
            required = set(schema.get("required", ()))
            return st.fixed_dictionaries(
                {k: self.node(v) for k, v in properties.items() if k in required},
                optional={k: self.node(v) for k, v in properties.items()
                          if k not in required})
        extra = schema.get("additionalProperties", True)
        if extra is False:
            return st.just({})
        return st.dictionaries(self.keys(schema.get("propertyNames")), self.node(extra),
                               min_size=schema.get("minProperties", 0),
                               max_size=schema.get("maxProperties", 5))

    def keys(self, names: Any) -> st.SearchStrategy[str]:
        from hypothesis import strategies as st

        if isinstance(names, dict) and "enum" in names:
            return st.sampled_from([n for n in names["enum"] if isinstance(n, str)])
        pattern = names.get("pattern") if isinstance(names, dict) else None
        if isinstance(pattern, str):
            return st.from_regex(pattern, fullmatch=True)
        return st.text()


def arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects valid against ``schema`` (a tool's ``parameters``)."""

    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    return _Translator(schema).node(schema).filter(validator.is_valid)
