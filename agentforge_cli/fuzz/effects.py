"""The effect guard: a fuzzed call may not change or reach the world outside the process.

Fuzzing calls the real tools hundreds of times with made-up arguments. The guard is an
audit hook (:func:`sys.addaudithook`), added once per process, the first time
:func:`guarding` is entered, and idle outside it. While a ``guarding`` block is open,
**every thread of the process** is held to the rules below: the tool runs on a worker
thread (the call's timeout), perhaps on an event loop's thread or on threads of its own,
and the engine makes one call at a time, so none of agentforge's own work runs meanwhile.
A thread the tool leaves running is not held to them once the call has returned.

* **files** — no ``open`` for writing, appending, creating or truncating, no rename,
  remove, ``mkdir``/``rmdir``, link, ``chmod``/``chown``/``utime``, ``shutil.rmtree`` or
  ``sqlite3.connect`` (SQLite opens its file without an ``open`` event) outside the system
  temporary directory (:func:`tempfile.gettempdir`, symbolic links resolved).
  ``os.devnull``, an in-memory or read-only (``mode=ro``) SQLite database, and the
  bytecode caches the import system writes into ``__pycache__`` are allowed;
* **network** — no ``connect``, ``sendto`` or ``sendmsg`` to an address that is not
  loopback (``127.0.0.0/8``, ``::1``, ``localhost``), and no name lookup but of
  ``localhost`` or of an address written in digits (a lookup sends the name to a DNS
  server). Unix sockets are local, like loopback;
* **processes** — no ``subprocess``, ``os.system``, ``os.exec*``, ``os.posix_spawn*``,
  ``os.spawn*``, ``os.fork``/``os.forkpty``, and no signal to another process.

An attempt is refused by raising :class:`~agentforge_cli.errors.BlockedEffectError` from
the hook, before the operation happens (no file is created, no packet sent), and recorded
in the block's list first, so that a tool catching the exception is still known to have
tried. What an audit hook cannot see is listed in docs/fuzz.md.

**Observe mode** (``tools audit``): a block opened with a ``sandbox`` directory allows file
changes under that directory instead of the temporary directory, and calls its
``observer`` with every judged event (allowed or refused) before it is refused, so that
what the tool did inside the sandbox is known as well as what it tried outside it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agentforge_cli.errors import BlockedEffectError

__all__ = ["LIFT", "MAX_ATTEMPTS", "Observer", "absolute_path", "guarding",
           "temporary_directory"]

MAX_ATTEMPTS = 20
"""Attempts kept per block (a tool retrying in a loop records no more)."""
LIFT = ("to let fuzzed calls do it, run against test doubles with --allow-effects "
        "(pytest: --agentforge-fuzz-allow-effects)")
"""What the message of a blocked effect says to do."""
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_FLAG_NAMES = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_EXCL", "O_TRUNC", "O_APPEND")
_IMPORT_SYSTEM = frozenset({"_frozen_importlib_external", "importlib._bootstrap_external"})
_SHOWN = 160
"""Characters of a command line shown in a blocked effect."""

_Judge = Callable[[tuple[Any, ...]], "str | None"]
Observer = Callable[[str, tuple[Any, ...], "str | None"], None]
"""Called with an audit event, its arguments and what the guard refuses (``None``:
allowed); it must not raise."""


@dataclass(frozen=True, kw_only=True, slots=True, eq=False)
class _Block:
    tool: str
    attempts: list[str] = field(default_factory=list)
    sandbox: str | None = None
    """The directory file changes are allowed under (resolved); ``None``: the temporary
    directory."""
    observer: Observer | None = None


_blocks: list[_Block] = []  # the open blocks, innermost last; the hook is idle when empty
_blocks_lock = threading.Lock()
_install_lock = threading.Lock()
_temp: list[str] = []  # the resolved temporary directory, once installed


def temporary_directory() -> str:
    """The directory fuzzed calls may write under (resolved; installs the guard)."""
    _install()
    return _temp[0]


@contextlib.contextmanager
def guarding(tool: str, *, sandbox: str | None = None,
             observer: Observer | None = None) -> Iterator[list[str]]:
    """Hold the whole process to the rules (module docstring) while the block runs.

    Args:
        tool: The tool called, named by a refusal.
        sandbox: Allow file changes under this directory only (observe mode), instead of
            under the temporary directory.
        observer: Called with each judged event, allowed or refused (observe mode).

    Yields:
        The list each attempt is appended to (``open('/etc/x', 'w')``, ``connect to
        192.0.2.1:80``, ``start a process: ls``), at most :data:`MAX_ATTEMPTS` of them.
    """
    _install()
    block = _Block(tool=tool, observer=observer,
                   sandbox=None if sandbox is None else os.path.realpath(sandbox))
    with _blocks_lock:
        _blocks.append(block)
    try:
        yield block.attempts
    finally:
        with _blocks_lock:
            _blocks.remove(block)


def _install() -> None:
    with _install_lock:
        if _temp:
            return
        # gettempdir() probes candidate directories by writing in them the first time:
        # done here, outside any block, and cached by tempfile from then on.
        _temp.append(os.path.realpath(tempfile.gettempdir()))
        sys.addaudithook(_hook)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _blocks:
        return
    judge = _JUDGES.get(event)
    if judge is None:
        return
    try:
        effect = judge(args)
    except Exception:  # arguments shaped as this Python's docs do not say: refuse, naming them
        effect = f"{event} {args!r:.{_SHOWN}}"
    blocks = list(_blocks)
    observers = [block.observer for block in blocks if block.observer is not None]
    if (effect is None and not observers) or (
            event in _FILE_EVENTS and _writing_bytecode(args)):
        return
    if not blocks:  # the block closed meanwhile
        return
    for observer in observers:
        observer(event, args, effect)
    if effect is None:
        return
    for block in blocks:
        if len(block.attempts) < MAX_ATTEMPTS:
            block.attempts.append(effect)
    raise BlockedEffectError(_refusal(blocks[-1], effect), tool=blocks[-1].tool,
                             effect=effect)


def _refusal(block: _Block, effect: str) -> str:
    """The message of a refused effect: what was tried, the rules, what to do."""
    if block.sandbox is None:
        return (f'fuzzing blocked an effect of tool "{block.tool}": {effect} (a fuzzed call '
                f"may write files only under {_temp[0]}, connect only to loopback addresses "
                f"and start no process); {LIFT}")
    return (f'the audit blocked an effect of tool "{block.tool}": {effect} (an audited '
            f"call may write files only under its sandbox {block.sandbox}, which is its "
            "working directory, HOME and TMPDIR, connect only to loopback addresses and "
            "start no process); the attempt is reported as the tool's behaviour")


def _root() -> str:
    """Where file changes are allowed: the innermost block's sandbox, else the temporary
    directory."""
    try:
        sandbox = _blocks[-1].sandbox
    except IndexError:
        sandbox = None
    return sandbox or _temp[0]


def _writing_bytecode(args: tuple[Any, ...]) -> bool:
    """The import system writes a module's cached bytecode (``__pycache__``)."""
    caller = sys._getframe(2)  # 0: here, 1: the hook, 2: what raised the event
    return (caller.f_globals.get("__name__") in _IMPORT_SYSTEM
            and any(isinstance(arg, str) and "__pycache__" in arg for arg in args))


