"""``CallRecorder``: every call a :class:`~agentforge_cli.core.run.service.ToolService` runs,
written as an agentforge JSONL transcript that ``agentforge replay`` reads::

    {"type":"tool_call","id":"call_1","name":"add","arguments":"{\\"a\\":1,\\"b\\":2}"}
    {"type":"tool_result","id":"call_1","content":"3","is_error":false}

A call's two lines are written together once it has finished (threads and event loops
may call at once): each result follows its own call. Arguments are written as received,
with secrets masked (:func:`~agentforge_cli.core.observe.masking.mask_arguments`: the tool's
sensitive parameters and keys named like a secret); ``mask=False`` keeps them.

On the call path a finished call is only queued; every :data:`FLUSH_EVERY` calls, on
:meth:`CallRecorder.flush` and :meth:`CallRecorder.close`, the calls queued are written in
one write. A file that cannot be written fails no call: it is reported once on stderr.

The calls queued are not lost when the process ends: they are written when the recorder
is collected (a finalizer holding the recorder's :class:`_Sink`, not the recorder), at
normal exit (the finalizer's ``atexit`` call, for recorders still alive) and on SIGTERM
(:mod:`~agentforge_cli.core.run.sigterm`: before the process dies of it, or before the
application's own handler). A forked child writes none of its parent's queued calls (the
parent does) and writes each of its own at once, so that a child ending with
``os._exit`` (as ``multiprocessing`` children do) loses none. Only a process killed
outright (SIGKILL, a crash of the interpreter) loses the calls queued.

Given a directory (``ToolService(record=DIR)``, or ``AGENTFORGE_RECORD=DIR`` for every
service of a process), each process writes its own file there,
``agentforge-calls-<time>-<pid>.jsonl``, and starts a new one past
:data:`ROTATE_BYTES`.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import weakref
from collections import deque
from itertools import repeat, starmap
from json.encoder import encode_basestring_ascii as _string  # a str as ASCII JSON, in C
from operator import itemgetter
from pathlib import Path
from typing import IO

from agentforge_cli.core.define.spec import ToolExecutionRequest, ToolExecutionResult, ToolExecutor
from agentforge_cli.core.observe.declared_secrets import sensitive_keys
from agentforge_cli.core.observe.masking import mask_arguments, may_hold_secret
from agentforge_cli.core.run.sigterm import before_sigterm, hold, release

__all__ = ["ENV_VAR", "FLUSH_EVERY", "ROTATE_BYTES", "CallRecorder", "ToolRecording",
           "recorder_for"]

ENV_VAR = "AGENTFORGE_RECORD"
FLUSH_EVERY = 64
"""Calls queued before they are written (a forked child writes each at once)."""
ROTATE_BYTES = 64 * 1024 * 1024
"""Past this size a recorder writing into a directory starts a new file."""

_OPEN: weakref.WeakSet[_Sink] = weakref.WeakSet()
"""The recorders' sinks still in use: what SIGTERM and a fork go through."""
_SHARED: dict[str, CallRecorder | None] = {}
"""One recorder per directory named by the environment, shared by the process's services
(``None``: that directory cannot be written to)."""
_flush_at = FLUSH_EVERY
"""Calls queued before they are written: :data:`FLUSH_EVERY`, 1 in a forked child."""


_Call = tuple[frozenset[str], ToolExecutionRequest, str, ToolExecutionResult]
"""A call waiting to be written: its tool's sensitive keys, the request, its argument text
and the result."""


