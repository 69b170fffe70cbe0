"""What the ``P(...)`` marks of one ``Annotated`` parameter say, merged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentforge_cli.core.declare.params import P

__all__ = ["ParamInfo", "param_metadata"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ParamInfo:
    """Every ``P(...)`` of one ``Annotated`` merged (later ones win per field)."""

    description: str | None = None
    """What the parameter means."""
    name: str | None = None
    """The JSON key, when it differs from the Python name."""
    required: bool | None = None
    """Forced in or out of ``required``; ``None`` decides from the signature."""
    minimum: int | float | None = None
    """Inclusive lower bound."""
    maximum: int | float | None = None
    """Inclusive upper bound."""
    sensitive: bool = False
    """Any of the ``P`` marks the value sensitive."""


_NO_INFO = ParamInfo()


def param_metadata(metadata: tuple[Any, ...]) -> ParamInfo:
    """Merge every ``P(...)`` found in ``Annotated`` metadata (later ones win per field)."""
    merged: dict[str, Any] = {}
    for item in metadata:
        if isinstance(item, P):
            for field in ("description", "name", "required", "minimum", "maximum"):
                value = getattr(item, field)
                if value is not None:
                    merged[field] = value
            if item.sensitive:
                merged["sensitive"] = True
    return ParamInfo(**merged) if merged else _NO_INFO
