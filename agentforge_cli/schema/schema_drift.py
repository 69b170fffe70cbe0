"""Schema drift: every difference between two sets of tools, classified.

:func:`diff_specs` reads the change from the side of the calls a model already makes
(the tool's arguments are its *input*, as oasdiff reads a request body):

* **breaking** — a call that worked may now fail or mean something else: a tool removed
  or renamed (heuristic: a removed and an added tool with the same parameters; the
  finding says "renamed from" so the fix is plain); a parameter removed; a new required
  parameter; an optional parameter made required; a type changed or narrowed
  (``number`` -> ``integer``, an ``enum`` or ``format`` added, an enum value removed, a
  member of a union removed, ``null`` no longer accepted, an element type changed); a
  bound tightened (a lower maximum, a higher minimum, a new
  minimum/maximum/length/pattern, ``uniqueItems`` or closed extra keys);
* **warning** — worth a look but no call breaks: a description changed; a default
  changed;
* **info** — calls keep working: a tool added; an optional parameter added; an enum
  value added; a type widened; a bound loosened.

Nested objects, array elements, mapping values, tuple positions, union members and
``$defs`` are compared recursively. Each finding names the tool and the JSONPath of the
argument (``$.items[*].qty``); its message names both, and a breaking one reads
``breaking: tool "x", parameter "y": ...`` when printed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.findings import BREAKING, INFO, WARNING, Finding, finding
from agentforge_cli.schema.jsonschema import (
    META_KEYWORDS,
    ROOT,
    child_path,
    definitions,
    json_type,
    resolve_ref,
)

__all__ = ["diff_specs"]

# --- classification ----------------------------------------------------------------------

def diff_specs(old: Iterable[ToolSpecification], new: Iterable[ToolSpecification]
               ) -> list[Finding]:
    """Every difference between two sets of tools, classified (see the module docstring).

    Findings come in the old tools' order (each tool's own findings in schema order), then
    the added tools.
    """
    old_by_name = {spec.name: spec for spec in old}
    new_by_name = {spec.name: spec for spec in new}
    removed = [name for name in old_by_name if name not in new_by_name]
    added = [name for name in new_by_name if name not in old_by_name]
    renamed = _renames(removed, added, old_by_name, new_by_name)
    findings: list[Finding] = []
    for name, before in old_by_name.items():
        if name in new_by_name:
            findings.extend(_diff_tool(before, new_by_name[name]))
        elif name in renamed:
            after = new_by_name[renamed[name]]
            findings.append(finding(after.name, "tool-renamed", BREAKING,
                                    f'renamed from "{name}" (same parameters); a model '
                                    f'that calls "{name}" gets an unknown-tool error'))
            findings.extend(_diff_tool(before, after))
        else:
            findings.append(finding(name, "tool-removed", BREAKING, "the tool was removed"))
    for name in added:
        if name not in renamed.values():
            findings.append(finding(name, "tool-added", INFO, "the tool was added"))
    return findings


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _renames(removed: list[str], added: list[str], old: dict[str, ToolSpecification],
             new: dict[str, ToolSpecification]) -> dict[str, str]:
    """Pair each removed tool with an added one that has the same parameters.

    Tools without parameters pair only when their descriptions match too.
    """
    pairs: dict[str, str] = {}
    free = list(added)
    for name in removed:
        before = old[name]
        key = _canonical(before.parameters)
        candidates = [a for a in free if _canonical(new[a].parameters) == key]
        if not (before.parameters.get("properties") or {}):
            candidates = [a for a in candidates if new[a].description == before.description]
        candidates.sort(key=lambda a: new[a].description != before.description)
        if candidates:
            pairs[name] = candidates[0]
            free.remove(candidates[0])
    return pairs


def _diff_tool(before: ToolSpecification, after: ToolSpecification) -> Iterator[Finding]:
    if before.description != after.description:
        yield finding(after.name, "description-changed", WARNING,
                      f"the description changed from {_short(before.description)} "
                      f"to {_short(after.description)}")
    differ = _SchemaDiff(after.name, before.parameters, after.parameters)
    differ.compare(before.parameters, after.parameters, ROOT)
    yield from differ.findings


def _short(text: Any, limit: int = 60) -> str:
    shown = json.dumps(text, ensure_ascii=False)
    return shown if len(shown) <= limit else shown[:limit - 4] + '..."'


_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties",
          "minContains")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties",
          "maxContains")
_NULL = {"type": "null"}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _types(schema: dict[str, Any]) -> set[str] | None:
    """The JSON types a branch accepts, or ``None`` for any type."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return set(kind)
    values = schema["enum"] if isinstance(schema.get("enum"), list) else (
        [schema["const"]] if "const" in schema else None)
    if values is not None:
        return {json_type(v) for v in values}
    if "properties" in schema or "additionalProperties" in schema:
        return {"object"}
    if "items" in schema or "prefixItems" in schema:
        return {"array"}
    return None


