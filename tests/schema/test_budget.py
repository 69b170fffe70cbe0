"""Token budgets: definitions measured as each provider's export, the tokenizer table (an
estimate, labelled, and no network), result-size statistics, and the budget findings."""

from __future__ import annotations

import json
import math
import socket
from pathlib import Path

import pytest

from agentforge_cli.core.define.tokens import TOKENIZERS, size_stats, token_counter
from agentforge_cli.core.run.discovery import build_local_tools
from agentforge_cli.replay.result_sizes import recorded_results, result_sizes
from agentforge_cli.schema.budget import (
    BudgetLimits,
    budget_findings,
    budget_growth,
    measure,
    result_findings,
)
from agentforge_cli.schema.providers import export_tools
from agentforge_cli.schema.rule_ids import rule_problem
from sample_tools.crm import CrmTools
from sample_tools.weather import getWeather

SPECS = list(build_local_tools([CrmTools(), getWeather]))


def compact(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty tiktoken cache, and any attempt to open a socket fails the test."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a budget reached for the network")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize("provider", ["anthropic", "mcp", "gemini", "openai-responses"])
def test_each_definition_and_the_set_are_measured_as_the_provider_export(offline, provider):
    (budget,) = measure(SPECS, [provider])
    document = export_tools(SPECS, provider).data
    entries = document["tools"] if provider == "mcp" else document
    assert [t.name for t in budget.tools] == ["queryCustomer", "getWeather"]
    for tool, entry in zip(budget.tools, entries, strict=True):
        assert (tool.chars, tool.tokens) == (len(compact(entry)),
                                             math.ceil(len(compact(entry)) / 4))
    assert budget.chars == len(compact(document))
    assert budget.tokens == math.ceil(budget.chars / 4)
    assert budget.estimate and budget.tokenizer.startswith("estimate (characters/4)")


def test_openai_names_its_tiktoken_encoding_and_falls_back_offline_labelled(offline):
    assert {TOKENIZERS[p] for p in ("openai", "openai-strict", "openai-responses",
                                    "openai-responses-strict")} == {"o200k_base"}
    counter = token_counter("openai")
    assert counter.estimate
    assert counter.label == ("estimate (characters/4): tiktoken o200k_base not available "
                             "offline")
    assert [counter.count(text) for text in ("", "a", "abcd", "abcde")] == [0, 1, 1, 2]
    anthropic = token_counter("anthropic")
    assert anthropic.estimate and anthropic.label == "estimate (characters/4)"


def test_size_stats_are_nearest_rank_percentiles_in_chars_and_tokens():
    stats = size_stats(["x" * n for n in range(1, 21)])
    assert stats.count == 20
    assert stats.chars == (10, 19, 20)
    assert stats.tokens == (3, 5, 5)
    one = size_stats([""])
    assert (one.count, one.chars, one.tokens) == (1, (0, 0, 0), (0, 0, 0))


def test_a_budget_is_exceeded_only_above_its_limit(offline):
    (budget,) = measure(SPECS, ["anthropic"])
    sizes = {t.name: t.tokens for t in budget.tools}
    at = BudgetLimits(tool_tokens=sizes["queryCustomer"], set_tokens=budget.tokens)
    assert budget_findings([budget], at) == []
    below = BudgetLimits(tool_tokens=sizes["queryCustomer"] - 1, set_tokens=budget.tokens - 1,
                         source="pyproject.toml: [tool.agentforge.budget]")
    tool, whole = budget_findings([budget], below)
    assert (tool.tool, tool.rule, tool.level) == ("queryCustomer", "tool-tokens", "error")
    assert tool.message == (
        f'tool "queryCustomer": its definition is {sizes["queryCustomer"]} tokens (estimate) '
        f"for anthropic, over the budget tool_tokens = {sizes['queryCustomer'] - 1} "
        "(pyproject.toml: [tool.agentforge.budget]); shorten its description or schema, or "
        "raise the budget")
    assert (whole.tool, whole.rule) == ("", "set-tokens")
    assert f"the 2 tool definitions are {budget.tokens} tokens (estimate) for anthropic" in (
        whole.message)
    assert budget_findings([budget], BudgetLimits()) == []
    for rule in ("tool-tokens", "set-tokens", "result-tokens"):
        assert rule_problem(rule) is None  # each can be silenced
    assert "did you mean 'tool-tokens'" in (rule_problem("tool-token") or "")


