"""The findings of one client's rules over a whole tool set.

Rules about one tool carry that tool's name; rules about the tool set as a whole
(``tool-count``, ``strict-optional``, ``strict-unions``) carry the tool ``""``, and
``name-collision`` carries each tool of a collision. Every finding's rule id is
``<client>:<kind>`` and its message names the client, the limit or pattern, the value
found and what to do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.schema.clients.base import Client, ClientRule
from agentforge_cli.schema.findings import Finding, finding
from agentforge_cli.schema.jsonschema import ROOT, child_path, definitions, ref_name

__all__ = ["client_findings", "strict_counts"]

_COMBINATORS = ("anyOf", "oneOf", "allOf")
_DIALECT_2020_12 = re.compile(r"^https?://json-schema\.org/draft/2020-12/schema#?$")

Check = Callable[[Client, ClientRule, Sequence[ToolSpecification]], Iterator[Finding]]


def client_findings(client: Client, specs: Sequence[ToolSpecification]) -> list[Finding]:
    """Every finding of ``client``'s rules over ``specs`` (the whole tool set)."""
    found: list[Finding] = []
    for rule in client.rules:
        found.extend(_CHECKS[rule.kind](client, rule, specs))
    return found


def _rule_id(client: Client, rule: ClientRule) -> str:
    return f"{client.name}:{rule.kind}"


def _per_tool(test: Callable[[Client, ClientRule, ToolSpecification], str | None]) -> Check:
    """A rule about one tool at a time: ``test`` says what is wrong with it, or ``None``."""
    def check(client: Client, rule: ClientRule, specs: Sequence[ToolSpecification]
              ) -> Iterator[Finding]:
        for spec in specs:
            problem = test(client, rule, spec)
            if problem:
                yield finding(spec.name, _rule_id(client, rule), rule.level,
                              f"{client.title} {problem}; {rule.consequence}")
    return check


def _name(client: Client, rule: ClientRule, spec: ToolSpecification) -> str | None:
    if rule.pattern is None or re.fullmatch(rule.pattern, spec.name):
        return None
    return f'wants a tool name matching {rule.pattern}, got "{spec.name}"'


def _name_length(client: Client, rule: ClientRule, spec: ToolSpecification) -> str | None:
    length = len(rule.prefix.replace("<server>", "")) + len(spec.name)
    if rule.limit is None or length <= rule.limit:
        return None
    shown = f" as {rule.prefix}{spec.name}" if rule.prefix else ""
    server = " plus the server's name" if "<server>" in rule.prefix else ""
    return (f"allows {rule.limit} characters for a tool name{shown}; this one is {length}"
            f"{server}")


def _input_root(client: Client, rule: ClientRule, spec: ToolSpecification) -> str | None:
    schema = spec.parameters
    used = [key for key in _COMBINATORS if isinstance(schema, dict) and key in schema]
    if used:
        return f"refuses {'/'.join(used)} at the root of the input schema"
    return _not_object(schema, "input schema")


def _not_object(schema: Any, where: str) -> str | None:
    """What is wrong with a schema whose root should be ``{"type": "object"}``."""
    if isinstance(schema, dict) and schema.get("type") == "object":
        return None
    got = (f"type {schema['type']!r}" if isinstance(schema, dict) and "type" in schema
           else "no type" if isinstance(schema, dict) else repr(schema))
    return f'wants {{"type": "object"}} at the root of the {where}, got {got}'


def _output_root(client: Client, rule: ClientRule, spec: ToolSpecification) -> str | None:
    if spec.output_schema is None:
        return None
    return _not_object(spec.output_schema, "outputSchema")


def _output_dialect(client: Client, rule: ClientRule, spec: ToolSpecification) -> str | None:
    schema = spec.output_schema
    dialect = schema.get("$schema") if isinstance(schema, dict) else None
    if dialect is None or (isinstance(dialect, str) and _DIALECT_2020_12.match(dialect)):
        return None
    return (f"validates an outputSchema as JSON Schema 2020-12 only, got \"$schema\": "
            f"{json.dumps(dialect)} (declare 2020-12, or leave $schema out)")


def _refs(client: Client, rule: ClientRule, spec: ToolSpecification) -> str | None:
    if not _uses_refs(spec.parameters):
        return None
    return "does not resolve $ref/$defs in an input schema, and this one uses them (inline " \
           "the definitions)"


