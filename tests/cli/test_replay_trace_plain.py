"""The replay trace on a stream that is not a terminal: rows that fit on a line are
written as plain text, byte for byte what rich draws, without rich drawing each one."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from agentforge_cli.cli.render import replay_trace

CRM = "sample_tools.crm:CrmTools"
TEXTS = ["", " ", "  leading", "trailing  ", "tab\there", "cr\rhere", "长路" * 30, "x" * 69,
         "x" * 70, "x" * 71, "a b " * 40, "emoji 😀", "e\u0301", "esc\x1bX", "zero\u200bwidth",
         "two\nlines", "[red]not markup[/red]", "é" * 75]


def _transcript(path):
    lines, number = [], 0
    for text in TEXTS:
        lines += [{"type": "user", "content": text}, {"type": "assistant", "content": text}]
        for result in (text, "customer:长路,limit:5", text + "x"):
            arguments = json.dumps({"name": text or "n", "limit": 5}, ensure_ascii=False)
            lines += [{"type": "tool_call", "id": f"c{number}", "name": "queryCustomer",
                       "arguments": arguments},
                      {"type": "tool_result", "id": f"c{number}", "content": result}]
            number += 1
    lines.append({"type": "assistant", "content": "the answer  "})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("columns", ["40", "80", "83", "200"])
def test_the_plain_trace_is_what_rich_draws(columns, cli, tmp_path, monkeypatch):
    path = _transcript(tmp_path / "t.jsonl")
    monkeypatch.setenv("COLUMNS", columns)
    plain = cli("replay", str(path), "-t", CRM)
    monkeypatch.setattr(replay_trace, "_plain_row", lambda *args: None)  # rich draws every row
    drawn = cli("replay", str(path), "-t", CRM)
    assert plain.exit_code == drawn.exit_code == 1
    assert plain.stdout == drawn.stdout
    assert "[act]     queryCustomer" in plain.stdout


def test_rows_that_fit_are_not_drawn_by_rich(cli, tmp_path, monkeypatch):
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in [
        {"type": "user", "content": "find 长路"},
        {"type": "tool_call", "id": "c1", "name": "queryCustomer",
         "arguments": '{"name": "长路", "limit": 5}'},
        {"type": "tool_result", "id": "c1", "content": "customer:长路,limit:5"},
        {"type": "assistant", "content": "done"}]), encoding="utf-8")
    drawn: list[object] = []
    real_print = Console.print
    monkeypatch.setattr(Console, "print", lambda self, *a, **k: (
        drawn.append(a), real_print(self, *a, **k)))
    done = cli("replay", str(path), "-t", CRM)
    assert done.exit_code == 0
    assert done.stdout.startswith(
        "[user]    find 长路\n"
        "[think]   call queryCustomer\n"
        '[act]     queryCustomer {"name": "长路", "limit": 5}\n'
        '[reflect] CrmTools.queryCustomer("长路", 5) → customer:长路,limit:5  ✓ matched\n'
        "[final]   done\n")
    assert drawn  # the summary
    assert not [args for args in drawn if args and str(args[0]).startswith("[")]
