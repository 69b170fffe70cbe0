"""Python values -> what the command line shows: JSON-safe data and short display text.

Standard library only. Secrets are masked by :mod:`agentforge_cli.core.observe.masking`, after
:func:`json_safe` (so nested secret keys of a converted value are masked too).
"""

from __future__ import annotations

import json
from typing import Any

from agentforge_cli.core.bind.jsonvalues import json_safe

__all__ = ["display", "json_safe"]

_SHOWN_CHARS = 120


def display(value: Any, *, limit: int = _SHOWN_CHARS) -> str:
    """Short one-line text of a JSON-safe value: strings quoted, the rest compact JSON."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