# ---------------------------------------------------------------- files


def _name(path: Any) -> str:
    try:
        return os.fsdecode(path)
    except TypeError:
        return repr(path)


def absolute_path(path: Any, dir_fd: Any = None) -> str | None:
    """``path`` made absolute (against ``dir_fd`` when given, else the working directory),
    or ``None`` when it is not a path or its directory cannot be told."""
    try:
        name = os.fsdecode(path)
    except TypeError:
        return None
    if os.path.isabs(name):
        return name
    if isinstance(dir_fd, int) and dir_fd >= 0:
        base = _descriptor_path(dir_fd)
        return None if base is None else os.path.join(base, name)
    return os.path.abspath(name)


def _in_temp(path: Any, dir_fd: Any = None) -> bool:
    """``path`` (relative to ``dir_fd`` when given) is inside the temporary directory (the
    sandbox, in observe mode), or is ``os.devnull`` or an open descriptor (what it is was
    decided when it was opened)."""
    if isinstance(path, int):
        return True
    name = absolute_path(path, dir_fd)
    if name is None:
        return False
    if name == os.devnull:
        return True
    real, root = os.path.realpath(name), _root()
    return os.path.commonpath([real, root]) == root


def _shown(path: Any, dir_fd: Any = None) -> str:
    """``path`` as a blocked effect names it: absolute, quoted."""
    return repr(absolute_path(path, dir_fd) or _name(path))


