"""What the items of agentforge's pytest routes (replay, fuzz) share: their own failure is
one message without a traceback, and the report names the route."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

__all__ = ["RouteItem"]


class RouteItem(pytest.Item):
    """An item of one route: ``ROUTE`` names it (``agentforge replay``), ``FAILURE`` is the
    exception its checks raise; :attr:`subject` is what the report names."""

    ROUTE: ClassVar[str]
    FAILURE: ClassVar[type[Exception]]

    @property
    def subject(self) -> str:
        """What the item checks, as the report names it."""
        return self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, self.FAILURE):
            return f"{self.ROUTE}: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.ROUTE}: {self.subject}"
