"""Python values -> what the command line shows: JSON-safe data and short display text.

Standard library only. Secrets are masked by :mod:`agentforge_cli.core.masking`, after
:func:`json_safe` (so nested secret keys of a converted value are masked too).
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["display", "json_safe"]

_SHOWN_CHARS = 120


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
    from agentforge_cli.core.returns import UnserializableResult, result_text

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


def display(value: Any, *, limit: int = _SHOWN_CHARS) -> str:
    """Short one-line text of a JSON-safe value: strings quoted, the rest compact JSON."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
