"""What eval counts: per decision, per tool, in total.

For a decision asked k times: its *agreement* is the share of the k replies that agree
with the recording; *pass^k* holds when all k agree (the model does it every time),
*pass@k* when at least one does. A tool's rows count the decisions whose recording
called it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from agentforge_cli.models.eval.decisions import Decision
from agentforge_cli.models.eval.judge import AGREE, FLIP, Judgement

__all__ = ["DecisionScore", "Tally", "TranscriptScore", "tool_tallies", "total"]


@dataclass(frozen=True, slots=True)
class DecisionScore:
    """One decision and the verdicts of its replies."""

    decision: Decision
    judgements: tuple[Judgement, ...]

    @property
    def agreed(self) -> int:
        return sum(j.verdict == AGREE for j in self.judgements)

    @property
    def passed_all(self) -> bool:
        """pass^k."""
        return bool(self.judgements) and self.agreed == len(self.judgements)

    @property
    def passed_any(self) -> bool:
        """pass@k."""
        return self.agreed > 0

    def verdicts(self) -> Counter[str]:
        return Counter(j.verdict for j in self.judgements)

    def flips(self) -> list[str]:
        """The flips' notes, each once, in order."""
        return list(dict.fromkeys(j.note for j in self.judgements if j.verdict == FLIP))


@dataclass(slots=True)
class Tally:
    """Counts over decisions: replies, agreeing replies, pass^k and pass@k."""

    decisions: int = 0
    replies: int = 0
    agreed: int = 0
    passed_all: int = 0
    passed_any: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)

    def add(self, score: DecisionScore) -> None:
        self.decisions += 1
        self.replies += len(score.judgements)
        self.agreed += score.agreed
        self.passed_all += score.passed_all
        self.passed_any += score.passed_any
        self.verdicts.update(score.verdicts())

    @property
    def agreement(self) -> float:
        """Agreeing replies over replies (1.0 with none)."""
        return self.agreed / self.replies if self.replies else 1.0


@dataclass(slots=True)
class TranscriptScore:
    """One transcript's decisions, scored."""

    path: str
    format: str
    decisions: list[DecisionScore] = field(default_factory=list)


def tool_tallies(transcripts: list[TranscriptScore]) -> dict[str, Tally]:
    """A tally per recorded tool, by name, in order of first appearance."""
    tallies: dict[str, Tally] = {}
    for transcript in transcripts:
        for score in transcript.decisions:
            for name in dict.fromkeys(call.name for call in score.decision.recorded):
                tallies.setdefault(name, Tally()).add(score)
    return tallies


def total(transcripts: list[TranscriptScore]) -> Tally:
    tally = Tally()
    for transcript in transcripts:
        for score in transcript.decisions:
            tally.add(score)
    return tally

