"""A small subset of JSONPath (RFC 9535), enough to name the volatile parts of a result.

::

    $                 the whole value
    .name  ['name']   an object's member (['...'] for any name: spaces, dots, quotes)
    .*     [*]        every member of an object, every element of an array
    [n]               an array's element n, from 0; a negative n counts from the end
    ..name ..[n] ..*  the same, at any depth (a descendant segment)

Selectors select what is there and nothing else: ``.name`` of an array, ``[n]`` of an
object or past an array's end select nothing (no error), as RFC 9535 says. No filters,
slices, unions or functions: a scrubber names places, it does not query.

A :class:`JsonPath` finds the :data:`Location` of each selected value in a value parsed
by :mod:`json`; :func:`shown` writes a location back as a path (``$.items[0].id``).
Walks are iterative (no recursion limit on deep values). Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["JsonPath", "Location", "parse_path", "shown"]

Location = tuple[str | int, ...]
"""Where a value is: the member names and array indexes from the root (``()``: the root)."""

MAX_PATH_CHARS = 500
"""A longer path is refused (a scrubber names a place; this bounds the walk)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_INDEX = re.compile(r"\[\s*(-?\d+)\s*\]")
_STAR = re.compile(r"\[\s*\*\s*\]")
_QUOTED = re.compile(r"""\[\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\]""")
_ESCAPES = {"\\'": "'", '\\"': '"', "\\\\": "\\", "\\/": "/", "\\b": "\b", "\\f": "\f",
            "\\n": "\n", "\\r": "\r", "\\t": "\t"}
_ESCAPE = re.compile(r"\\u[0-9A-Fa-f]{4}|\\.")

_Selector = tuple[str, str | int | None]
"""``("name", "id")``, ``("index", 0)`` or ``("all", None)``."""


@dataclass(frozen=True, slots=True)
class _Segment:
    selector: _Selector
    descendant: bool
    """``..``: the selector applies at any depth, not only to the children."""


@dataclass(frozen=True, slots=True)
class JsonPath:
    """A parsed path (:func:`parse_path`); :attr:`text` as written."""

    text: str
    segments: tuple[_Segment, ...]

    def locations(self, value: Any) -> list[Location]:
        """The location of every value the path selects in ``value``, in document order
        (RFC 9535's order for ``..``: a node before its descendants), each once."""
        nodes: list[tuple[Location, Any]] = [((), value)]
        for segment in self.segments:
            found: list[tuple[Location, Any]] = []
            for where, node in nodes:
                targets = _descendants(where, node) if segment.descendant else ((where, node),)
                for at, inner in targets:
                    found.extend(_select(segment.selector, at, inner))
            nodes = found
        return list(dict.fromkeys(where for where, _ in nodes))


def _descendants(where: Location, node: Any) -> Iterator[tuple[Location, Any]]:
    """``node`` and every value inside it, a node before its children (iterative)."""
    stack = [(where, node)]
    while stack:
        at, current = stack.pop()
        yield at, current
        children = _children(at, current)
        stack.extend(reversed(children))


def _children(where: Location, node: Any) -> list[tuple[Location, Any]]:
    if isinstance(node, dict):
        return [((*where, key), child) for key, child in node.items()]
    if isinstance(node, list):
        return [((*where, index), child) for index, child in enumerate(node)]
    return []


def _select(selector: _Selector, where: Location, node: Any) -> list[tuple[Location, Any]]:
    kind, argument = selector
    if kind == "all":
        return _children(where, node)
    if kind == "name":
        assert isinstance(argument, str)
        if isinstance(node, dict) and argument in node:
            return [((*where, argument), node[argument])]
        return []
    assert isinstance(argument, int)
    if isinstance(node, list) and -len(node) <= argument < len(node):
        index = argument % len(node)
        return [((*where, index), node[index])]
    return []


def parse_path(text: str) -> JsonPath:
    """Parse a path of the subset described in the module docstring.

    Raises:
        ValueError: Not such a path; the message says where it goes wrong.
    """
    if len(text) > MAX_PATH_CHARS:
        raise ValueError(f"a JSON path is at most {MAX_PATH_CHARS} characters")
    if not text.startswith("$"):
        raise ValueError("a JSON path starts with $")
    segments: list[_Segment] = []
    position = 1
    while position < len(text):
        descendant = text.startswith("..", position)
        if descendant or text[position] == ".":
            position += 2 if descendant else 1
            dotted = not (descendant and text.startswith("[", position))
        elif text[position] == "[":
            dotted = False
        else:
            raise ValueError(_problem(text, position, "expected . or ["))
        selector, position = _selector(text, position, dotted=dotted)
        segments.append(_Segment(selector, descendant))
    return JsonPath(text, tuple(segments))


def _selector(text: str, position: int, *, dotted: bool) -> tuple[_Selector, int]:
    """The selector at ``position`` (after ``.``/``..`` when ``dotted``) and where the
    next segment starts."""
    if dotted:
        if text.startswith("*", position):
            return ("all", None), position + 1
        name = _NAME.match(text, position)
        if name is None:
            raise ValueError(_problem(text, position, "expected a member name or * after "
                                                      "the dot (['...'] for other names)"))
        return ("name", name.group()), name.end()
    for pattern, kind in ((_STAR, "all"), (_INDEX, "index"), (_QUOTED, "name")):
        found = pattern.match(text, position)
        if found is None:
            continue
        if kind == "all":
            return ("all", None), found.end()
        if kind == "index":
            return ("index", int(found.group(1))), found.end()
        quoted = found.group(1) if found.group(1) is not None else found.group(2)
        return ("name", _unescape(quoted)), found.end()
    raise ValueError(_problem(text, position, "expected [*], [n] or ['name']"))


def _unescape(text: str) -> str:
    def one(found: re.Match[str]) -> str:
        escape = found.group()
        if escape.startswith("\\u"):
            return chr(int(escape[2:], 16))
        if escape not in _ESCAPES:
            raise ValueError(f"unknown escape {escape} in a quoted name")
        return _ESCAPES[escape]

    return _ESCAPE.sub(one, text)


def _problem(text: str, position: int, what: str) -> str:
    return f"{what} at character {position + 1} of {text!r}"


def shown(where: Location) -> str:
    """A location written as a path: ``$.items[0].id``, ``$['a b']``."""
    parts = ["$"]
    for step in where:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif _NAME.fullmatch(step):
            parts.append(f".{step}")
        else:
            quoted = step.replace("\\", "\\\\").replace("'", "\\'")
            parts.append(f"['{quoted}']")
    return "".join(parts)