def _widened(kinds: set[str]) -> set[str]:
    out = set(kinds)
    if "number" in out:
        out.add("integer")
    return out


def _label(kinds: set[str] | None) -> str:
    return "any" if kinds is None else " | ".join(sorted(kinds))


class _SchemaDiff:
    """Compares two parameter schemas of one tool, collecting findings."""

    def __init__(self, tool: str, old_root: dict[str, Any], new_root: dict[str, Any]):
        self.tool = tool
        self.old_defs = definitions(old_root)
        self.new_defs = definitions(new_root)
        self.findings: list[Finding] = []
        self.active: set[tuple[str | None, str | None]] = set()
        self.comparing: set[tuple[int, int]] = set()
        """The (old, new) schema objects being compared, by identity."""

    def add(self, level: str, rule: str, path: str, text: str) -> None:
        self.findings.append(finding(self.tool, rule, level, text, path))

    # -- resolution

    @staticmethod
    def _resolve(schema: Any, defs: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        if schema is True:
            return {}, None
        if schema is False:
            return {"not": {}}, None
        if not isinstance(schema, dict):
            return {}, None
        merged, name = resolve_ref(schema, defs)
        seen = {name}
        while "$ref" in merged and name is not None:  # a chain of $refs, to its end
            merged, inner = resolve_ref(merged, defs)
            if inner is None or inner in seen:
                break
            seen.add(inner)
        return merged, name

    def _branches(self, schema: dict[str, Any], defs: dict[str, Any],
                  seen: frozenset[str | None] = frozenset()) -> list[dict[str, Any]]:
        """A schema as the alternatives it accepts (``anyOf``/``oneOf`` members, or one
        per entry of a ``type`` list). A member that refers back to a definition being
        expanded (a cyclic union) counts as one alternative, not expanded again."""
        members = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(members, list) and members:
            out: list[dict[str, Any]] = []
            for member in members:
                resolved, name = self._resolve(member, defs)
                if name is not None and name in seen:
                    out.append({k: v for k, v in resolved.items() if k not in ("anyOf", "oneOf")})
                    continue
                out.extend(self._branches(resolved, defs, seen | {name})
                           if isinstance(resolved, dict) else [{}])
            return out
        kind = schema.get("type")
        if isinstance(kind, list) and len(kind) > 1:
            rest = {k: v for k, v in schema.items() if k not in META_KEYWORDS}
            return [{**rest, "type": k} for k in kind]
        return [{k: v for k, v in schema.items() if k not in META_KEYWORDS}]

    # -- comparison

    def compare(self, old: Any, new: Any, path: str) -> None:
        """Compare two schemas of the same argument."""
        pair = (id(old), id(new))  # the same two schema objects further up: a cycle that
        if pair in self.comparing:  # ran through a $ref inside anyOf/oneOf/allOf
            return
        old, old_ref = self._resolve(old, self.old_defs)
        new, new_ref = self._resolve(new, self.new_defs)
        key = (old_ref, new_ref)
        if old_ref is not None or new_ref is not None:
            if key in self.active:
                return  # a recursive type: already being compared further up
            self.active.add(key)
        self.comparing.add(pair)
        try:
            self._compare(old, new, path)
        finally:
            self.active.discard(key)
            self.comparing.discard(pair)

    def _compare(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        if path != ROOT:
            self._meta(old, new, path)
        old_branches = self._branches(old, self.old_defs)
        new_branches = self._branches(new, self.new_defs)
        if len(old_branches) == 1 and len(new_branches) == 1:
            self._branch(old_branches[0], new_branches[0], path)
        else:
            self._union(old_branches, new_branches, path)

    def _meta(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        if old.get("description") != new.get("description") and (
                old.get("description") or new.get("description")):
            self.add(WARNING, "description-changed", path,
                     f"the description changed from {_short(old.get('description', ''))} "
                     f"to {_short(new.get('description', ''))}")
        if "default" in old or "default" in new:
            before, after = old.get("default"), new.get("default")
            if _canonical(before) != _canonical(after) or ("default" in old) != (
                    "default" in new):
                self.add(WARNING, "default-changed", path,
                         f"the default changed from {_shown(old, 'default')} to "
                         f"{_shown(new, 'default')}; calls that omit it now mean "
                         "something else")

    def _union(self, old: list[dict[str, Any]], new: list[dict[str, Any]], path: str) -> None:
        remaining = list(new)
        unmatched: list[dict[str, Any]] = []
        for branch in old:  # identical alternatives first
            twin = next((n for n in remaining if _canonical(n) == _canonical(branch)
                         and "$ref" not in _canonical(branch)), None)
            if twin is not None:
                remaining.remove(twin)
            else:
                unmatched.append(branch)
        for branch in unmatched:
            partner = self._partner(branch, remaining)
            if partner is None:
                if _types(branch) == {"null"}:
                    self.add(BREAKING, "null-removed", path, "null is no longer accepted")
                else:
                    self.add(BREAKING, "any-of-member-removed", path,
                             f"the alternative {_kind_text(branch)} was removed (type "
                             "narrowed)")
                continue
            remaining.remove(partner)
            self._branch(branch, partner, path)
        for branch in remaining:
            if _types(branch) == {"null"}:
                self.add(INFO, "null-added", path, "null is now accepted")
            else:
                self.add(INFO, "any-of-member-added", path,
                         f"the alternative {_kind_text(branch)} was added (type widened)")

    @staticmethod
    def _partner(branch: dict[str, Any], candidates: list[dict[str, Any]]
                 ) -> dict[str, Any] | None:
        kinds = _types(branch)
        same = [c for c in candidates if _types(c) == kinds]
        if len(same) > 1 and branch.get("title"):
            titled = [c for c in same if c.get("title") == branch.get("title")]
            same = titled or same
        if same:
            return same[0]
        if kinds is not None:
            near = [c for c in candidates if (other := _types(c)) is not None and (
                kinds <= _widened(other) or other <= _widened(kinds))]
            if near:
                return near[0]
        return None

    def _branch(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        old_types, new_types = _types(old), _types(new)
        if old_types != new_types:
            if old_types is None:
                self.add(BREAKING, "type-narrowed", path,
                         f"type narrowed from any to {_label(new_types)}")
                return
            elif new_types is None:
                self.add(INFO, "type-widened", path,
                         f"type widened from {_label(old_types)} to any")
                return
            elif old_types <= _widened(new_types):
                self.add(INFO, "type-widened", path,
                         f"type widened from {_label(old_types)} to {_label(new_types)}")
            elif new_types < _widened(old_types):
                self.add(BREAKING, "type-narrowed", path,
                         f"type narrowed from {_label(old_types)} to {_label(new_types)}")
            else:
                self.add(BREAKING, "type-changed", path,
                         f"type changed from {_label(old_types)} to {_label(new_types)}")
                return
        self._enum(old, new, path)
        self._format(old, new, path)
        self._bounds(old, new, path)
        self._object(old, new, path)
        self._array(old, new, path)

    def _enum(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        before, after = _choices(old), _choices(new)
        if before is None:
            if after is not None:
                self.add(BREAKING, "enum-added", path,
                         f"now restricted to {_values(after)} (type narrowed)")
            return
        if after is None:
            self.add(INFO, "enum-removed", path, "no longer restricted to a list of values")
            return
        after_keys = {_canonical(v) for v in after}
        before_keys = {_canonical(v) for v in before}
        gone = [v for v in before if _canonical(v) not in after_keys]
        new_values = [v for v in after if _canonical(v) not in before_keys]
        if gone:
            noun = "value" if len(gone) == 1 else "values"
            self.add(BREAKING, "enum-value-removed", path,
                     f"enum {noun} {_values(gone)} removed")
        if new_values:
            noun = "value" if len(new_values) == 1 else "values"
            self.add(INFO, "enum-value-added", path, f"enum {noun} {_values(new_values)} added")

    def _format(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        before, after = old.get("format"), new.get("format")
        if before == after:
            return
        if before is None:
            self.add(BREAKING, "format-added", path, f'format "{after}" added (type narrowed)')
        elif after is None:
            self.add(INFO, "format-removed", path, f'format "{before}" removed')
        else:
            self.add(BREAKING, "format-changed", path,
                     f'format changed from "{before}" to "{after}"')

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        for keyword in (*_LOWER, *_UPPER):
            before, after = old.get(keyword), new.get(keyword)
            if before == after or not (_number(before) or _number(after)):
                continue
            lower = keyword in _LOWER
            if before is None:
                self.add(BREAKING, "bound-added", path, f"new {keyword} {after}")
            elif after is None:
                self.add(INFO, "bound-removed", path, f"{keyword} {before} removed")
            elif (after > before) == lower:
                verb = "raised" if lower else "lowered"
                self.add(BREAKING, "bound-tightened", path,
                         f"{keyword} {verb} from {before} to {after}")
            else:
                verb = "lowered" if lower else "raised"
                self.add(INFO, "bound-loosened", path,
                         f"{keyword} {verb} from {before} to {after}")
        self._multiple_of(old.get("multipleOf"), new.get("multipleOf"), path)
        before, after = old.get("pattern"), new.get("pattern")
        if before != after:
            if after is None:
                self.add(INFO, "pattern-removed", path, f"pattern {before!r} removed")
            elif before is None:
                self.add(BREAKING, "pattern-added", path, f"new pattern {after!r}")
            else:
                self.add(BREAKING, "pattern-changed", path,
                         f"pattern changed from {before!r} to {after!r}")
        if bool(old.get("uniqueItems")) != bool(new.get("uniqueItems")):
            if new.get("uniqueItems"):
                self.add(BREAKING, "unique-items-added", path, "items must now be unique")
            else:
                self.add(INFO, "unique-items-removed", path, "items no longer need be unique")

    def _multiple_of(self, before: Any, after: Any, path: str) -> None:
        if before == after or not (_number(before) or _number(after)):
            return
        if after is None:
            self.add(INFO, "bound-removed", path, f"multipleOf {before} removed")
        elif before is None:
            self.add(BREAKING, "bound-added", path, f"new multipleOf {after}")
        elif _number(before) and _number(after) and after and (before / after).is_integer():
            self.add(INFO, "bound-loosened", path,
                     f"multipleOf changed from {before} to {after}")
        else:
            self.add(BREAKING, "bound-tightened", path,
                     f"multipleOf changed from {before} to {after}")

    def _object(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        old_props = old.get("properties")
        new_props = new.get("properties")
        if isinstance(old_props, dict) or isinstance(new_props, dict):
            self._properties(old, new, old_props or {}, new_props or {}, path)
        if "additionalProperties" in old or "additionalProperties" in new:
            self._extra(old, new, path)

    def _properties(self, old: dict[str, Any], new: dict[str, Any], old_props: dict[str, Any],
                    new_props: dict[str, Any], path: str) -> None:
        old_required = set(old.get("required") or ())
        new_required = set(new.get("required") or ())
        for key, schema in old_props.items():
            where = child_path(path, key)
            if key not in new_props:
                self.add(BREAKING, "parameter-removed", where, "the parameter was removed")
                continue
            if key in new_required and key not in old_required:
                self.add(BREAKING, "parameter-now-required", where,
                         "the parameter is now required (it was optional)")
            elif key in old_required and key not in new_required:
                self.add(INFO, "parameter-now-optional", where,
                         "the parameter is now optional (it was required)")
            self.compare(schema, new_props[key], where)
        for key in new_props:
            if key in old_props:
                continue
            where = child_path(path, key)
            if key in new_required:
                self.add(BREAKING, "required-parameter-added", where,
                         "a new required parameter was added")
            else:
                self.add(INFO, "parameter-added", where, "an optional parameter was added")

    def _extra(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        before = old.get("additionalProperties", True)
        after = new.get("additionalProperties", True)
        if before is False and after is False:
            return
        if after is False:
            self.add(BREAKING, "extra-keys-closed", path,
                     "keys beyond the listed ones are no longer accepted")
        elif before is False:
            self.add(INFO, "extra-keys-opened", path, "keys beyond the listed ones are now "
                     "accepted")
        else:
            self.compare(before, after, child_path(path, 0, "any"))

    def _array(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        old_prefix = old["prefixItems"] if isinstance(old.get("prefixItems"), list) else []
        new_prefix = new["prefixItems"] if isinstance(new.get("prefixItems"), list) else []
        old_items, new_items = old.get("items"), new.get("items")
        for index in range(max(len(old_prefix), len(new_prefix))):
            before = old_prefix[index] if index < len(old_prefix) else _rest(old_items)
            after = new_prefix[index] if index < len(new_prefix) else _rest(new_items)
            if before is None or after is None:
                continue  # a position gained or lost shows in minItems/maxItems
            self.compare(before, after, child_path(path, index, "prefix"))
        if old_items is None and new_items is None:
            return
        if old_prefix and new_prefix and (old_items is False or new_items is False):
            return
        before = {} if old_items is None or old_items is True else old_items
        after = {} if new_items is None or new_items is True else new_items
        if before is False or after is False:
            return
        self.compare(before, after, child_path(path, 0, "items"))


def _rest(items: Any) -> Any:
    if items is False:
        return None
    return {} if items is None or items is True else items


def _choices(schema: dict[str, Any]) -> list[Any] | None:
    if isinstance(enum := schema.get("enum"), list):
        return enum
    if "const" in schema:
        return [schema["const"]]
    return None


def _values(values: list[Any]) -> str:
    return ", ".join(json.dumps(v, ensure_ascii=False) for v in values)


def _shown(schema: dict[str, Any], key: str) -> str:
    return json.dumps(schema[key], ensure_ascii=False) if key in schema else "none"


def _kind_text(branch: dict[str, Any]) -> str:
    kinds = _types(branch)
    title = branch.get("title")
    text = _label(kinds)
    return f"{text} ({title})" if title else text
