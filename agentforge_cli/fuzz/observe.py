"""What an audited call did: the effect guard's events (observe mode) as :class:`Effect`\\ s.

Each event the guard judges during a call comes here (:class:`Observation` is the
guard's observer) and becomes an effect of one :class:`EffectKind`, described as a person
reads it (``wrote <sandbox>/note.txt``, ``tried to connect to 192.0.2.1:80 (blocked)``).
The guard calls the observer *before* the operation, so whether a file existed (an
overwrite, a deletion) is still known; an attempt that then failed is counted all the same.
Reads are not effects.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from agentforge_cli.fuzz.effects import absolute_path

__all__ = ["SANDBOX", "Effect", "EffectKind", "Observation"]

SANDBOX = "<sandbox>"
"""How a path inside the call's sandbox directory is shown."""
_KEPT = 50
"""Effects kept per call."""


class EffectKind(StrEnum):
    """What an effect changes or reaches; the value is what the JSON report writes."""

    WRITE = "write"
    """A file or directory created or written (appending included)."""
    OVERWRITE = "overwrite"
    """An existing file truncated, rewritten or replaced."""
    DELETE = "delete"
    """A file or directory removed (or its removal tried)."""
    PROCESS = "process"
    """A process started or signalled."""
    NETWORK = "network"
    """A connection to (or a name lookup of) a host other than loopback."""
    LOOPBACK = "loopback"
    """A connection to this machine (loopback): allowed, and not open-world."""


CHANGES = frozenset({EffectKind.WRITE, EffectKind.OVERWRITE, EffectKind.DELETE,
                     EffectKind.PROCESS})
"""The kinds a read-only tool shows none of."""
DESTRUCTIVE = frozenset({EffectKind.OVERWRITE, EffectKind.DELETE})


@dataclass(frozen=True, kw_only=True, slots=True)
class Effect:
    """One thing a call did or tried."""

    kind: EffectKind
    text: str
    """``wrote <sandbox>/note.txt``, ``tried to start a process: ls (blocked)``."""
    blocked: bool = False
    """The guard refused it (outside the sandbox, another host, a process)."""


_DELETES = {"os.remove": ("deleted", "delete"),
            "os.rmdir": ("deleted the directory", "delete the directory"),
            "shutil.rmtree": ("deleted the tree", "delete the tree")}
_ATTRIBUTES = {"os.chmod", "os.chown", "os.utime", "os.chflags", "os.lchflags",
               "os.setxattr", "os.removexattr"}


@dataclass(kw_only=True, slots=True)
class Observation:
    """The effects of one call, in order: the guard's observer (call the instance)."""

    sandbox: str
    """The call's sandbox directory (resolved)."""
    effects: list[Effect] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, event: str, args: tuple[Any, ...], refused: str | None) -> None:
        try:
            effect = self._effect(event, args, refused)
        except Exception:  # arguments shaped otherwise: the guard has judged them anyway
            effect = None if refused is None else Effect(
                kind=EffectKind.WRITE, text=f"tried to {refused} (blocked)", blocked=True)
        if effect is None:
            return
        with self._lock:
            if len(self.effects) < _KEPT and effect not in self.effects:
                self.effects.append(effect)

    def _effect(self, event: str, args: tuple[Any, ...], refused: str | None
                ) -> Effect | None:
        if refused is not None:
            tried = EffectKind.NETWORK if event.startswith("socket.") else (
                self._describe(event, args)[0] or EffectKind.PROCESS)
            return Effect(kind=tried, text=f"tried to {refused} (blocked)", blocked=True)
        kind, text = self._describe(event, args)
        return None if kind is None or not text else Effect(kind=kind, text=text)

    def _describe(self, event: str, args: tuple[Any, ...]) -> tuple[EffectKind | None, str]:
        if event == "open":
            return self._opened(*args)
        if event in _DELETES:
            dir_fd = args[1] if len(args) > 1 else None
            place = self._place(args[0], dir_fd)
            done, verb = _DELETES[event]
            return EffectKind.DELETE, (f"{done} {place}" if self._exists(args[0], dir_fd)
                                       else f"tried to {verb} {place} (missing)")
        if event == "os.rename":
            source, target, source_fd, target_fd = args
            replaced = self._exists(target, target_fd)
            return (EffectKind.OVERWRITE if replaced else EffectKind.WRITE,
                    f"{'replaced' if replaced else 'created'} {self._place(target, target_fd)}"
                    f" by renaming {self._place(source, source_fd)}")
        if event == "os.truncate":
            return EffectKind.OVERWRITE, f"truncated {self._place(args[0])}"
        if event == "os.mkdir":
            return EffectKind.WRITE, f"created the directory {self._place(args[0], args[2])}"
        if event in ("os.link", "os.symlink"):
            return EffectKind.WRITE, f"created the link {self._place(args[1])}"
        if event in _ATTRIBUTES:
            return EffectKind.WRITE, f"changed the attributes of {self._place(args[0])}"
        if event == "sqlite3.connect":
            return EffectKind.WRITE, f"opened the SQLite database {self._place(args[0])}"
        if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
            return self._loopback(args[1])
        return None, ""  # a lookup of localhost, signal 0: allowed, and no effect

    def _opened(self, path: Any, mode: Any, flags: int) -> tuple[EffectKind | None, str]:
        if isinstance(path, int) or not flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT
                                                 | os.O_TRUNC | os.O_APPEND):
            return None, ""
        place = self._place(path)
        if flags & os.O_APPEND:
            return EffectKind.WRITE, f"appended to {place}"
        if self._exists(path):
            if flags & os.O_TRUNC:
                return EffectKind.OVERWRITE, f"overwrote {place}"
            return EffectKind.WRITE, f"wrote into {place}"
        return EffectKind.WRITE, f"wrote {place}"

    @staticmethod
    def _loopback(address: Any) -> tuple[EffectKind | None, str]:
        """An allowed connection: to loopback (an IP address), or local (Unix: none)."""
        if not isinstance(address, tuple) or len(address) < 2:
            return None, ""  # a connected socket's send, or a Unix socket
        return EffectKind.LOOPBACK, f"connected to {address[0]}:{address[1]}"

    def _exists(self, path: Any, dir_fd: Any = None) -> bool:
        name = absolute_path(path, dir_fd)
        return name is not None and os.path.lexists(name)

    def _place(self, path: Any, dir_fd: Any = None) -> str:
        """``path`` absolute, ``<sandbox>/...`` inside the sandbox."""
        name = absolute_path(path, dir_fd)
        if name is None:
            return repr(path)
        real = os.path.realpath(name)
        if os.path.commonpath([real, self.sandbox]) == self.sandbox:
            inside = os.path.relpath(real, self.sandbox)
            return SANDBOX if inside == "." else f"{SANDBOX}/{inside}"
        return name
