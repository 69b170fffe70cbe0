"""Whether today's result is the recorded one, and how they differ.

Three ways to compare (:class:`MatchMode`, ``replay --match``):

* ``exact`` (the default): when both texts parse as JSON they are compared as JSON values:
  object key order is ignored, numbers are compared by value (``5`` equals ``5.0``;
  exactly, never through ``float``), and ``true`` never equals ``1``; otherwise they are
  compared as text;
* ``json``: as ``exact``, and a JSON string that itself holds JSON (a result recorded
  encoded twice, as some frameworks store it) is compared as the JSON it holds;
* ``status``: only success against error is compared (for recordings made by another
  framework, whose texts differ from ours).

Standard library only.
"""

from __future__ import annotations

import json
from decimal import Decimal
from enum import StrEnum
from typing import Any

__all__ = ["MATCH_MODES", "MatchMode", "parse_result", "result_diff", "same_result",
           "same_status", "same_value"]


class MatchMode(StrEnum):
    """How results are compared (see the module docstring); the value is the option's."""

    EXACT = "exact"
    JSON = "json"
    STATUS = "status"


MATCH_MODES = tuple(MatchMode)
"""How results may be compared, the default first."""


def _parse_json(text: str) -> tuple[bool, Any]:
    def refuse(name: str) -> Any:
        raise ValueError(name)

    try:
        return True, json.loads(text, parse_float=Decimal, parse_constant=refuse)
    except (ValueError, RecursionError):
        return False, None


def _same_json(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | Decimal) and isinstance(b, int | Decimal):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _unwrap(ok: bool, value: Any) -> tuple[bool, Any]:
    """A JSON string holding a JSON object or array -> that value (``json`` mode)."""
    if ok and isinstance(value, str):
        inner_ok, inner = _parse_json(value)
        if inner_ok and isinstance(inner, dict | list):
            return True, inner
    return ok, value


def parse_result(text: str, match: MatchMode = MatchMode.EXACT) -> tuple[bool, Any]:
    """``(True, value)`` for a result text that is JSON (numbers as ``int`` or
    ``Decimal``; in ``json`` mode a JSON string holding an object or array is that
    value), else ``(False, None)``: the value :func:`same_result` compares."""
    parsed = _parse_json(text)
    return _unwrap(*parsed) if match == MatchMode.JSON else parsed


def same_value(a: Any, b: Any) -> bool:
    """Two values of :func:`parse_result` are the same JSON value (the rule of
    :func:`same_result`); a value too deep to compare is not."""
    try:
        return _same_json(a, b)
    except RecursionError:
        return False


def same_status(expected_is_error: bool | None, is_error: bool) -> bool:
    """``status`` mode: a recorded result without an error flag counts as a success."""
    return bool(expected_is_error) == is_error


def same_result(expected: str, actual: str, match: MatchMode = MatchMode.EXACT) -> bool:
    """Whether two result texts are the same result under ``match`` (see the module
    docstring; ``status`` mode ignores the texts)."""
    if match == MatchMode.STATUS or expected == actual:
        return True
    ok_a, a = _parse_json(expected)
    ok_b, b = _parse_json(actual)
    if match == MatchMode.JSON:
        (ok_a, a), (ok_b, b) = _unwrap(ok_a, a), _unwrap(ok_b, b)
    if ok_a and ok_b:
        try:
            return _same_json(a, b)
        except RecursionError:
            return False
    return False


def _pretty(text: str) -> list[str]:
    ok, value = _parse_json(text)
    if ok and isinstance(value, dict | list):
        try:
            return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True,
                              default=str).splitlines()
        except (ValueError, RecursionError):
            pass
    return text.splitlines() or [""]


def result_diff(expected: str, actual: str, expected_is_error: bool | None = None,
                is_error: bool = False, match: MatchMode = MatchMode.EXACT) -> list[str]:
    """Readable lines saying how today's result differs from the recorded one.

    Short single-line results give ``- recorded: ...`` / ``+ actual:   ...``; longer ones
    (and JSON objects and arrays, pretty-printed with sorted keys) a unified diff. In
    ``status`` mode: one line naming both statuses.
    """
    import difflib

    if match == MatchMode.STATUS:
        if same_status(expected_is_error, is_error):
            return []
        return [f"status: recorded {'error' if expected_is_error else 'success'}, "
                f"actual {'error' if is_error else 'success'}"]
    lines: list[str] = []
    if expected_is_error is not None and expected_is_error != is_error:
        lines.append(f"is_error: recorded {str(expected_is_error).lower()}, "
                     f"actual {str(is_error).lower()}")
    if same_result(expected, actual, match):
        return lines
    old, new = _pretty(expected), _pretty(actual)
    if len(old) == 1 and len(new) == 1:
        lines.append(f"- recorded: {old[0]}")
        lines.append(f"+ actual:   {new[0]}")
        return lines
    for line in difflib.unified_diff(old, new, "recorded", "actual", n=1, lineterm=""):
        lines.append(line)
    return lines
