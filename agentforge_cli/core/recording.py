"""``CallRecorder``: every call a :class:`~agentforge_cli.core.service.ToolService` runs,
written as an agentforge JSONL transcript that ``agentforge replay`` reads::

    {"type":"tool_call","id":"call_1","name":"add","arguments":"{\\"a\\":1,\\"b\\":2}"}
    {"type":"tool_result","id":"call_1","content":"3","is_error":false}

A call's two lines are written together, in one write, once it has finished (threads and
event loops may call at once): each result follows its own call. Arguments are
written as received, with secrets masked (:func:`~agentforge_cli.core.masking.mask_arguments`:
the tool's sensitive parameters and keys named like a secret); ``mask=False`` keeps them.
Writes are buffered: the cost on the call path is one buffered write, and the buffer
reaches the OS when it fills, every :data:`FLUSH_EVERY` calls, when the recorder is
closed and at exit (a killed process loses at most the calls since the last of those).

Given a directory (``ToolService(record=DIR)``, or ``AGENTFORGE_RECORD=DIR`` for every
service of a process), each process writes its own file there,
``agentforge-calls-<time>-<pid>.jsonl``, and starts a new one past
:data:`ROTATE_BYTES`.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
import weakref
from json.encoder import encode_basestring as _string  # a str as JSON text, in C
from pathlib import Path
from typing import IO

from agentforge_cli.core.masking import (
    _MAY_NAME_A_SECRET,
    mask_arguments,
    may_hold_secret,
    sensitive_keys,
)
from agentforge_cli.core.spec import ToolExecutionRequest, ToolExecutionResult, ToolExecutor

__all__ = ["ENV_VAR", "FLUSH_EVERY", "ROTATE_BYTES", "CallRecorder", "ToolRecording",
           "recorder_for"]

ENV_VAR = "AGENTFORGE_RECORD"
FLUSH_EVERY = 64
"""Calls between two flushes of the file."""
ROTATE_BYTES = 64 * 1024 * 1024
"""Past this size a recorder writing into a directory starts a new file."""

_OPEN: weakref.WeakSet[CallRecorder] = weakref.WeakSet()
_SHARED: dict[str, CallRecorder] = {}
"""One recorder per directory named by the environment, shared by the process's services."""


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
        self._written = 0
        self._calls = FLUSH_EVERY  # calls left before a flush
        self._serial = 0
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
        self._file = path.open("ab")
        self._written = 0
        return path

    def for_tool(self, executor: ToolExecutor | None, name: str | None = None
                 ) -> ToolRecording:
        """What a service calls for one tool's calls: this recorder, with the tool's
        sensitive keys looked up once (``name``: the tool's, its JSON spelled once)."""
        return ToolRecording(self, sensitive_keys(executor) if executor else frozenset(), name)

    def record(self, request: ToolExecutionRequest, result: ToolExecutionResult,
               keys: frozenset[str] = frozenset()) -> None:
        """Write one finished call (``keys``: the tool's sensitive keys)."""
        ToolRecording(self, keys).record(request, result)

    def _wrote(self, file: IO[bytes], size: int) -> None:
        """After a write in a directory, or the last of :data:`FLUSH_EVERY` calls: a flush
        when that many were written, a new file past :data:`ROTATE_BYTES` (threads may
        race on the counts: a flush or a new file then comes a call late)."""
        if self._calls <= 0:
            self._calls = FLUSH_EVERY
            file.flush()
        if self._directory:
            self._written += size
            if self._written > ROTATE_BYTES:
                with self._lock:
                    if self._file is file:
                        file.close()
                        self.path = self._open()

    def flush(self) -> None:
        """Write what is buffered to the file."""
        with self._lock:
            if self._file is not None:
                self._file.flush()

    def close(self) -> None:
        """Flush and close the file; later calls are not recorded."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __repr__(self) -> str:
        return f"CallRecorder({str(self.path)!r})"


class ToolRecording:
    """One tool's calls going to a :class:`CallRecorder`."""

    __slots__ = ("_name_field", "keys", "name", "recorder")

    def __init__(self, recorder: CallRecorder, keys: frozenset[str],
                 name: str | None = None) -> None:
        self.recorder = recorder
        self.keys = keys
        self.name = name
        # what follows the id in the call's line, for calls of this very name
        self._name_field = None if name is None else _name_field(name)

    def record(self, request: ToolExecutionRequest, result: ToolExecutionResult) -> None:
        """Write one finished call: its two lines, in one write."""
        recorder = self.recorder
        arguments = request.arguments
        if not isinstance(arguments, str):
            from agentforge_cli.core.jsonvalues import to_json_text

            arguments = to_json_text(arguments)
        keys = self.keys
        if recorder.mask and (keys or _MAY_NAME_A_SECRET(arguments) is not None) and (
                may_hold_secret(arguments, keys)):
            arguments = mask_arguments(arguments, keys)
        call_id = (_NULL if request.id is None
                   else _string(request.id).encode("utf-8", "backslashreplace"))
        name_field = self._name_field
        if name_field is None or request.name != self.name:
            name_field = _name_field(request.name)
        # the two lines spelled out as bytes (a lone surrogate becomes its JSON escape):
        # json.dumps with options costs more than the call, and one str of the whole
        # would be widened to its widest character, then encoded whole
        data = b"".join((
            _CALL, call_id, name_field,
            _string(arguments).encode("utf-8", "backslashreplace"), _RESULT, call_id,
            _CONTENT, _string(result.text).encode("utf-8", "backslashreplace"),
            _IS_ERROR if result.is_error else _NOT_ERROR))
        # one write of both lines, which the buffered file keeps whole among threads; no
        # lock of ours on this path (the file takes its own)
        file = recorder._file
        while file is not None:
            try:
                file.write(data)
            except ValueError:  # closed meanwhile: by close(), or for a new file
                file = None if recorder._file is file else recorder._file
                continue
            recorder._calls -= 1
            if recorder._calls <= 0 or recorder._directory:
                recorder._wrote(file, len(data))
            return


_NULL = b"null"
_CALL = b'{"type":"tool_call","id":'
_RESULT = b'}\n{"type":"tool_result","id":'
_CONTENT = b',"content":'
_IS_ERROR = b',"is_error":true}\n'
_NOT_ERROR = b',"is_error":false}\n'


def _name_field(name: str) -> bytes:
    return b',"name":' + _string(name).encode("utf-8", "backslashreplace") + b',"arguments":'


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

