"""The directory an audited tool runs in: its working directory, ``HOME`` and ``TMPDIR``.

:func:`sandboxed` creates a fresh directory, makes it the process's working directory,
``HOME``, ``TMPDIR`` (and :mod:`tempfile`'s directory) for the duration, then restores
them and removes the directory. The process is changed as a whole: the audit makes one
call at a time. :func:`state` is what the directory holds, to compare two calls by.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator

from agentforge_cli.fuzz.effects import temporary_directory

__all__ = ["sandboxed", "state"]

_VARIABLES = ("HOME", "TMPDIR")


@contextlib.contextmanager
def sandboxed() -> Iterator[str]:
    """A fresh directory as working directory, ``HOME`` and ``TMPDIR``; yields its resolved
    path."""
    temporary_directory()  # the guard learns the real temporary directory first
    directory = os.path.realpath(tempfile.mkdtemp(prefix="agentforge-audit-"))
    before = {name: os.environ.get(name) for name in _VARIABLES}
    cwd, temp = os.getcwd(), tempfile.tempdir
    try:
        os.chdir(directory)
        os.environ.update(dict.fromkeys(_VARIABLES, directory))
        tempfile.tempdir = directory
        yield directory
    finally:
        os.chdir(cwd)
        tempfile.tempdir = temp
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(directory, ignore_errors=True)


def state(directory: str) -> dict[str, str]:
    """Each path under ``directory`` (relative) -> ``dir``, ``link:TARGET`` or the SHA-256
    of the file's content."""
    found: dict[str, str] = {}
    for root, folders, files in os.walk(directory):
        for name in folders:
            found[os.path.relpath(os.path.join(root, name), directory)] = "dir"
        for name in files:
            path = os.path.join(root, name)
            key = os.path.relpath(path, directory)
            if os.path.islink(path):
                found[key] = f"link:{os.readlink(path)}"
                continue
            try:
                with open(path, "rb") as handle:
                    found[key] = hashlib.sha256(handle.read()).hexdigest()
            except OSError as exc:
                found[key] = f"unreadable: {exc.strerror}"
    return found
