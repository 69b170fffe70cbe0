"""JSON values as the pipeline sees them: exact numbers, JSON type names, display forms.

The argument parser keeps every non-integer number as a :class:`JsonFloat`, a ``float``
that remembers the text the model wrote, so ``Decimal`` and ``int`` targets receive exactly
those digits (``0.1`` -> ``Decimal("0.1")``). Integers are parsed exactly by ``json``
already.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = [
    "NUMBER_TEXT",
    "JsonFloat",
    "describe",
    "json_safe",
    "json_type",
    "number_text",
    "plain",
    "to_json_text",
]

NUMBER_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?", re.ASCII)
"""A JSON number literal; a *numeric string* is one of these after trimming whitespace."""

_SHOWN_CHARS = 200


class JsonFloat(float):
    """A JSON number with a fraction or exponent, remembering the text the model wrote."""

    __slots__ = ("text",)

    text: str

    def __repr__(self) -> str:
        return self.text


def make_json_float(text: str) -> JsonFloat:
    """Build a :class:`JsonFloat` from a JSON number literal (``parse_float`` hook)."""
    number = float.__new__(JsonFloat, text)
    number.text = text
    return number


def number_text(value: float) -> str:
    """Return the JSON text of a number: what the model wrote, or Python's repr."""
    return value.text if type(value) is JsonFloat else repr(value)


_JSON_TYPES = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    JsonFloat: "number",
    dict: "object",
    list: "array",
    type(None): "null",
}


def json_type(value: object) -> str:
    """Name the JSON type of a parsed value (``string``, ``integer``, ``number``, ...)."""
    return _JSON_TYPES.get(type(value)) or type(value).__name__


def plain(value: Any) -> object:
    """Turn a parsed JSON value into plain Python (``JsonFloat`` -> ``float``).

    Raises:
        ValueError: When a number is not finite (``1e999``).
    """
    kind = type(value)
    if kind is JsonFloat or kind is float:
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(number_text(value))
        return number
    if kind is dict:
        return {key: plain(item) for key, item in value.items()}
    if kind is list:
        return [plain(item) for item in value]
    return value


_encode_string = json.encoder.py_encode_basestring  # ensure_ascii=False


def to_json_text(value: object) -> str:
    """Compact JSON text of a parsed value (``ensure_ascii=False``), numbers exactly as
    the model wrote them."""
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def _write(value: Any, out: list[str]) -> None:
    kind = type(value)
    if kind is str:
        out.append(_encode_string(value))
    elif kind is dict:
        out.append("{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                out.append(",")
            out.append(_encode_string(str(key)))
            out.append(":")
            _write(item, out)
        out.append("}")
    elif kind is list:
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif kind is JsonFloat:
        out.append(value.text)
    elif value is None:
        out.append("null")
    elif kind is bool:
        out.append("true" if value else "false")
    elif kind is int:
        out.append(int.__repr__(value))
    elif kind is float and math.isfinite(value):
        out.append(float.__repr__(value))
    else:
        out.append(_encode_string(repr(value)))


_LITERAL_LOOKING = re.compile(r"\s*(?:true|false|null|" + NUMBER_TEXT.pattern + r")?\s*",
                              re.ASCII)


def describe(value: Any) -> str:
    """Show a received value for an error message: ``<5.5>``, ``<purple>``.

    A string that could be mistaken for another JSON type (``"5"``, ``"true"``, ``""``) is
    marked ``(a JSON string)`` so the model can tell ``"5"`` from ``5``.
    """
    kind = type(value)
    if kind is str:
        text = value
        suffix = " (a JSON string)" if _LITERAL_LOOKING.fullmatch(value) else ""
    elif kind is JsonFloat:
        text, suffix = value.text, ""
    else:
        try:
            text = to_json_text(value)
        except (ValueError, RecursionError):
            text = f"{kind.__name__} value"
        suffix = ""
    if len(text) > _SHOWN_CHARS:
        text = text[:_SHOWN_CHARS] + f"… ({len(text)} characters)"
    return f"<{text}>{suffix}"


def json_safe(value: Any) -> Any:
    """A JSON-serialisable form of a bound value (as a tool's result would be written).

    ``Decimal``, ``UUID``, dates, enums, dataclasses, sets and the like are converted the
    way the return-value rules write them; anything without a JSON form becomes its
    ``repr``.
    """
    kind = type(value)
    if value is None or kind in (str, bool, int):
        return value
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else repr(float(value))
    from agentforge_cli.core.run.returns import UnserializableResult, result_text

    try:
        text = result_text(value)
    except UnserializableResult:
        return repr(value)
    if isinstance(value, str):  # a str subclass (str-valued enum...) is returned as is
        return text
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply to parse
        return text
