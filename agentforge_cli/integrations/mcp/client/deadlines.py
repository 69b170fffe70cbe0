"""A deadline whose clock stops while a person is waited for.

A session's start-up is bounded (``AGENTFORGE_MCP_TIMEOUT``, 10 s by default), and so is
a call; but an OAuth authorization waits for someone to approve it in a browser, which
is no measure of the server. :func:`deadline` bounds a block as ``anyio.fail_after``
does, and :func:`person_waited_for`, entered anywhere below it in the same context
(the SDK's HTTP transports run each request in its sender's context), stops its clock
until the person is done. Without a deadline around it, it does nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["deadline", "person_waited_for"]

_scope: ContextVar[Any] = ContextVar("agentforge_deadline", default=None)


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Raise ``TimeoutError`` once the block has run ``seconds`` (``None``: no limit) of
    its clock."""
    import anyio

    with anyio.CancelScope() as scope:
        if seconds is not None:
            scope.deadline = anyio.current_time() + seconds
        token = _scope.set(scope)
        try:
            yield
        finally:
            _scope.reset(token)
    if scope.cancelled_caught:
        raise TimeoutError


@contextmanager
def person_waited_for() -> Iterator[None]:
    """Stop the clock of the enclosing :func:`deadline` while the block runs."""
    import anyio

    scope = _scope.get()
    if scope is None or math.isinf(scope.deadline):
        yield
        return
    left = scope.deadline - anyio.current_time()
    scope.deadline = math.inf
    try:
        yield
    finally:
        scope.deadline = anyio.current_time() + left
