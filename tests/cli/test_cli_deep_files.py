"""A user file nested a million levels deep is unreadable (exit 3, the file named), never
an unexpected error (exit 1 would read as a mismatch or a breaking change)."""

from __future__ import annotations

from pathlib import Path

import pytest

DEEP = "[" * 1_000_000 + "]" * 1_000_000


@pytest.fixture
def deep(tmp_path: Path) -> Path:
    path = tmp_path / "deep.json"
    path.write_text(DEEP, encoding="utf-8")
    return path


def test_tools_diff_names_the_file(cli, deep: Path) -> None:
    result = cli("tools", "diff", str(deep), str(deep))
    assert result.exit_code == 3, result.output
    assert "deep.json" in result.output and "nested too deeply" in result.output


def test_tools_check_snapshot_names_the_file(cli, deep: Path) -> None:
    result = cli("tools", "check", "-t", "sample_tools.shop", "--snapshot", str(deep))
    assert result.exit_code == 3, result.output
    assert "deep.json" in result.output and "nested too deeply" in result.output


@pytest.mark.parametrize("text", [DEEP, '{"type":"user","content":"x"}\n{"a":' + DEEP + "}\n",
                                  '{"messages":' + DEEP + "}"])
def test_replay_names_the_transcript(cli, tmp_path: Path, text: str) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(text, encoding="utf-8")
    result = cli("replay", str(path), "-t", "sample_tools.shop")
    assert result.exit_code == 3, result.output
    assert "deep.jsonl" in result.output and "nested too deeply" in result.output


def test_tools_call_json_of_a_deeply_nested_result(cli, write_module) -> None:
    module = write_module("deep_result", '''
        from agentforge_cli import tool

        @tool
        def nest() -> str:
            """Return JSON text nested too deeply to parse."""
            return "[" * 100_000 + "]" * 100_000
    ''')
    result = cli("tools", "call", "nest", "{}", "-t", str(module), "--json")
    assert result.exit_code == 0, result.output
    assert "unexpected" not in result.output