def _uses_refs(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "$ref" in schema or "$defs" in schema or "definitions" in schema or any(
            _uses_refs(value) for value in schema.values())
    if isinstance(schema, list):
        return any(_uses_refs(value) for value in schema)
    return False


def _description_length(client: Client, rule: ClientRule, spec: ToolSpecification
                        ) -> str | None:
    length = len(spec.description or "")
    if rule.limit is None or length <= rule.limit:
        return None
    return f"allows {rule.limit} characters of tool description, this one has {length}"


def _collisions(client: Client, rule: ClientRule, specs: Sequence[ToolSpecification]
                ) -> Iterator[Finding]:
    by_rewritten: dict[str, list[str]] = {}
    for spec in specs:
        by_rewritten.setdefault(client.rewrite(spec.name), []).append(spec.name)
    for rewritten, names in by_rewritten.items():
        if len(set(names)) < 2:
            continue  # the same name twice is the neutral duplicate-name rule's
        listed = ", ".join(f'"{name}"' for name in names)
        for name in dict.fromkeys(names):
            yield finding(name, _rule_id(client, rule), rule.level,
                          f'{client.title} turns the names {listed} into one name, '
                          f'"{rewritten}"; {rule.consequence}')


def _tool_count(client: Client, rule: ClientRule, specs: Sequence[ToolSpecification]
                ) -> Iterator[Finding]:
    if rule.limit is not None and len(specs) > rule.limit:
        yield _set_finding(client, rule, f"allows {rule.limit} tools, this set has "
                                         f"{len(specs)}")


def _strict_budget(index: int, what: str) -> Check:
    """A rule on one of :func:`strict_counts` (``index``) over the whole tool set."""
    def check(client: Client, rule: ClientRule, specs: Sequence[ToolSpecification]
              ) -> Iterator[Finding]:
        count = strict_counts(specs)[index]
        if rule.limit is not None and count > rule.limit:
            yield _set_finding(client, rule, f"allows {rule.limit} {what} across all strict "
                                             f"tools, this set has {count}")
    return check


def _set_finding(client: Client, rule: ClientRule, problem: str) -> Finding:
    return Finding(tool="", rule=_rule_id(client, rule), level=rule.level, path="",
                   message=f"the tool set: {client.title} {problem}; {rule.consequence}")


def strict_counts(specs: Sequence[ToolSpecification]) -> tuple[int, int]:
    """``(optional, unions)``: the parameters that are not required, and those typed as a
    union (``anyOf``/``oneOf`` or a list of types, ``Optional[X]`` included), counted
    through nested objects, array items and ``$ref``s, over every tool."""
    optional = unions = 0
    for spec in specs:
        counter = _StrictCounter(spec.parameters)
        counter.visit(spec.parameters, ROOT)
        optional += counter.optional
        unions += counter.unions
    return optional, unions


class _StrictCounter:
    def __init__(self, root: Any) -> None:
        self.defs = definitions(root)
        self.following: set[str] = set()
        self.optional = 0
        self.unions = 0

    def visit(self, schema: Any, path: str) -> None:
        if not isinstance(schema, dict):
            return
        name = ref_name(schema.get("$ref"))
        if name is not None and name in self.defs and name not in self.following:
            self.following.add(name)
            self.visit(self.defs[name], path)
            self.following.discard(name)
        required = schema.get("required")
        required = set(required) if isinstance(required, list) else set()
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for key, sub in properties.items():
                self.optional += key not in required
                self.unions += _is_union(sub)
                self.visit(sub, child_path(path, key))
        for key in ("items", "additionalProperties"):
            self.visit(schema.get(key), path)
        for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            parts = schema.get(key)
            if isinstance(parts, list):
                for part in parts:
                    self.visit(part, path)


def _is_union(schema: Any) -> bool:
    return isinstance(schema, dict) and (
        "anyOf" in schema or "oneOf" in schema or isinstance(schema.get("type"), list))


_CHECKS: dict[str, Check] = {
    "name": _per_tool(_name),
    "name-length": _per_tool(_name_length),
    "name-collision": _collisions,
    "input-root": _per_tool(_input_root),
    "output-root": _per_tool(_output_root),
    "output-dialect": _per_tool(_output_dialect),
    "refs": _per_tool(_refs),
    "description-length": _per_tool(_description_length),
    "tool-count": _tool_count,
    "strict-optional": _strict_budget(0, "optional parameters"),
    "strict-unions": _strict_budget(1, "union-typed parameters"),
}
