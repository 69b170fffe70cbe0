"""``CallRecorder``: every call a :class:`~agentforge_cli.core.service.ToolService` runs,
written as an agentforge JSONL transcript that ``agentforge replay`` reads::

    {"type":"tool_call","id":"call_1","name":"add","arguments":"{\\"a\\":1,\\"b\\":2}"}
    {"type":"tool_result","id":"call_1","content":"3","is_error":false}

A call's two lines are written together once it has finished (threads and event loops
may call at once): each result follows its own call. Arguments are written as received,
with secrets masked (:func:`~agentforge_cli.core.masking.mask_arguments`: the tool's
sensitive parameters and keys named like a secret); ``mask=False`` keeps them.

On the call path a finished call is only queued; every :data:`FLUSH_EVERY` calls, on
:meth:`CallRecorder.flush`, on :meth:`CallRecorder.close` and at exit, the calls queued are
written in one write (a killed process loses at most the calls queued). A file that
cannot be written fails no call: it is reported once on stderr.

Given a directory (``ToolService(record=DIR)``, or ``AGENTFORGE_RECORD=DIR`` for every
service of a process), each process writes its own file there,
``agentforge-calls-<time>-<pid>.jsonl``, and starts a new one past
:data:`ROTATE_BYTES`.
"""

from __future__ import annotations

import atexit
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

from agentforge_cli.core.masking import mask_arguments, may_hold_secret, sensitive_keys
from agentforge_cli.core.spec import ToolExecutionRequest, ToolExecutionResult, ToolExecutor

__all__ = ["ENV_VAR", "FLUSH_EVERY", "ROTATE_BYTES", "CallRecorder", "ToolRecording",
           "recorder_for"]

ENV_VAR = "AGENTFORGE_RECORD"
FLUSH_EVERY = 64
"""Calls queued before they are written."""
ROTATE_BYTES = 64 * 1024 * 1024
"""Past this size a recorder writing into a directory starts a new file."""

_OPEN: weakref.WeakSet[CallRecorder] = weakref.WeakSet()
_SHARED: dict[str, CallRecorder] = {}
"""One recorder per directory named by the environment, shared by the process's services."""


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
        self.mask = mask
        self._directory = self.target.is_dir()
        self._lock = threading.Lock()
        self._file: IO[bytes] | None = None
        self._pending: deque[_Call] = deque()
        self._written = 0
        self._serial = 0
        self._failed = False
        self.path = self._open()
        _OPEN.add(self)

    def _open(self) -> Path:
        if self._directory:
            self._serial += 1
            stamp = time.strftime("%Y%m%dT%H%M%S")
            suffix = "" if self._serial == 1 else f"-{self._serial}"
            path = self.target / f"agentforge-calls-{stamp}-{os.getpid()}{suffix}.jsonl"
        else:
            path = self.target
        self._file = path.open("ab", buffering=0)
        self._written = 0
        return path

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
        with self._lock:
            self._write_pending()

    def _write_pending(self) -> None:
        """(Holding the lock.) Calls that finish meanwhile wait for the next write."""
        pending, file = self._pending, self._file
        taken = list(starmap(pending.popleft, repeat((), len(pending))))  # a loop in C
        if file is None or not taken:
            return
        data = _lines(taken, self.mask)
        try:
            view = memoryview(data)
            while view:  # a raw write may take part of it
                view = view[file.write(view) or 0:]
        except OSError as exc:  # a full disk must not fail the calls: say so once
            if not self._failed:
                self._failed = True
                print(f"agentforge: recording to {self.path} failed ({exc}); calls are not "
                      "being recorded", file=sys.stderr)
            return
        if self._directory:
            self._written += len(data)
            if self._written > ROTATE_BYTES:
                file.close()
                self.path = self._open()

    def close(self) -> None:
        """Write the calls waiting and close the file; later calls are not recorded."""
        with self._lock:
            self._write_pending()
            if self._file is not None:
                self._file.close()
                self._file = None

    def __repr__(self) -> str:
        return f"CallRecorder({str(self.path)!r})"


class ToolRecording:
    """One tool's calls going to a :class:`CallRecorder`."""

    __slots__ = ("keys", "recorder")

    def __init__(self, recorder: CallRecorder, keys: frozenset[str]) -> None:
        self.recorder = recorder
        self.keys = keys

    def record(self, request: ToolExecutionRequest, result: ToolExecutionResult) -> None:
        """Queue one finished call; every :data:`FLUSH_EVERY` calls, write those queued.

        Request and result are immutable: the lines are spelled when written, a batch at
        a time (one append here, no lock: the queue keeps the order threads finish in).
        Calls after :meth:`CallRecorder.close` are dropped when their batch would be
        written.
        """
        recorder = self.recorder
        arguments = request.arguments
        if not isinstance(arguments, str):  # a value, which may still change
            from agentforge_cli.core.jsonvalues import to_json_text

            arguments = to_json_text(arguments)
        pending = recorder._pending
        pending.append((self.keys, request, arguments, result))
        if len(pending) >= FLUSH_EVERY:
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
    shared = _SHARED.get(directory)
    if shared is None:
        Path(directory).mkdir(parents=True, exist_ok=True)
        shared = _SHARED[directory] = CallRecorder(directory)
    return shared


@atexit.register
def _close_all() -> None:
    for recorder in list(_OPEN):
        recorder.close()

