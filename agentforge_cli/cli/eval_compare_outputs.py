"""What ``agentforge eval --compare-to REF`` adds to the outputs: the decisions that moved
between REF's tools (before) and the target's (after), in the trace and in ``--json``."""

from __future__ import annotations

from typing import Any

from agentforge_cli.models.eval.compare import GAINED, LOST, Moved, moved_decisions
from agentforge_cli.models.eval.judge import AGREE, VERDICTS
from agentforge_cli.models.eval.scores import DecisionScore, TranscriptScore, total

__all__ = ["compare_json", "compare_lines"]

_SAID = {LOST: "agreed less", GAINED: "agrees more", "changed": "other verdicts"}


def _outcome(score: DecisionScore) -> str:
    counts = score.verdicts()
    text = f"{score.agreed}/{len(score.judgements)} agree"
    for verdict in VERDICTS[1:]:
        if counts[verdict]:
            note = next(j.note for j in score.judgements if j.verdict == verdict)
            text += f", {counts[verdict]} {verdict}: {note}"
    return text


def compare_lines(reference: str, before: list[TranscriptScore],
                  after: list[TranscriptScore]) -> list[str]:
    moved = moved_decisions(before, after)
    was, now = total(before), total(after)
    lines = [f"compared with {reference}: agreement {was.agreed}/{was.replies} before, "
             f"{now.agreed}/{now.replies} now · {len(moved)} decision"
             f"{'' if len(moved) == 1 else 's'} moved"]
    for item in moved:
        decision = item.after.decision
        lines += [f"  {item.transcript} decision {decision.number}  {decision.where}  "
                  f"{_SAID[item.direction]}",
                  f"    before  {_outcome(item.before)}",
                  f"    now     {_outcome(item.after)}"]
    return lines


def _side(score: DecisionScore) -> dict[str, Any]:
    return {"agreed": score.agreed, "replies": len(score.judgements),
            "verdicts": {v: n for v, n in score.verdicts().items()},
            "notes": list(dict.fromkeys(j.note for j in score.judgements
                                        if j.verdict != AGREE))}


def _moved_json(item: Moved) -> dict[str, Any]:
    decision = item.after.decision
    return {"transcript": item.transcript, "decision": decision.number,
            "where": decision.where, "direction": item.direction,
            "before": _side(item.before), "after": _side(item.after)}


def compare_json(reference: str, before: list[TranscriptScore],
                 after: list[TranscriptScore], decision_json: Any) -> dict[str, Any]:
    """``decision_json(transcript, score)`` writes one decision as the main report does."""
    was = total(before)
    return {"reference": reference,
            "summary": {"decisions": was.decisions, "replies": was.replies,
                        "agreed": was.agreed, "agreement": round(was.agreement, 4)},
            "decisions": [decision_json(t, s) for t in before for s in t.decisions],
            "moved": [_moved_json(item) for item in moved_decisions(before, after)]}
