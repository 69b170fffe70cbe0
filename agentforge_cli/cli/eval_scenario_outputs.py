"""What ``agentforge eval --scenarios`` writes: the trace (a block per scenario: the calls
made and what the tools answered, the expectations missed), ``--json`` and the JUnit
report; the exit code follows ``--min-agreement``, the share of runs passed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from agentforge_cli.cli.errors import EXIT_FAILED, EXIT_OK
from agentforge_cli.cli.eval_costs import usage_json, usage_line
from agentforge_cli.cli.output import write
from agentforge_cli.models.model import Model
from agentforge_cli.models.scenarios.loop import ScenarioRun
from agentforge_cli.models.scenarios.run import ScenarioScore

__all__ = ["ScenarioReport", "report"]

_LONGEST = 120


@dataclass(frozen=True, slots=True)
class ScenarioReport:
    model: Model
    scores: list[ScenarioScore]
    repeat: int
    threshold: float | None
    file: str

    @property
    def runs(self) -> int:
        return sum(len(score.runs) for score in self.scores)

    @property
    def passed_runs(self) -> int:
        return sum(score.passed_runs for score in self.scores)

    @property
    def share(self) -> float:
        return self.passed_runs / self.runs if self.runs else 1.0

    def below_threshold(self) -> bool:
        return self.threshold is not None and self.share < self.threshold


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _LONGEST else text[:_LONGEST - 3] + "..."


def _percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def _run_lines(run: ScenarioRun, number: int | None) -> list[str]:
    head = "  " if number is None else f"  run {number}: "
    lines = [f"{head}{run.steps} step{'' if run.steps == 1 else 's'}, {len(run.calls)} "
             f"call{'' if len(run.calls) == 1 else 's'}"]
    for done in run.calls:
        mark = "✗" if done.is_error else "→"
        lines.append(f"    [act] {done.call.name} {_short(done.call.arguments)} {mark} "
                     f"{_short(done.result)}")
    if run.text and not run.out_of_steps:
        lines.append(f"    [final] {_short(run.text)}")
    lines += [f"    ✗ {failure}" for failure in run.failures]
    return lines


def _print_trace(result: ScenarioReport) -> None:
    model = result.model
    times = "once" if result.repeat == 1 else f"{result.repeat} times"
    write(f"{result.file} · {model.name}, each scenario run {times}")
    for score in result.scores:
        lines = [f"scenario {score.scenario.name!r}  {score.passed_runs}/{len(score.runs)} "
                 f"passed  {'✓' if score.passed else '✗'}"]
        for number, run in enumerate(score.runs, 1):
            lines += _run_lines(run, number if len(score.runs) > 1 else None)
        write("\n".join(lines))
    passed = sum(score.passed for score in result.scores)
    write("")
    write(f"runs passed {result.passed_runs}/{result.runs} ({_percent(result.share)}) · "
          f"scenarios passed every time {passed}/{len(result.scores)}")
    write(usage_line(model))
    if result.threshold is not None:
        below = result.below_threshold()
        write(f"{'✗' if below else '✓'} {_percent(result.share)} of runs passed, "
              f"{'below' if below else 'at least'} --min-agreement "
              f"{_percent(result.threshold)}")


def _run_json(run: ScenarioRun) -> dict[str, Any]:
    return {"passed": run.passed, "steps": run.steps, "out_of_steps": run.out_of_steps,
            "failures": run.failures, "text": run.text,
            "calls": [{"step": e.step, "name": e.call.name, "arguments": e.call.arguments,
                       "result": e.result, "is_error": e.is_error} for e in run.calls]}


def _print_json(result: ScenarioReport) -> None:
    model = result.model
    document = {
        "model": model.name, "repeat": result.repeat, "scenarios_file": result.file,
        "summary": {"scenarios": len(result.scores),
                    "passed": sum(score.passed for score in result.scores),
                    "runs": result.runs, "runs_passed": result.passed_runs,
                    "agreement": round(result.share, 4),
                    **usage_json(model),
                    "min_agreement": result.threshold,
                    "below_min_agreement": result.below_threshold()},
        "scenarios": [{"name": score.scenario.name, "prompt": score.scenario.prompt,
                       "passed": score.passed, "runs_passed": score.passed_runs,
                       "runs": [_run_json(run) for run in score.runs]}
                      for score in result.scores],
    }
    write(json.dumps(document, ensure_ascii=False, indent=2))


def _write_junit(path: Path, result: ScenarioReport) -> None:
    """A testcase per scenario, failed unless every run passed."""
    from agentforge_cli.cli.replay_outputs import write_junit_text

    root = ElementTree.Element("testsuites", name=f"agentforge eval {result.model.name}")
    suite = ElementTree.SubElement(root, "testsuite", name=result.file,
                                   tests=str(len(result.scores)),
                                   failures=str(sum(not s.passed for s in result.scores)))
    for score in result.scores:
        case = ElementTree.SubElement(suite, "testcase", classname=result.file,
                                      name=score.scenario.name)
        if not score.passed:
            failure = ElementTree.SubElement(
                case, "failure", message=f"{score.passed_runs}/{len(score.runs)} passed")
            failure.text = "\n".join(dict.fromkeys(
                text for run in score.runs for text in run.failures))
    write_junit_text(str(path), ElementTree.tostring(root, encoding="unicode",
                                                     xml_declaration=True) + "\n")


def report(result: ScenarioReport, json_output: bool, junit: Path | None) -> int:
    """Write the outputs asked for; the exit code."""
    if junit is not None:
        _write_junit(junit, result)
    if json_output:
        _print_json(result)
    else:
        _print_trace(result)
    return EXIT_FAILED if result.below_threshold() else EXIT_OK
