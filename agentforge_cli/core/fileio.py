"""Atomic file replacement: write a temporary file beside the target, then ``os.replace``.

Readers of the target see either the old content or the new one, never a half-written
file: the new text goes to a temporary file in the same directory (same file system),
is flushed and fsynced, takes over the old file's permission bits and then replaces it
in one ``os.replace``. On any failure the temporary file is removed and the target is
left untouched. Missing parent directories are created first (as pytest's ``--junitxml``
does), so every file the commands write behaves alike. A symbolic link is written
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

__all__ = ["atomic_writer", "make_directory", "write_text_atomic"]


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], *, encoding: str = "utf-8",
                  newline: str | None = "") -> Iterator[IO[str]]:
    """Open a text stream whose content replaces ``path`` when the block exits cleanly.

    Args:
        path: The file to (re)write.
        encoding: Text encoding of the new content.
        newline: Passed to ``open``; the default ``""`` writes line endings untranslated.

    Yields:
        A writable text stream on the temporary file.

    Raises:
        OSError: The file cannot be written there (its ``strerror`` says why, e.g. which
            part of the path is a file, not a directory).
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
        with contextlib.suppress(OSError):
            os.chmod(temp_name, _mode_for(target))
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


def _mode_for(target: Path) -> int:
    """The old file's permission bits, or what a new file gets under the umask."""
    try:
        return os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


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
                      encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path, encoding=encoding) as stream:
        stream.write(text)
