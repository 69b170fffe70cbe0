"""``tools check --budget`` / ``--results``: measure the tool set and its recorded results.

The measuring is :mod:`agentforge_cli.schema.budget` (definitions) and
:mod:`agentforge_cli.replay.result_sizes` (results); this module runs them for ``check``,
turns the budgets of ``[tool.agentforge.budget]`` into findings, and prints the report
(plain aligned text on stdout, before the findings table) or its ``--json`` member.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentforge_cli.cli.errors import UsageError

__all__ = ["BudgetRun", "grown_budgets", "run_budget"]


@dataclass(frozen=True, kw_only=True, slots=True)
class BudgetRun:
    """What ``--budget`` / ``--results`` measured and found."""

    findings: list[Any]
    """The budgets exceeded (not yet silenced)."""
    document: dict[str, Any]
    """The ``budget`` member of ``--json``."""
    lines: list[str]
    """The text report."""

    def show(self) -> None:
        """Print the report (each part ends with a blank line)."""
        from agentforge_cli.cli import render

        render.write("\n".join(self.lines))


def run_budget(specs: Sequence[Any], providers: Sequence[str], results: Sequence[str], *,
               definitions: bool) -> BudgetRun:
    """Measure the definitions (``definitions``: for each of ``providers``) and the
    recorded results of the transcripts ``results``, against the configured budgets.

    Raises:
        UsageError: ``--budget`` with no provider selected.
        TargetConfigError: ``[tool.agentforge.budget]`` is malformed.
        TranscriptError: A transcript cannot be read.
    """
    from agentforge_cli.integrations.targets.loading import find_budget
    from agentforge_cli.schema.budget import (
        budget_findings,
        budget_to_json,
        measure,
        result_findings,
    )

    if definitions and not providers:
        raise UsageError("--budget measures what a provider is sent, and no provider is "
                         "selected", hint="add --provider NAME (e.g. --provider openai), or "
                                          "set providers under [tool.agentforge]")
    limits = find_budget()
    budgets = measure(specs, providers) if definitions else []
    sizes = None
    if results:
        from agentforge_cli.replay.result_sizes import result_sizes

        sizes = result_sizes(results)
    findings = [*budget_findings(budgets, limits),
                *(result_findings(sizes, limits) if sizes is not None else ())]
    lines = [line for budget in budgets for line in _definition_lines(budget, limits)]
    if sizes is not None:
        lines.extend(_result_lines(sizes, limits))
    return BudgetRun(findings=findings, document=budget_to_json(budgets, sizes, limits),
                     lines=lines)


def _definition_lines(budget: Any, limits: Any) -> list[str]:
    """``tokens for openai (tiktoken o200k_base)``, then a row a tool and one for all."""
    rows = [[tool.name, f"{tool.chars:,}", f"{tool.tokens:,}",
             _over(tool.tokens, limits.tool_tokens)] for tool in budget.tools]
    every = "the 1 tool" if len(budget.tools) == 1 else f"all {len(budget.tools)} tools"
    rows.append([every, f"{budget.chars:,}", f"{budget.tokens:,}",
                 _over(budget.tokens, limits.set_tokens)])
    title = f"tool definitions sent to {budget.provider}: tokens by {budget.tokenizer}"
    return [title, *_table(["tool", "chars", "tokens", "budget"], rows), ""]


def _result_lines(sizes: Any, limits: Any) -> list[str]:
    """A row per tool: results, p50/p95/max characters and tokens, limits passed."""
    from agentforge_cli.schema.budget import RESULT_LIMITS

    rows = []
    for tool, stats in sizes.items():
        passed = [name for name, limit in RESULT_LIMITS if stats.tokens[2] > limit]
        if limits.result_tokens is not None and stats.tokens[2] > limits.result_tokens:
            passed.insert(0, f"over {limits.result_tokens:,}")
        rows.append([tool, str(stats.count), *(f"{n:,}" for n in stats.chars),
                     *(f"{n:,}" for n in stats.tokens), ", ".join(passed) or "ok"])
    shown = ", ".join(f"{name} above {limit:,}" for name, limit in RESULT_LIMITS)
    title = f"recorded results: tokens by estimate (characters/4)\n  per result: {shown}"
    header = ["tool", "results", "chars p50", "p95", "max", "tokens p50", "p95", "max",
              "limits"]
    return [title, *_table(header, rows), ""]


def _over(count: int, limit: int | None) -> str:
    if limit is None:
        return "-"
    return f"over {limit:,}" if count > limit else f"within {limit:,}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Aligned columns, two spaces indented: the first left-aligned, numbers right, the
    last left."""
    from agentforge_cli.cli.render import safe_text

    rows = [[safe_text(row[0], one_line=True), *row[1:]] for row in rows]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0]),
                 *(cell.rjust(width) for cell, width in zip(row[1:-1], widths[1:-1],
                                                            strict=True)),
                 row[-1]]
        lines.append(("  " + "  ".join(cells)).rstrip())
    return lines


def grown_budgets(old: str, new: str) -> list[Any]:
    """``tools diff OLD NEW``: what grew past a budget of ``[tool.agentforge.budget]``
    between the two snapshot files, for the configured providers (``openai`` when none
    is configured); nothing when no budget is set.

    Raises:
        SnapshotError: A file cannot be read.
        TargetConfigError: ``[tool.agentforge]`` is malformed.
    """
    from agentforge_cli.integrations.targets.loading import find_budget, find_providers
    from agentforge_cli.schema.budget import budget_growth
    from agentforge_cli.schema.providers import provider_name
    from agentforge_cli.schema.snapshots import load_snapshot

    limits = find_budget()
    if limits.tool_tokens is None and limits.set_tokens is None:
        return []
    configured, _ = find_providers()
    try:
        providers = [provider_name(name) for name in configured] or ["openai"]
    except ValueError as exc:
        raise UsageError(f"[tool.agentforge] providers: {exc}") from None
    return budget_growth(load_snapshot(old), load_snapshot(new), providers, limits)
