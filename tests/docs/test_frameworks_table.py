"""docs/frameworks.md's repair table is what the libraries do: each cell is run, natively and
through agentforge's binding, against the sample tool written with that library."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "frameworks.md"
TARGETS = {
    "LangChain": "sample_tools.weather_langchain",
    "pydantic-ai": "sample_tools.weather_pydantic_ai",
    "OpenAI Agents SDK": "sample_tools.weather_openai_agents",
    "FastMCP": "sample_tools.weather_fastmcp",
    "smolagents": "sample_tools.weather_smolagents",
}
RIGHT = {"Paris": "3 days in celsius for Paris"}  # the answer when a place is given


def _table() -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The libraries (columns) and, per row, the arguments and the cells."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## What `--binding agentforge` repairs", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    body = []
    for line in rows[2:]:
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        arguments = re.search(r"`(\{.*\})`", cells[0])
        assert arguments, line
        body.append((arguments.group(1), cells[1:]))
    return header[1:], body


def _outcome(cli, target: str, arguments: str, binding: str) -> str:
    done = cli("tools", "call", "forecast", arguments, "-t", target, "--binding", binding)
    if done.exit_code == 1:
        return "refused"
    assert done.exit_code == 0, done.output
    right = RIGHT["Paris"] if "Paris" in arguments else "3 days in celsius for here"
    return "ok" if done.stdout.strip() == right else "unchecked"


def test_the_table_names_every_adapter_and_four_arguments():
    from agentforge_cli.integrations.frameworks import ADAPTERS

    libraries, rows = _table()
    assert libraries == list(TARGETS)
    assert len(libraries) == len(ADAPTERS)
    assert len(rows) == 4


@pytest.mark.parametrize("library", list(TARGETS))
def test_each_cell_is_what_the_library_does(cli, library):
    libraries, rows = _table()
    column = libraries.index(library)
    for arguments, cells in rows:
        seen = (f"{_outcome(cli, TARGETS[library], arguments, 'native')} → "
                f"{_outcome(cli, TARGETS[library], arguments, 'agentforge')}")
        assert seen == cells[column], (library, arguments)
