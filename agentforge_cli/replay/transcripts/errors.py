"""The errors of reading a transcript: the file, the :class:`Place` at fault and why.

Part of the one exception tree drawn in :mod:`agentforge_cli.errors`; defined here, beside
the places they carry.
"""

from __future__ import annotations

from agentforge_cli.errors import AgentForgeError
from agentforge_cli.replay.transcripts.place import Place

__all__ = ["TranscriptError", "TranscriptFormatError"]


class TranscriptError(AgentForgeError):
    """A transcript cannot be read: names the file, the line or message, and the reason.

    Attributes:
        path: The transcript file.
        where: The :class:`~agentforge_cli.replay.transcripts.place.Place` at fault
            (``line 3``, ``messages[2]``), the empty place when it is the whole file.
        reason: What is wrong, e.g. ``invalid JSON: Expecting ',' delimiter (column 12)``.
    """

    def __init__(self, path: object, where: Place, reason: str) -> None:
        self.path = str(path)
        self.where = where
        self.reason = reason
        location = f"{self.path}, {where}" if where else self.path
        super().__init__(f"{location}: {reason}")


class TranscriptFormatError(TranscriptError):
    """No registered transcript format reads the file: ``where`` names the first record
    that none of them claims, ``reason`` the formats tried."""