class CallRecorder:
    """Appends each call and its result to an agentforge JSONL transcript.

    Args:
        target: A file (appended to) or a directory (a file of this process's in it).
        mask: Mask secrets in the arguments (the default).
    """

    def __init__(self, target: str | os.PathLike[str], *, mask: bool = True) -> None:
        self.target = Path(target)
        sink = self._sink = _Sink(self.target, mask)
        self._pending = sink.pending  # what ToolRecording appends to
        # written and closed when this recorder is collected, or at exit
        self._finalizer = weakref.finalize(self, sink.close)
        _OPEN.add(sink)
        before_sigterm(_flush_all, chain=True)

    @property
    def mask(self) -> bool:
        """Whether secrets in the arguments are masked."""
        return self._sink.mask

    @property
    def path(self) -> Path:
        """The file written to (in a directory, the current one)."""
        return self._sink.path

    def for_tool(self, executor: ToolExecutor | None) -> ToolRecording:
        """What a service calls for one tool's calls: this recorder, with the tool's
        sensitive keys looked up once."""
        return ToolRecording(self, sensitive_keys(executor) if executor else frozenset())

    def record(self, request: ToolExecutionRequest, result: ToolExecutionResult,
               keys: frozenset[str] = frozenset()) -> None:
        """Write one finished call (``keys``: the tool's sensitive keys)."""
        ToolRecording(self, keys).record(request, result)

    def flush(self) -> None:
        """Write the calls waiting, in the order they finished, in one write."""
        self._sink.flush()

    def close(self) -> None:
        """Write the calls waiting and close the file; later calls are not recorded."""
        self._finalizer()

    def __repr__(self) -> str:
        return f"CallRecorder({str(self.path)!r})"


class _Sink:
    """A recorder's file, queue and lock: all that writing its calls needs. Its
    finalizer holds this, not the recorder, so an unused recorder is still collected."""

    def __init__(self, target: Path, mask: bool) -> None:
        self.target = target
        self.mask = mask
        self.directory = target.is_dir()
        self.lock = threading.Lock()
        self.pending: deque[_Call] = deque()
        self.serial = 0
        self.failed = False
        self.path = self._next_path()
        self.file: IO[bytes] | None = self.path.open("ab", buffering=0)
        self.written = 0
        self.reopen = False  # a forked child's file, opened at its first write

    def _next_path(self) -> Path:
        if not self.directory:
            return self.target
        self.serial += 1
        stamp = time.strftime("%Y%m%dT%H%M%S")
        suffix = "" if self.serial == 1 else f"-{self.serial}"
        return self.target / f"agentforge-calls-{stamp}-{os.getpid()}{suffix}.jsonl"

    def flush(self) -> None:
        held = hold()  # a SIGTERM now waits: its handler would wait for the lock
        try:
            with self.lock:
                self._write_pending()
        finally:
            if held:
                release()

    def close(self) -> None:
        held = hold()
        try:
            with self.lock:
                self._write_pending()
                self.reopen = False
                if self.file is not None:
                    self.file.close()
                    self.file = None
        finally:
            if held:
                release()

    def _write_pending(self) -> None:
        """(Holding the lock.) Calls that finish meanwhile wait for the next write."""
        pending, file = self.pending, self.file
        taken = list(starmap(pending.popleft, repeat((), len(pending))))  # a loop in C
        if not taken:
            return
        if file is None:
            if not self.reopen:  # closed: dropped
                return
            self.reopen = False
            try:
                file = self.file = self.path.open("ab", buffering=0)
            except OSError as exc:
                self._failed(exc)
                return
        data = _lines(taken, self.mask)
        try:
            view = memoryview(data)
            while view:  # a raw write may take part of it
                view = view[file.write(view) or 0:]
        except OSError as exc:  # a full disk must not fail the calls
            self._failed(exc)
            return
        if self.directory:
            self.written += len(data)
            if self.written > ROTATE_BYTES:
                file.close()
                self.path = self._next_path()
                self.file = self.path.open("ab", buffering=0)
                self.written = 0

    def _failed(self, exc: OSError) -> None:
        """Say once that the calls are not being recorded."""
        if not self.failed:
            self.failed = True
            print(f"agentforge: recording to {self.path} failed ({exc}); calls are not "
                  "being recorded", file=sys.stderr)

    def forked(self) -> None:
        """(In a forked child.) The calls queued are the parent's to write; a directory
        gets a file of this process's, opened at its first write."""
        self.lock = threading.Lock()  # another thread may have held it at the fork
        self.pending.clear()
        if self.directory and self.file is not None:
            self.file.close()  # this process's copy of the parent's descriptor
            self.file = None
            self.serial = 0
            self.path = self._next_path()
            self.written = 0
            self.reopen = True


def _flush_all() -> None:
    """Write every recorder's queued calls (on SIGTERM)."""
    for sink in list(_OPEN):
        sink.flush()


def _in_forked_child() -> None:
    global _flush_at
    _flush_at = 1  # a child may end with os._exit: nothing waits in memory
    for sink in list(_OPEN):
        sink.forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_in_forked_child)


