"""A tool schema's ``$defs``: each object type inlined again unless it recurs.

Object types are filed under ``$defs`` while a tool is built
(:class:`~agentforge_cli.core.define.handlers.registry.BuildContext`); :func:`finalize_schema`
inlines each one used once and not recursive.
"""

from __future__ import annotations

import collections
from typing import Any

__all__ = ["finalize_schema"]

_REF = "#/$defs/"


def finalize_schema(root: dict[str, Any], defs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Inline every ``$defs`` entry used once and not recursive; keep the rest as ``$defs``.

    Returns a new schema; ``root`` and ``defs`` are not modified.
    """
    if not defs:
        return root
    counts: collections.Counter[str] = collections.Counter()
    edges: dict[str | None, set[str]] = {}

    def scan(node: Any, owner: str | None) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(_REF):
                name = ref[len(_REF):]
                counts[name] += 1
                edges.setdefault(owner, set()).add(name)
            for value in node.values():
                scan(value, owner)
        elif isinstance(node, list):
            for value in node:
                scan(value, owner)

    scan(root, None)
    for name, schema in defs.items():
        scan(schema, name)
    recursive = {name for name in defs if _reaches(name, name, edges)}
    inline = {name for name in defs if counts[name] <= 1 and name not in recursive}

    def substitute(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(_REF) and ref[len(_REF):] in inline:
                merged = substitute(defs[ref[len(_REF):]])
                extra = {k: substitute(v) for k, v in node.items() if k != "$ref"}
                return {**merged, **extra}
            return {k: substitute(v) for k, v in node.items()}
        if isinstance(node, list):
            return [substitute(v) for v in node]
        return node

    result: dict[str, Any] = substitute(root)  # root is an object: so is its substitute
    kept = {name: substitute(schema) for name, schema in defs.items() if name not in inline}
    if kept:
        result["$defs"] = kept
    return result


def _reaches(start: str, goal: str, edges: dict[str | None, set[str]]) -> bool:
    seen: set[str] = set()
    stack = list(edges.get(start, ()))
    while stack:
        name = stack.pop()
        if name == goal:
            return True
        if name not in seen:
            seen.add(name)
            stack.extend(edges.get(name, ()))
    return False

