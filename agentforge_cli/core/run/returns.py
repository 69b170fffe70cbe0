"""Return values -> the text the model receives.

``None`` -> ``Success``; a ``str`` as is; anything else compact JSON with
``ensure_ascii=False``. Beyond what ``json`` knows, dataclasses, enums (by name),
``Decimal`` (exact digits), ``UUID``, dates and times, sets, tuples, ``NamedTuple`` and
pydantic models are serialised. Anything else raises :class:`UnserializableResult`.

Every enum is written by name, including those that are also a ``str`` or ``int``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import enum
import json
import math
import uuid
from decimal import Decimal
from pathlib import PurePath
from typing import Any

__all__ = ["SUCCESS", "UnserializableResult", "result_text"]

SUCCESS = "Success"
"""What a tool that returns ``None`` (a "void" tool) answers."""

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_encode_string = json.encoder.py_encode_basestring  # ensure_ascii=False


class UnserializableResult(TypeError):
    """The tool returned a value that cannot be turned into JSON; names its type.

    An internal signal, outside the ``AgentForgeError`` tree: the executor turns it into
    the call's error result (or the ``__cause__`` of a ``ToolExecutionError`` when it
    propagates, where fuzzing reads it as a bad result), and ``jsonvalues.json_safe`` into
    the value's ``repr``.
    """


def result_text(value: Any) -> str:
    """Normalise a tool's return value into the text the model receives.

    Raises:
        UnserializableResult: For a value (or part of one) with no JSON form.
    """
    if value is None:
        return SUCCESS
    if type(value) is str:
        return value
    if _is_plain(value, 0):
        try:
            return _dumps(value)
        except (TypeError, ValueError, RecursionError):
            pass
    parts: list[str] = []
    _encode(value, parts, set())
    return "".join(parts)


_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_plain(value: Any, depth: int) -> bool:
    """True when ``value`` holds only exact JSON types (no enums or other subclasses), so
    the C encoder writes exactly what this module would."""
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        return True
    if depth > 64:
        return False
    if kind is list:
        return all(_is_plain(item, depth + 1) for item in value)
    if kind is dict:
        return all(type(key) is str and _is_plain(item, depth + 1)
                   for key, item in value.items())
    return False


def _encode(value: Any, out: list[str], active: set[int]) -> None:
    kind = type(value)
    if value is None:
        out.append("null")
    elif kind is bool:
        out.append("true" if value else "false")
    elif isinstance(value, enum.Enum):
        out.append(_encode_string(value.name))
    elif isinstance(value, str):
        out.append(_encode_string(str(value)))
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise UnserializableResult(f"a non-finite float ({value!r}), which has no JSON form")
        out.append(float.__repr__(value))
    elif isinstance(value, Decimal):
        if not value.is_finite():
            raise UnserializableResult(f"Decimal {value}, which has no JSON form")
        out.append(str(value))
    elif isinstance(value, uuid.UUID | PurePath):
        out.append(_encode_string(str(value)))
    elif isinstance(value, _dt.date | _dt.time):  # datetime is a date
        out.append(_encode_string(value.isoformat()))
    else:
        _encode_container(value, out, active)


def _encode_container(value: Any, out: list[str], active: set[int]) -> None:
    marker = id(value)
    if marker in active:
        raise UnserializableResult(f"a circular reference through a {type(value).__name__}")
    active.add(marker)
    try:
        if isinstance(value, dict):
            _encode_object(value.items(), out, active)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            _encode_object(((f.name, getattr(value, f.name)) for f in dataclasses.fields(value)),
                           out, active)
        elif hasattr(value, "model_dump") and hasattr(type(value), "model_fields"):
            _encode(value.model_dump(mode="json"), out, active)
        elif isinstance(value, list | tuple):
            _encode_array(value, out, active)
        elif isinstance(value, set | frozenset):
            items = list(value)
            with contextlib.suppress(TypeError):
                items.sort()
            _encode_array(items, out, active)
        else:
            raise UnserializableResult(
                f"a value of type {type(value).__qualname__}, which cannot be serialised to JSON")
    finally:
        active.discard(marker)


def _encode_array(items: Any, out: list[str], active: set[int]) -> None:
    out.append("[")
    first = True
    for item in items:
        if not first:
            out.append(",")
        first = False
        _encode(item, out, active)
    out.append("]")


def _encode_object(pairs: Any, out: list[str], active: set[int]) -> None:
    out.append("{")
    first = True
    for key, item in pairs:
        if not first:
            out.append(",")
        first = False
        out.append(_encode_string(_key_text(key)))
        out.append(":")
        _encode(item, out, active)
    out.append("}")


def _key_text(key: Any) -> str:
    if isinstance(key, enum.Enum):
        return key.name
    if isinstance(key, str):
        return str(key)
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, int | float | Decimal | uuid.UUID):
        return str(key)
    if isinstance(key, _dt.date | _dt.time):
        return key.isoformat()
    raise UnserializableResult(
        f"a dict key of type {type(key).__qualname__}, which has no JSON form")
