"""Writing a cassette off the asking thread.

A cassette opened for a run (:func:`~agentforge_cli.models.model.open_model`) is written
*behind* the requests: keeping a response only tells a writer thread, which rewrites the
file (atomically, as every write of a cassette is) with every response kept so far. It
writes once the next request's body has been sent (:meth:`WriteBehind.sending`), or
:data:`LINGER` seconds after the response when none follows: the asking thread is then
waiting for its model with the GIL released, where writing at once would hold the GIL
while that thread builds and sends the next request (measured: up to a switch interval,
5 ms, of waiting for it on each request). A write that finds several new responses
writes them at once.

Nothing paid for is left in memory: the cassette is flushed on the asking thread when it
is closed (the model closed, which eval and chat do however they end, a
``KeyboardInterrupt`` included), when another cassette of the same file is opened in the
process, at normal exit, and on SIGTERM (:mod:`~agentforge_cli.core.run.sigterm`). Only
a process killed outright loses the responses of its last write. A write that fails is
kept and raised, as :class:`~agentforge_cli.models.errors.ModelError`, by the next
:meth:`WriteBehind.check` (each model reply) or at the close.
"""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from pathlib import Path
from typing import Protocol

from agentforge_cli.core.run.sigterm import before_sigterm

__all__ = ["LINGER", "WriteBehind", "flush_open"]

LINGER = 0.02
"""Seconds a response waits for the next request to go out before it is written anyway."""


class _Flushable(Protocol):
    path: Path

    def flush(self) -> None: ...


_OPEN: weakref.WeakSet[_Flushable] = weakref.WeakSet()
"""The write-behind cassettes not yet closed: what exit, SIGTERM and a reopening flush."""
_hooked = threading.Lock()
_hooks_set = False


def flush_open(path: Path | None = None) -> None:
    """Write what the open write-behind cassettes (of ``path``, or all) still hold."""
    where = None if path is None else os.path.abspath(path)
    for cassette in list(_OPEN):
        if where is None or os.path.abspath(cassette.path) == where:
            try:
                cassette.flush()
            except OSError:
                if path is not None:  # a reader of the file must know it is incomplete
                    raise


def _set_hooks() -> None:
    global _hooks_set
    with _hooked:
        if not _hooks_set:
            _hooks_set = True
            atexit.register(flush_open)
            before_sigterm(flush_open, chain=True)


class WriteBehind:
    """The writer thread of one cassette, started at its first response."""

    def __init__(self, cassette: _Flushable) -> None:
        self._cassette = cassette
        self._state = threading.Condition(threading.Lock())
        self._sent = 0
        """Requests gone out."""
        self._unwritten_since: int | None = None
        """``_sent`` when the first response not yet written was kept (``None``: none)."""
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.failure: OSError | None = None
        _OPEN.add(cassette)
        _set_hooks()

    def kept(self) -> bool:
        """A response was kept: have it written soon. ``False`` once closed: the caller
        writes it."""
        with self._state:
            if self._stopping:
                return False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name=f"cassette writer {self._cassette.path}")
                self._thread.start()
            if self._unwritten_since is None:
                self._unwritten_since = self._sent
                self._state.notify()
        return True

    def sending(self) -> None:
        """A request was sent: its thread is about to wait for the answer."""
        with self._state:
            self._sent += 1
            if self._unwritten_since is not None:
                self._state.notify()

    def _run(self) -> None:
        while True:
            with self._state:
                self._state.wait_for(lambda: self._unwritten_since is not None
                                     or self._stopping)
                if self._unwritten_since is not None:
                    self._state.wait_for(self._written_soon, timeout=LINGER)
                self._unwritten_since = None
                stopping = self._stopping
            self._flush()
            if stopping:
                return

    def _written_soon(self) -> bool:
        """(Holding the state.) A request went out since the response, or the close."""
        since = self._unwritten_since
        return self._stopping or since is None or self._sent > since

    def _flush(self) -> None:
        try:
            self._cassette.flush()
        except OSError as exc:
            self.failure = self.failure or exc

    def check(self) -> None:
        """Raise the failure of a write, if one failed.

        Raises:
            ModelError: The cassette could not be written.
        """
        if self.failure is not None:
            from agentforge_cli.models.errors import ModelError

            raise ModelError(f"cannot write the model cassette {self._cassette.path}: "
                             f"{self.failure}")

    def close(self) -> None:
        """Stop the thread and write what it had not, on this thread.

        Raises:
            ModelError: The cassette could not be written.
        """
        with self._state:
            self._stopping = True
            thread = self._thread
            self._state.notify()
        if thread is not None:
            thread.join()
        self._flush()
        _OPEN.discard(self._cassette)
        self.check()
