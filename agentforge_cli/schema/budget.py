"""Token budgets of a tool set: what each tool definition costs a provider, and gates.

A tool definition is measured as it is sent: the provider's export of the tool
(as ``export_tools`` builds it), as compact JSON text, counted
with the provider's tokenizer (:mod:`~agentforge_cli.core.define.tokens`; an estimate for a
provider without one, and labelled so). The set is the whole exported document.

Budgets (:class:`BudgetLimits`, from ``[tool.agentforge.budget]``) turn sizes into
findings (level error, so they fail ``tools check`` and can be silenced per tool):

=================  ==============================================================
``tool-tokens``    one tool's definition is over ``tool_tokens`` for a provider
``set-tokens``     the whole set is over ``set_tokens`` for a provider
``result-tokens``  a tool's largest recorded result is over ``result_tokens``
=================  ==============================================================

:func:`budget_growth` compares two snapshots: a tool (or the set) that was within a
budget and is over it now.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.core.define.tokens import SizeStats, token_counter
from agentforge_cli.schema.findings import ERROR, Finding, finding
from agentforge_cli.schema.providers import get_provider

__all__ = ["RESULT_LIMITS", "BudgetLimits", "ProviderBudget", "ToolTokens",
           "budget_findings", "budget_growth", "budget_to_json", "measure", "result_findings"]

RESULT_LIMITS: tuple[tuple[str, int], ...] = (
    ("Claude Code warning", 10_000),
    ("Claude Code limit", 25_000),
)
"""Known limits on one tool result, in tokens, each result size is shown against (see
docs/checks.md for the sources)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class BudgetLimits:
    """The budgets of ``[tool.agentforge.budget]``, in tokens (``None``: no budget)."""

    tool_tokens: int | None = None
    """The most one tool definition may cost, for each provider."""
    set_tokens: int | None = None
    """The most the whole set of definitions may cost, for each provider."""
    result_tokens: int | None = None
    """The most one recorded tool result may cost."""
    source: str = ""
    """Where they were set (shown in findings)."""

    @property
    def where(self) -> str:
        """`` (pyproject.toml: [tool.agentforge.budget])``, or ``""`` with no source."""
        return f" ({self.source})" if self.source else ""


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolTokens:
    """One tool definition as a provider gets it."""

    name: str
    """The tool."""
    chars: int
    """Characters of its compact JSON."""
    tokens: int
    """Its tokens."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderBudget:
    """Every tool definition, and the set, for one provider."""

    provider: str
    """The provider name."""
    tokenizer: str
    """How tokens were counted (``tiktoken o200k_base``, ``estimate (characters/4)``)."""
    estimate: bool
    """The counts are an estimate."""
    tools: tuple[ToolTokens, ...]
    """Each tool, in order."""
    chars: int
    """Characters of the whole exported document."""
    tokens: int
    """Tokens of the whole exported document."""


def _compact(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def measure(specs: Iterable[ToolSpecification], providers: Sequence[str]
            ) -> list[ProviderBudget]:
    """Measure each provider's export of ``specs``.

    Each tool is converted as ``export_tools`` converts it and the set wrapped in the
    provider's document. A tool the provider has no form for (an error ``tools check``
    reports) is left out.
    """
    specs = list(specs)
    budgets = []
    for name in providers:
        provider = get_provider(name)
        counter = token_counter(provider.name)
        entries = [(spec.name, data) for spec in specs
                   if (data := provider.convert(spec).data) is not None]
        tools = []
        for tool, data in entries:
            text = _compact(data)
            tools.append(ToolTokens(name=tool, chars=len(text), tokens=counter.count(text)))
        whole = _compact(provider.wrap([data for _, data in entries]))
        budgets.append(ProviderBudget(provider=provider.name, tokenizer=counter.label,
                                      estimate=counter.estimate, tools=tuple(tools),
                                      chars=len(whole), tokens=counter.count(whole)))
    return budgets


def _tokens(budget: ProviderBudget, count: int) -> str:
    return f"{count:,} tokens{' (estimate)' if budget.estimate else ''} for {budget.provider}"


def budget_findings(budgets: Iterable[ProviderBudget], limits: BudgetLimits) -> list[Finding]:
    """A ``tool-tokens`` finding per tool and provider over ``tool_tokens``, a
    ``set-tokens`` finding per provider over ``set_tokens``."""
    found = []
    for budget in budgets:
        if limits.tool_tokens is not None:
            for tool in budget.tools:
                if tool.tokens > limits.tool_tokens:
                    found.append(finding(
                        tool.name, "tool-tokens", ERROR,
                        f"its definition is {_tokens(budget, tool.tokens)}, over the budget "
                        f"tool_tokens = {limits.tool_tokens}{limits.where}; shorten its "
                        "description or schema, or raise the budget"))
        if limits.set_tokens is not None and budget.tokens > limits.set_tokens:
            found.append(Finding(
                tool="", rule="set-tokens", level=ERROR,
                message=f"the {len(budget.tools)} tool definitions are "
                        f"{_tokens(budget, budget.tokens)}, over the budget set_tokens = "
                        f"{limits.set_tokens}{limits.where}; send fewer tools or shorter ones, or "
                        "raise the budget"))
    return found


def result_findings(sizes: Mapping[str, SizeStats], limits: BudgetLimits) -> list[Finding]:
    """A ``result-tokens`` finding per tool whose largest recorded result is over
    ``result_tokens``."""
    if limits.result_tokens is None:
        return []
    return [finding(tool, "result-tokens", ERROR,
                    f"its largest recorded result is {stats.tokens[2]:,} tokens (estimate), "
                    f"{stats.chars[2]:,} characters, over the budget result_tokens = "
                    f"{limits.result_tokens}{limits.where}; return less (page, filter or "
                    "summarise), or raise the budget")
            for tool, stats in sizes.items() if stats.tokens[2] > limits.result_tokens]


def budget_growth(old: Iterable[ToolSpecification], new: Iterable[ToolSpecification],
                  providers: Sequence[str], limits: BudgetLimits) -> list[Finding]:
    """What grew past a budget between two tool sets: a tool definition within
    ``tool_tokens`` before (or new) and over it after, a set within ``set_tokens`` before
    and over it after; per provider."""
    found = []
    for before, after in zip(measure(old, providers), measure(new, providers), strict=True):
        was = {tool.name: tool.tokens for tool in before.tools}
        if limits.tool_tokens is not None:
            for tool in after.tools:
                previous = was.get(tool.name)
                if tool.tokens > limits.tool_tokens and (previous is None
                                                         or previous <= limits.tool_tokens):
                    grown = "new at" if previous is None else f"grew from {previous:,} to"
                    found.append(finding(
                        tool.name, "tool-tokens", ERROR,
                        f"its definition {grown} {_tokens(after, tool.tokens)}, past the "
                        f"budget tool_tokens = {limits.tool_tokens}{limits.where}"))
        if (limits.set_tokens is not None and after.tokens > limits.set_tokens
                and before.tokens <= limits.set_tokens):
            found.append(Finding(
                tool="", rule="set-tokens", level=ERROR,
                message=f"the tool definitions grew from {before.tokens:,} to "
                        f"{_tokens(after, after.tokens)}, past the budget set_tokens = "
                        f"{limits.set_tokens}{limits.where}"))
    return found


def budget_to_json(budgets: Iterable[ProviderBudget], sizes: Mapping[str, SizeStats] | None,
                   limits: BudgetLimits) -> dict[str, Any]:
    """The ``budget`` member of ``tools check --budget --json``."""
    document: dict[str, Any] = {
        "limits": {"tool_tokens": limits.tool_tokens, "set_tokens": limits.set_tokens,
                   "result_tokens": limits.result_tokens},
        "providers": [{"provider": b.provider, "tokenizer": b.tokenizer,
                       "estimate": b.estimate, "chars": b.chars, "tokens": b.tokens,
                       "tools": [{"name": t.name, "chars": t.chars, "tokens": t.tokens}
                                 for t in b.tools]} for b in budgets],
    }
    if sizes is not None:
        document["results"] = {
            "tokenizer": "estimate (characters/4)",
            "limits": dict(RESULT_LIMITS),
            "tools": [{"name": tool, "count": s.count,
                       "chars": dict(zip(("p50", "p95", "max"), s.chars, strict=True)),
                       "tokens": dict(zip(("p50", "p95", "max"), s.tokens, strict=True))}
                      for tool, s in sizes.items()]}
    return document