def test_growth_past_a_budget_between_two_sets(offline):
    small = list(build_local_tools([getWeather]))
    (before,) = measure(small, ["anthropic"])
    size = before.tools[0].tokens
    longer = [spec.__class__(name=spec.name, description=spec.description + " " + "x" * 80,
                             parameters=spec.parameters) for spec in small]
    (after,) = measure(longer, ["anthropic"])
    grew_to = after.tools[0].tokens
    assert grew_to > size
    limits = BudgetLimits(tool_tokens=size, set_tokens=before.tokens)
    grown = budget_growth(small, longer, ["anthropic"], limits)
    assert [(f.tool, f.rule) for f in grown] == [("getWeather", "tool-tokens"),
                                                 ("", "set-tokens")]
    assert grown[0].message == (f'tool "getWeather": its definition grew from {size} to '
                                f"{grew_to} tokens (estimate) for anthropic, past the budget "
                                f"tool_tokens = {size}")
    # already over before: not grown past; shrinking: nothing; a new tool over: reported
    assert budget_growth(longer, longer, ["anthropic"], limits) == []
    assert budget_growth(longer, small, ["anthropic"], limits) == []
    added = budget_growth([], longer, ["anthropic"], BudgetLimits(tool_tokens=size))
    assert [f.message for f in added] == [
        f'tool "getWeather": its definition new at {grew_to} tokens (estimate) for anthropic, '
        f"past the budget tool_tokens = {size}"]


def write_jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def exchange(index: int, name: str, content: str) -> list[dict]:
    return [{"type": "tool_call", "id": f"c{index}", "name": name, "arguments": "{}"},
            {"type": "tool_result", "id": f"c{index}", "content": content,
             "is_error": False}]


def test_recorded_results_are_grouped_by_tool_across_files_and_folders(tmp_path: Path):
    folder = tmp_path / "runs"
    folder.mkdir()
    write_jsonl(folder / "a.jsonl", [*exchange(1, "search", "x" * 400),
                                     *exchange(2, "lookup", "y" * 8)])
    write_jsonl(folder / "b.jsonl", [*exchange(1, "search", "z" * 40_004),
                                     {"type": "tool_call", "id": "c2", "name": "lookup",
                                      "arguments": "{}"}])  # no result: nothing measured
    openai = Path(__file__).resolve().parents[2] / "sample_tools/transcripts/crm_openai.json"
    texts = recorded_results([str(folder), str(openai)])
    assert texts == {"search": ["x" * 400, "z" * 40_004], "lookup": ["y" * 8],
                     "queryCustomer": ["customer:长路,limit:5"]}
    sizes = result_sizes([str(folder)])
    assert list(sizes) == ["lookup", "search"]
    assert sizes["search"].chars == (400, 40_004, 40_004)
    assert sizes["search"].tokens == (100, 10_001, 10_001)
    (over,) = result_findings(sizes, BudgetLimits(result_tokens=10_000))
    assert (over.tool, over.rule) == ("search", "result-tokens")
    assert "its largest recorded result is 10,001 tokens (estimate), 40,004 characters" in (
        over.message)
    assert result_findings(sizes, BudgetLimits(result_tokens=10_001)) == []


def test_recorded_results_refuse_an_empty_folder_and_a_malformed_file(tmp_path: Path):
    from agentforge_cli.replay.transcripts.errors import TranscriptError

    (tmp_path / "empty").mkdir()
    with pytest.raises(TranscriptError, match="no transcript in this folder"):
        recorded_results([str(tmp_path / "empty")])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"tool_call","id":"c1","name":"x","arguments":"{}"}\n{oops\n',
                   encoding="utf-8")
    with pytest.raises(TranscriptError, match="line 2"):
        recorded_results([str(bad)])