def _descriptor_path(fd: int) -> str | None:
    """The path of the directory open as ``fd`` (``shutil.rmtree`` removes by it)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
    try:
        import fcntl

        request = getattr(fcntl, "F_GETPATH", None)  # macOS
        if request is None:
            return None
        answer = fcntl.fcntl(fd, request, bytes(1024))
        return os.fsdecode(answer.split(b"\0", 1)[0])
    except (ImportError, OSError):
        return None


def _open(args: tuple[Any, ...]) -> str | None:
    path, mode, flags = args
    if not flags & _WRITE_FLAGS or _in_temp(path):
        return None
    if isinstance(mode, str):
        return f"open({_shown(path)}, {mode!r})"
    names = "|".join(n for n in _FLAG_NAMES if flags & getattr(os, n, 0)) or str(flags)
    return f"os.open({_shown(path)}, {names})"


def _one_path(verb: str, dir_fd_at: int | None = None) -> _Judge:
    """A judge of an event whose first argument is the path changed."""

    def judge(args: tuple[Any, ...]) -> str | None:
        dir_fd = args[dir_fd_at] if dir_fd_at is not None and len(args) > dir_fd_at else None
        if _in_temp(args[0], dir_fd):
            return None
        return f"{verb}({_shown(args[0], dir_fd)})"

    return judge


def _two_paths(verb: str) -> _Judge:
    """A judge of ``rename``/``link``: both paths must be inside (a hard link from the
    temporary directory to a file elsewhere writes that file)."""

    def judge(args: tuple[Any, ...]) -> str | None:
        source, target, source_fd, target_fd = args
        if _in_temp(source, source_fd) and _in_temp(target, target_fd):
            return None
        return f"{verb}({_shown(source, source_fd)}, {_shown(target, target_fd)})"

    return judge


def _symlink(args: tuple[Any, ...]) -> str | None:
    source, target, dir_fd = args
    if _in_temp(target, dir_fd):
        return None
    return f"symlink({_name(source)!r}, {_shown(target, dir_fd)})"


def _sqlite(args: tuple[Any, ...]) -> str | None:
    database = _name(args[0])
    if not database.startswith("file:"):
        if database in ("", ":memory:") or _in_temp(database):
            return None
        return f"sqlite3.connect({_shown(database)})"
    path, _, query = database[5:].partition("?")  # a URI: read-only or in memory is fine
    if set(query.split("&")) & {"mode=ro", "mode=memory"} or path in ("", ":memory:") or (
            _in_temp(path)):
        return None
    return f"sqlite3.connect({database!r})"


# ---------------------------------------------------------------- network


def _host(value: Any) -> str:
    return value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)


def _local_host(host: str) -> bool:
    """A loopback (or this host's unspecified) address, or the name ``localhost``."""
    name = host.lower().rstrip(".")
    if name in ("", "localhost") or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name.partition("%")[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _numeric(host: str) -> bool:
    try:
        ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return False
    return True


def _socket(verb: str) -> _Judge:
    """A judge of ``socket.connect``/``sendto``/``sendmsg``: ``(socket, address)``."""

    def judge(args: tuple[Any, ...]) -> str | None:
        sock, address = args
        family = getattr(sock, "family", None)
        if address is None or family == getattr(socket, "AF_UNIX", object()):
            return None  # a connected socket's send, or a local socket
        if family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
            host = _host(address[0])
            if _local_host(host):
                return None
            port = address[1] if len(address) > 1 else "?"
            return f"{verb} {f'[{host}]' if ':' in host else host}:{port}"
        return f"{verb} {address!r}"

    return judge


def _lookup(args: tuple[Any, ...]) -> str | None:
    """``getaddrinfo``/``gethostbyname``: a name other than localhost goes to DNS."""
    if args[0] is None:
        return None
    host = _host(args[0])
    if _local_host(host) or _numeric(host):
        return None
    return f"look up the host name {host!r}"


def _reverse_lookup(args: tuple[Any, ...]) -> str | None:
    """``gethostbyaddr(ip)``, ``getnameinfo((host, port))``."""
    target = args[0][0] if isinstance(args[0], tuple) and args[0] else args[0]
    host = _host(target)
    return None if _local_host(host) else f"look up the name of {host!r}"


# ---------------------------------------------------------------- processes


def _command(value: Any) -> str:
    if isinstance(value, list | tuple):
        text = " ".join(_name(part) for part in value)
    else:
        text = _name(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 1] + "…"


def _popen(args: tuple[Any, ...]) -> str:
    executable, argv = args[0], args[1]
    return f"start a process: {_command(argv if argv else executable)}"


def _signal(target: str) -> _Judge:
    def judge(args: tuple[Any, ...]) -> str | None:
        pid, sig = args
        if sig == 0 or (target == "process" and pid == os.getpid()):
            return None  # signal 0 only asks whether the process exists
        return f"send signal {sig} to {target} {pid}"

    return judge


_FILE_EVENTS = frozenset({"open", "os.mkdir", "os.rename", "os.remove"})
"""The events the import system raises when it writes a bytecode cache."""

_JUDGES: dict[str, _Judge] = {
    "open": _open,
    "os.mkdir": _one_path("mkdir", 2),
    "os.rmdir": _one_path("rmdir", 1),
    "os.remove": _one_path("remove", 1),
    "os.rename": _two_paths("rename"),
    "os.link": _two_paths("link"),
    "os.symlink": _symlink,
    "os.truncate": _one_path("truncate"),
    "os.chmod": _one_path("chmod", 2),
    "os.chown": _one_path("chown", 3),
    "os.utime": _one_path("utime", 3),
    "os.chflags": _one_path("chflags"),
    "os.lchflags": _one_path("lchflags"),
    "os.setxattr": _one_path("setxattr"),
    "os.removexattr": _one_path("removexattr"),
    "shutil.rmtree": _one_path("rmtree", 1),
    "sqlite3.connect": _sqlite,
    "socket.connect": _socket("connect to"),
    "socket.sendto": _socket("send to"),
    "socket.sendmsg": _socket("send to"),
    "socket.getaddrinfo": _lookup,
    "socket.gethostbyname": _lookup,
    "socket.gethostbyname_ex": _lookup,
    "socket.gethostbyaddr": _reverse_lookup,
    "socket.getnameinfo": _reverse_lookup,
    "socket.sethostname": lambda args: f"set the host name to {_host(args[0])!r}",
    "subprocess.Popen": _popen,
    "os.system": lambda args: f"start a process: {_command(args[0])}",
    "os.exec": lambda args: f"run a program in place of the process: {_command(args[1])}",
    "os.posix_spawn": lambda args: f"start a process: {_command(args[1])}",
    "os.spawn": lambda args: f"start a process: {_command(args[2])}",
    "os.fork": lambda args: "fork the process",
    "os.forkpty": lambda args: "fork the process",
    "os.startfile": lambda args: f"open {_shown(args[0])} with its application",
    "os.kill": _signal("process"),
    "os.killpg": _signal("process group"),
}
"""Audit event -> what the call tried (``None``: allowed)."""
