"""What ``agentforge eval`` writes: the trace (a block per decision, a table per tool,
the totals), ``--json`` and the JUnit report. Plain text, exactly as written."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from agentforge_cli.cli.eval_costs import usage_json, usage_line
from agentforge_cli.cli.output import write
from agentforge_cli.models.eval.judge import AGREE, VERDICTS, Judgement
from agentforge_cli.models.eval.scores import (
    DecisionScore,
    Tally,
    TranscriptScore,
    tool_tallies,
    total,
)
from agentforge_cli.models.model import Model, Use

__all__ = ["Report", "print_json", "print_trace", "write_junit"]

_LONGEST_ARGUMENTS = 120


@dataclass(frozen=True, slots=True)
class Report:
    """A finished run, as the outputs show it."""

    model: Model
    transcripts: list[TranscriptScore]
    repeat: int
    threshold: float | None
    reference: str | None = None
    """``--compare-to``: the other tools, the same decisions asked with them, and what
    asking them took (part of the run's)."""
    compared: list[TranscriptScore] | None = None
    compared_use: Use | None = None

    def below_threshold(self) -> bool:
        return self.threshold is not None and total(self.transcripts).agreement < \
            self.threshold


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _LONGEST_ARGUMENTS else text[:_LONGEST_ARGUMENTS - 3] + "..."


def _percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def _decision_lines(score: DecisionScore) -> list[str]:
    decision = score.decision
    lines = [f"decision {decision.number}  {decision.where}"]
    lines += [f"  recorded  {call.name} {_short(call.arguments)}" for call in decision.recorded]
    counts = score.verdicts()
    outcome = f"  {score.agreed}/{len(score.judgements)} agree"
    for verdict in VERDICTS[1:]:
        if counts[verdict]:
            note = next(j.note for j in score.judgements if j.verdict == verdict)
            outcome += f" · {counts[verdict]} {verdict}: {_short(note)}"
    mark = "✓" if score.passed_all else "✗"
    scrubbed = _scrubbed(score)
    if scrubbed:  # compared without these: say so, agreeing or not
        lines.append(f"  scrubbed  {_short(', '.join(scrubbed))}")
    return [*lines, f"{outcome}  {mark}"]


def _scrubbed(score: DecisionScore) -> list[str]:
    """What was scrubbed from any reply's arguments, each place once."""
    return list(dict.fromkeys(place for j in score.judgements for place in j.scrubbed))


def _tool_table(tallies: dict[str, Tally], repeat: int) -> list[str]:
    width = max([len("tool"), *map(len, tallies)])
    lines = [f"{'tool':<{width}}  decisions  agreement  pass^{repeat:<3} pass@{repeat}"]
    for name, tally in tallies.items():
        lines.append(f"{name:<{width}}  {tally.decisions:>9}  {_percent(tally.agreement):>9}  "
                     f"{f'{tally.passed_all}/{tally.decisions}':<7} "
                     f"{tally.passed_any}/{tally.decisions}")
    return lines


def print_trace(report: Report) -> None:
    model = report.model
    for transcript in report.transcripts:
        times = "once" if report.repeat == 1 else f"{report.repeat} times"
        write(f"{transcript.path} ({transcript.format}) · {model.name}, each decision "
              f"asked {times}")
        for score in transcript.decisions:
            write("\n".join(_decision_lines(score)))
        write("")
    tally = total(report.transcripts)
    tallies = tool_tallies(report.transcripts)
    if tallies:
        write("\n".join(_tool_table(tallies, report.repeat)))
        write("")
    k = report.repeat
    write(f"agreement {tally.agreed}/{tally.replies} ({_percent(tally.agreement)}) · "
          f"pass^{k} {tally.passed_all}/{tally.decisions} · "
          f"pass@{k} {tally.passed_any}/{tally.decisions}")
    if report.reference is not None and report.compared is not None:
        from agentforge_cli.cli.eval_compare_outputs import compare_lines

        write("\n".join(compare_lines(report.reference, report.compared,
                                        report.transcripts)))
        if report.compared_use is not None:
            write(f"  with {report.reference}'s tools: "
                  f"{usage_line(model, report.compared_use)}")
    write(usage_line(model))
    if report.threshold is not None:
        below = report.below_threshold()
        write(f"{'✗' if below else '✓'} agreement {_percent(tally.agreement)} is "
              f"{'below' if below else 'at least'} --min-agreement "
              f"{_percent(report.threshold)}")


def _tally_json(tally: Tally) -> dict[str, Any]:
    return {"decisions": tally.decisions, "replies": tally.replies, "agreed": tally.agreed,
            "agreement": round(tally.agreement, 4), "pass_all": tally.passed_all,
            "pass_any": tally.passed_any,
            "verdicts": {verdict: tally.verdicts[verdict] for verdict in VERDICTS}}


def _decision_json(transcript: TranscriptScore, score: DecisionScore) -> dict[str, Any]:
    decision = score.decision
    return {
        "transcript": transcript.path, "decision": decision.number,
        "conversation": decision.conversation, "where": decision.where,
        "recorded": [{"name": c.name, "arguments": c.arguments} for c in decision.recorded],
        "agreed": score.agreed, "pass_all": score.passed_all, "pass_any": score.passed_any,
        "replies": [_reply_json(j) for j in score.judgements],
    }


def _reply_json(judgement: Judgement) -> dict[str, Any]:
    """One reply; ``scrubbed`` only when something was, as replay's calls have it."""
    reply = judgement.reply
    entry: dict[str, Any] = {
        "verdict": judgement.verdict, "note": judgement.note, "text": reply.text,
        "cached": reply.cached,
        "calls": [{"name": c.name, "arguments": c.arguments} for c in reply.calls]}
    if judgement.scrubbed:
        entry["scrubbed"] = list(judgement.scrubbed)
    return entry


def print_json(report: Report) -> None:
    model = report.model
    document = {
        "model": model.name, "repeat": report.repeat,
        "summary": {**_tally_json(total(report.transcripts)), **usage_json(model),
                    "min_agreement": report.threshold,
                    "passed": not report.below_threshold()},
        "tools": {name: _tally_json(t) for name, t in tool_tallies(report.transcripts).items()},
        "decisions": [_decision_json(t, s) for t in report.transcripts for s in t.decisions],
    }
    if report.reference is not None and report.compared is not None:
        from agentforge_cli.cli.eval_compare_outputs import compare_json

        compared = compare_json(report.reference, report.compared, report.transcripts,
                                _decision_json)
        if report.compared_use is not None:
            compared["usage"] = usage_json(model, report.compared_use)
        document["compare_to"] = compared
    write(json.dumps(document, ensure_ascii=False, indent=2))


def write_junit(path: Path, report: Report) -> None:
    """A suite per transcript, a testcase per decision; one fails unless every reply
    agrees (pass^k)."""
    from agentforge_cli.cli.replay_outputs import write_junit_text

    root = ElementTree.Element("testsuites", name=f"agentforge eval {report.model.name}")
    for transcript in report.transcripts:
        failures = sum(not s.passed_all for s in transcript.decisions)
        suite = ElementTree.SubElement(root, "testsuite", name=transcript.path,
                                       tests=str(len(transcript.decisions)),
                                       failures=str(failures))
        for score in transcript.decisions:
            names = ", ".join(call.name for call in score.decision.recorded)
            case = ElementTree.SubElement(suite, "testcase", classname=transcript.path,
                                          name=f"decision {score.decision.number}: {names}")
            if not score.passed_all:
                notes = [f"{j.verdict}: {j.note}" for j in score.judgements
                         if j.verdict != AGREE]
                failure = ElementTree.SubElement(
                    case, "failure", message=f"{score.agreed}/{len(score.judgements)} agree")
                scrubbed = _scrubbed(score)
                notes += [f"scrubbed: {', '.join(scrubbed)}"] if scrubbed else []
                failure.text = "\n".join(dict.fromkeys(notes))
    write_junit_text(str(path), ElementTree.tostring(root, encoding="unicode",
                                                     xml_declaration=True) + "\n")