class ToolRecording:
    """One tool's calls going to a :class:`CallRecorder`."""

    __slots__ = ("keys", "recorder")

    def __init__(self, recorder: CallRecorder, keys: frozenset[str]) -> None:
        self.recorder = recorder
        self.keys = keys

    def record(self, request: ToolExecutionRequest, result: ToolExecutionResult) -> None:
        """Queue one finished call; every :data:`FLUSH_EVERY` calls (every call in a forked
        child), write those queued.

        Request and result are immutable: the lines are spelled when written, a batch at
        a time (one append here, no lock: the queue keeps the order threads finish in).
        Calls after :meth:`CallRecorder.close` are dropped when their batch would be
        written.
        """
        recorder = self.recorder
        arguments = request.arguments
        if not isinstance(arguments, str):  # a value, which may still change
            from agentforge_cli.core.bind.jsonvalues import to_json_text

            arguments = to_json_text(arguments)
        pending = recorder._pending
        pending.append((self.keys, request, arguments, result))
        if len(pending) >= _flush_at:
            recorder.flush()


def _lines(calls: list[_Call], mask: bool) -> bytes:
    """Each call's two lines, in ASCII (other characters as JSON escapes, as ``json.dumps``
    writes them by default): the text is copied a byte per character and written as it
    is, and a lone surrogate is an escape like any other. Spelled out here, a batch at a
    time: ``json.dumps`` per line would cost more than the call itself."""
    # one secret check of all the arguments (no secret name or key spans a newline)
    masking = mask and may_hold_secret("\n".join(map(_ARGUMENTS, calls)),
                                       frozenset().union(*set(map(_KEYS, calls))))
    lines: list[str] = []
    add = lines.append
    for keys, request, arguments, (text, is_error) in calls:
        if masking and may_hold_secret(arguments, keys):
            arguments = mask_arguments(arguments, keys)
        call_id, name = request.id, request.name
        # what is not a str (a caller's mistake) is written as its str, not let fail a batch
        call_id = _string(call_id) if call_id.__class__ is str else _other_json(call_id)
        name = (_NAMES.get(name) or _name_json(name)) if name.__class__ is str else (
            _other_json(name))
        text = _string(text) if text.__class__ is str else _other_json(text)
        add(f'{{"type":"tool_call","id":{call_id},"name":{name},'
            f'"arguments":{_string(arguments)}}}\n'
            f'{{"type":"tool_result","id":{call_id},"content":{text},'
            f'"is_error":{"true" if is_error else "false"}}}\n')
    return "".join(lines).encode("ascii")


def _other_json(value: object) -> str:
    """``None`` as ``null``, anything else that is not a str as the JSON of its str."""
    return "null" if value is None else _string(str(value))


def _name_json(name: str) -> str:
    """A tool name as JSON, kept for the next call of that name."""
    if len(_NAMES) >= 4096:  # names a model made up: bounded
        _NAMES.clear()
    json_name = _NAMES[name] = _string(name)
    return json_name


_NAMES: dict[str, str] = {}
_KEYS = itemgetter(0)
_ARGUMENTS = itemgetter(2)


def recorder_for(record: str | os.PathLike[str] | CallRecorder | None) -> CallRecorder | None:
    """The recorder a service writes to: the one given, one for the file or directory
    given, else the process's own for ``AGENTFORGE_RECORD`` (a directory), else ``None``."""
    if isinstance(record, CallRecorder):
        return record
    if record is not None:
        return CallRecorder(record)
    directory = os.environ.get(ENV_VAR)
    if not directory:
        return None
    if directory not in _SHARED:
        _SHARED[directory] = _environment_recorder(directory)
    return _SHARED[directory]


def _environment_recorder(directory: str) -> CallRecorder | None:
    """The process's recorder for ``AGENTFORGE_RECORD``; ``None`` when nothing can be
    written there, said once on stderr: the program goes on without recording."""
    from agentforge_cli.core.observe.fileio import make_directory

    try:
        make_directory(Path(directory))
        return CallRecorder(directory)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        print(f"agentforge: warning: {ENV_VAR}={directory!r} cannot be written to "
              f"({reason}); calls are not being recorded. Set it to a directory you can "
              "write to, or unset it", file=sys.stderr)
        return None
