"""``Immutable``: the base of the value objects ``from agentforge_cli import tool, P`` loads.

They are hand-written slot classes rather than dataclasses because importing
``dataclasses`` costs about 20 ms, against a 5 ms budget for that import line. Each fills
its slots once in ``__init__`` (:meth:`Immutable._fill`); afterwards they are read-only,
and copy and pickle field by field.
"""

from __future__ import annotations

__all__ = ["Immutable"]


class Immutable:
    """Read-only slots, filled once by :meth:`_fill`; copyable and picklable."""

    __slots__ = ()

    def _fill(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __setstate__(self, state: tuple[None, dict[str, object]]) -> None:
        self._fill(**state[1])  # copy/pickle: object.__getstate__ gives (None, slots)
