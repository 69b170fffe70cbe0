"""Atomic file replacement: write a temporary file beside the target, then ``os.replace``.

Readers of the target see either the old content or the new one, never a half-written
file: the new text goes to a temporary file in the same directory (same file system),
is flushed and fsynced, takes over the old file's permission bits and owner (the owner
when the process may give it: as root, or the same user) and then replaces it in one
``os.replace``. Given the :func:`file_stamp` of the file when it was read, the
replacement is refused if the file changed since (another program still writing to it).
On any failure the temporary file is removed and the target is left untouched. Missing
parent directories are created first (as pytest's ``--junitxml`` does), so every file the
commands write behaves alike. A symbolic link is written
through: its target gets the new content (the temporary file beside the target) and the
link stays a link.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["FileStamp", "atomic_writer", "file_stamp", "make_directory", "write_text_atomic"]

FileStamp = tuple[int, int, int, int]
"""A file's size, modification time (ns), device and inode: what changes when it is
written to or replaced."""


def file_stamp(path: str | os.PathLike[str]) -> FileStamp | None:
    """The :data:`FileStamp` of ``path`` (through links), or ``None`` when it is missing."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_dev, info.st_ino


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], *, encoding: str = "utf-8",
                  newline: str | None = "", unchanged: FileStamp | None = None
                  ) -> Iterator[IO[str]]:
    """Open a text stream whose content replaces ``path`` when the block exits cleanly.

    Args:
        path: The file to (re)write.
        encoding: Text encoding of the new content.
        newline: Passed to ``open``; the default ``""`` writes line endings untranslated.
        unchanged: The file's stamp when it was read: if it differs just before the
            replacement (the file grew, was rewritten or replaced), nothing is written.

    Yields:
        A writable text stream on the temporary file.

    Raises:
        OSError: The file cannot be written there (its ``strerror`` says why, e.g. which
            part of the path is a file, not a directory), or it changed since it was read
            (``errno.EBUSY``).
    """
    target = _through_links(Path(path))
    directory = target.parent if str(target.parent) else Path(".")
    make_directory(directory)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline=newline) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        _take_over(temp_name, target)
        if unchanged is not None:
            _refuse_if_changed(target, unchanged)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    _fsync_directory(directory)


def _through_links(path: Path) -> Path:
    """The file a symbolic link (or chain of them) points at; any other path as given."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def make_directory(directory: Path) -> None:
    """Create ``directory`` and its missing parents; a file in the way is named."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = next((p for p in (directory, *directory.parents)
                         if p.exists() and not p.is_dir()), directory)
        raise NotADirectoryError(errno.ENOTDIR, f"{blocking} is a file, not a directory",
                                 str(directory)) from None


def _take_over(temp_name: str, target: Path) -> None:
    """Give the temporary file the old file's permission bits and, where the process may,
    its owner and group (a new file: what the umask allows)."""
    try:
        old = os.stat(target)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        with contextlib.suppress(OSError):
            os.chmod(temp_name, 0o666 & ~umask)
        return
    if hasattr(os, "chown"):
        with contextlib.suppress(OSError):  # another user's file, not run as root
            os.chown(temp_name, old.st_uid, old.st_gid)
    with contextlib.suppress(OSError):  # after chown, which may clear set-id bits
        os.chmod(temp_name, old.st_mode & 0o7777)


def _refuse_if_changed(target: Path, unchanged: FileStamp) -> None:
    now = file_stamp(target)
    if now == unchanged:
        return
    if now is None:
        change = "it was removed"
    elif now[2:] != unchanged[2:]:
        change = "it was replaced by another file"
    elif now[0] != unchanged[0]:
        change = f"it went from {unchanged[0]} to {now[0]} bytes"
    else:
        change = "it was written to"
    raise OSError(errno.EBUSY, f"it changed while it was read ({change}): another program "
                  "may still be writing to it; nothing was written, run again once it is "
                  "done", str(target))


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable where the platform allows it (best effort)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_text_atomic(path: str | os.PathLike[str], text: str, *,
                      encoding: str = "utf-8", unchanged: FileStamp | None = None) -> None:
    """Replace ``path`` with ``text`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path, encoding=encoding, unchanged=unchanged) as stream:
        stream.write(text)
