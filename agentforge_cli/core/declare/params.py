"""``P(...)``: per-parameter metadata used inside ``Annotated[...]``.

``Annotated[int, P("how many", minimum=1)]`` describes a parameter (or a field of a nested
dataclass/TypedDict/NamedTuple). This module imports nothing heavy: it is loaded by
``from agentforge_cli import tool, P``.
"""

from __future__ import annotations

from agentforge_cli.core.declare.immutable import Immutable

__all__ = ["FixedWidth", "P"]


class P(Immutable):
    """Metadata for one tool parameter: ``Annotated[int, P("how many", minimum=1)]``.

    ``P("text")`` sets the description; everything else is a keyword. Instances are
    immutable and hashable, so they can live inside ``Annotated``.
    """

    __slots__ = ("description", "maximum", "minimum", "name", "required", "sensitive")

    description: str | None
    """What the parameter means; shown to the model."""
    name: str | None
    """The JSON key the model uses, when it differs from the Python name."""
    required: bool | None
    """``True`` forces the parameter into ``required`` even when it has a default or an
    ``Optional`` type; ``False`` keeps it out; ``None`` decides from the signature."""
    minimum: int | float | None
    """Inclusive lower bound for numbers, shown in the schema and enforced."""
    maximum: int | float | None
    """Inclusive upper bound for numbers, shown in the schema and enforced."""
    sensitive: bool
    """Mask the value as ``***`` in every output (logs, explanations, traces, reports)."""

    def __init__(
        self,
        description: str | None = None,
        *,
        name: str | None = None,
        required: bool | None = None,
        minimum: int | float | None = None,
        maximum: int | float | None = None,
        sensitive: bool = False,
    ) -> None:
        if description is not None and not isinstance(description, str):
            raise TypeError(f"P(description=...) must be a string, got {description!r}")
        if name is not None and (not isinstance(name, str) or not name):
            raise TypeError(f"P(name=...) must be a non-empty string, got {name!r}")
        for label, bound in (("minimum", minimum), ("maximum", maximum)):
            if bound is not None and (
                isinstance(bound, bool) or not isinstance(bound, int | float)
            ):
                raise TypeError(f"P({label}=...) must be a number, got {bound!r}")
        self._fill(description=description, name=name, required=required, minimum=minimum,
                   maximum=maximum, sensitive=bool(sensitive))

    def _key(self) -> tuple[object, ...]:
        return (self.description, self.name, self.required, self.minimum, self.maximum,
                self.sensitive)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, P) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        fields = ("description", "name", "required", "minimum", "maximum", "sensitive")
        defaults = (None, None, None, None, None, False)
        shown = [
            f"{f}={getattr(self, f)!r}"
            for f, d in zip(fields, defaults, strict=True)
            if getattr(self, f) != d
        ]
        return f"P({', '.join(shown)})"


class FixedWidth(Immutable):
    """Marks a fixed-width numeric alias (``Int32``, ``Float32``) inside ``Annotated``."""

    __slots__ = ("label", "maximum", "minimum")

    label: str
    """The alias name used in error messages (``out of range for Int32``)."""
    minimum: int | float
    """Smallest accepted value."""
    maximum: int | float
    """Largest accepted value."""

    def __init__(self, label: str, minimum: int | float, maximum: int | float) -> None:
        self._fill(label=label, minimum=minimum, maximum=maximum)

    def __repr__(self) -> str:
        return f"FixedWidth({self.label!r}, {self.minimum!r}, {self.maximum!r})"
