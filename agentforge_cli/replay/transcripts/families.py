"""Recording families replay knows by sight but does not read (yet): a file of one is
refused naming the family, never as a malformed file of another format nor by its keys
alone.

:func:`unread_family` is asked about a record no format claims (detection's refusal) and
about a record a format failed to read (a file whose first record reads in one format,
its second in none). Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from agentforge_cli.replay.transcripts.errors import TranscriptError

__all__ = ["naming", "refusal", "unread_family"]


_FAMILIES: tuple[tuple[str, Callable[[dict[str, Any]], bool]], ...] = ()
"""Each family's name (``a Gemini CLI session``) and how one of its records is told; none
now: every family known by sight is read (Gemini CLI sessions by ``formats/gemini_cli``)."""


def unread_family(data: Any) -> str | None:
    """The family a record belongs to, when it is one replay knows and does not read
    (``a Gemini CLI session``), else ``None``."""
    if not isinstance(data, dict):
        return None
    return next((name for name, seen in _FAMILIES if seen(data)), None)


def refusal(family: str) -> str:
    """What a refusal of a file of ``family`` says."""
    return f"this is {family}, which replay does not read yet"


@contextmanager
def naming(family: str) -> Iterator[None]:
    """Read a record of ``family`` (``a Gemini CLI session``): a record that does not read
    is refused with the family named after the reason, whichever reader found it (the
    Anthropic reader inside a Claude Code line, the cassette reader inside a nock file)."""
    try:
        yield
    except TranscriptError as exc:
        if type(exc) is not TranscriptError or family in exc.reason:
            raise
        raise TranscriptError(exc.path, exc.where, f"{exc.reason} (in {family})") from None
