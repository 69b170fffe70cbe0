"""The same decisions asked with two tool sets: which ones moved.

The *reference* (``--compare-to``: a snapshot, a git revision's module) is the before,
the target the after. A decision moved when its replies' verdicts differ between the
two; it *lost* agreement when fewer replies agree after, *gained* when more do, and
*changed* when as many agree but the others got other verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentforge_cli.models.eval.scores import DecisionScore, TranscriptScore

__all__ = ["CHANGED", "GAINED", "LOST", "Moved", "moved_decisions"]

LOST = "lost"
GAINED = "gained"
CHANGED = "changed"


@dataclass(frozen=True, slots=True)
class Moved:
    """One decision whose verdicts differ between the reference and the target."""

    transcript: str
    before: DecisionScore
    after: DecisionScore

    @property
    def direction(self) -> str:
        if self.after.agreed < self.before.agreed:
            return LOST
        return GAINED if self.after.agreed > self.before.agreed else CHANGED


def moved_decisions(before: list[TranscriptScore], after: list[TranscriptScore]
                    ) -> list[Moved]:
    """The decisions that moved, in the transcripts' order (both runs asked the same
    decisions of the same transcripts)."""
    moved: list[Moved] = []
    for old, new in zip(before, after, strict=True):
        for was, now in zip(old.decisions, new.decisions, strict=True):
            if was.verdicts() != now.verdicts():
                moved.append(Moved(new.path, was, now))
    return moved
