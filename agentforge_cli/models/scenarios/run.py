"""Every scenario, ``repeat`` times each, at most ``concurrency`` runs at a time; each
run's steps one after the other. Results keep the file's order."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from agentforge_cli.models.model import Model
from agentforge_cli.models.scenarios.cases import Scenario
from agentforge_cli.models.scenarios.expect import unmet
from agentforge_cli.models.scenarios.loop import ScenarioRun, run_scenario

__all__ = ["ScenarioScore", "run_scenarios"]


@dataclass(frozen=True, slots=True)
class ScenarioScore:
    """One scenario and its runs; it passes (pass^k) when every run does."""

    scenario: Scenario
    runs: tuple[ScenarioRun, ...]

    @property
    def passed_runs(self) -> int:
        return sum(run.passed for run in self.runs)

    @property
    def passed(self) -> bool:
        return self.passed_runs == len(self.runs)


def _judged(scenario: Scenario, run: ScenarioRun) -> ScenarioRun:
    run.failures = unmet(scenario.expect, [(e.call.name, e.call.arguments)
                                           for e in run.calls])
    if run.out_of_steps:
        run.failures.append(f"still calling tools after {scenario.max_steps} steps "
                            "(max_steps)")
    return run


def run_scenarios(scenarios: Sequence[Scenario], service: Any, model: Model, *,
                  repeat: int = 1, concurrency: int = 4) -> list[ScenarioScore]:
    """Run and judge every scenario.

    Raises:
        ModelError: A request failed (the runs not yet started are cancelled).
    """
    tools = model.export(service.specifications)
    lock = threading.Lock()

    def one(scenario: Scenario) -> ScenarioRun:
        return _judged(scenario, run_scenario(scenario, service, model, tools, lock))

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = [[pool.submit(one, scenario) for _ in range(repeat)]
                   for scenario in scenarios]
        try:
            return [ScenarioScore(scenario, tuple(f.result() for f in runs))
                    for scenario, runs in zip(scenarios, futures, strict=True)]
        except BaseException:
            for runs in futures:
                for future in runs:
                    future.cancel()
            raise
