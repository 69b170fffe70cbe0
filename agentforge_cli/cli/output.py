"""Where output goes, and plain output for machine-readable results (no rich import).

Standard output is the product's output and nothing else. While a command runs
(:func:`stdout_to_stderr`, entered by ``guard.guarded``), ``sys.stdout`` points at
standard error, so whatever the user's code prints, at import or inside a tool, lands
there; the command writes its results to :func:`product_stream`, the standard output
the command started with.

``tools call`` prints exactly the text the model receives (escaped on a terminal) and
``--json`` prints JSON; both go through :func:`write`, which never fails on text the
stream cannot encode (a lone surrogate from a tool is written as a backslash escape).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TextIO

__all__ = ["product_stream", "stdout_to_stderr", "write"]

_products: list[TextIO] = []
"""The real standard output of each active :func:`stdout_to_stderr`, innermost last."""


def product_stream() -> TextIO:
    """The stream the product's output goes to: the real standard output."""
    return _products[-1] if _products else sys.stdout


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """While active, ``sys.stdout`` is ``sys.stderr`` and the product's output goes to
    the standard output of the moment it was entered; restored on the way out (errors
    and exits too). Python-level only: the file descriptors are left alone."""
    saved = sys.stdout
    _products.append(product_stream())
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout = saved
        _products.pop()


def write(text: str, *, stderr: bool = False, end: str = "\n") -> None:
    """Write ``text`` exactly, plus ``end``, bypassing rich (for machine output)."""
    stream = sys.stderr if stderr else product_stream()
    data = text + end
    try:
        stream.write(data)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(data.encode(encoding, "backslashreplace").decode(encoding))
    if end:
        stream.flush()
