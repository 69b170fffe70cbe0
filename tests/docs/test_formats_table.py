"""docs/replay.md's table of transcript formats is the registry's: a row for every
registered format, with its title and ``--format`` name, and an example file that is
detected as that format and replays all-matched; the table of model APIs read inside
cassettes names each such format's request paths. A throwaway format registered here is
reported missing, and a row pointing at another format's example is reported, so the check
cannot pass by looking at nothing."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.replay.transcripts import TranscriptError, open_transcript, registry
from agentforge_cli.replay.transcripts.formats import conversations

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "docs" / "replay.md"
CRM = "sample_tools.crm:CrmTools"
FORMATS_HEADER = "| format | `--format` | where such files come from | example |"
API_HEADER = "| API | `--format` | request paths |"
EXAMPLE = re.compile(r"^\[[^\]]+\]\(([^)]+)\)(?: on `([\w.:]+)`)?$")


class Row(NamedTuple):
    title: str
    name: str
    example: str
    """The example cell: ``[file](path)``, optionally `` on `target` ``."""


def _table(text: str, header: str) -> list[list[str]]:
    """The cells of each row of the table that starts with ``header``."""
    assert header in text, f"the table starting {header!r} is gone from docs/replay.md"
    lines = text.split(header, 1)[1].split("\n\n", 1)[0].strip().splitlines()[1:]
    return [[cell.strip() for cell in line.strip().strip("|").split(" | ")] for line in lines]


def _code(cell: str) -> str:
    return cell[1:-1] if cell.startswith("`") and cell.endswith("`") else cell


def format_rows(text: str) -> list[Row]:
    return [Row(cells[0], _code(cells[1]), cells[3]) for cells in _table(text, FORMATS_HEADER)]


def table_problems(text: str) -> list[str]:
    """What the formats table says that the registry does not: formats without a row,
    titles that differ, rows naming no registered format."""
    rows = {row.name: row for row in format_rows(text)}
    problems = [f"{name}: a row for a format that is not registered"
                for name in rows if registry.find_format(name) is None]
    for fmt in registry.transcript_formats():
        row = rows.get(fmt.name)
        if row is None:
            problems.append(f"{fmt.name}: no row")
        elif row.title != fmt.title:
            problems.append(f"{fmt.name}: the row says {row.title!r}, the registry "
                            f"{fmt.title!r}")
    return problems


def api_problems(text: str) -> list[str]:
    """The API table against the formats that read their API in cassettes: a row each,
    listing exactly the format's request paths."""
    rows = {_code(cells[1]): set(re.findall(r"`([^`]+)`", cells[2]))
            for cells in _table(text, API_HEADER)}
    reading = {fmt.name: set(fmt.api.paths) for fmt in registry.transcript_formats()
               if fmt.api is not None}
    problems = [f"{name}: an API row for a format that reads no API"
                for name in rows if name not in reading]
    for name, paths in reading.items():
        if name not in rows:
            problems.append(f"{name}: no API row")
        elif rows[name] != paths:
            problems.append(f"{name}: the row lists {sorted(rows[name])}, the format reads "
                            f"{sorted(paths)}")
    return problems


def detection_problem(name: str, path: Path) -> str | None:
    """Why ``path`` is not detected as format ``name`` (``None`` when it is): a file of
    many conversations counts when that format reads each of them."""
    try:
        detected = open_transcript(path).format
        if detected == conversations.NAME and name != conversations.NAME:
            named = open_transcript(path, name)
            list(named.events())  # each conversation read in that format, or an error
            detected = named.within or named.format
    except TranscriptError as exc:
        return f"{name}: {path.name} does not read: {exc}"
    return None if detected == name else f"{name}: {path.name} is detected as {detected}"


def example_problems(cli: Any, row: Row) -> list[str]:
    """What is wrong with a row's example: missing, detected as another format, or not
    replaying all-matched."""
    found = EXAMPLE.match(row.example)
    if found is None:
        return [f"{row.name}: the example cell is not a link: {row.example!r}"]
    path = (REPLAY.parent / found.group(1)).resolve()
    if not path.is_file():
        return [f"{row.name}: {found.group(1)} does not exist"]
    problem = detection_problem(row.name, path)
    if problem is not None:
        return [problem]
    done = cli("replay", str(path), "-t", found.group(2) or CRM, "--json")
    summary = json.loads(done.stdout)["summary"] if done.stdout.strip() else {}
    if done.exit_code != 0 or not summary.get("matched") or set(summary) != {
            "matched", "mismatched", "unrecorded"} or summary["matched"] != sum(
            summary.values()):
        return [f"{row.name}: {path.name} does not replay all-matched (exit "
                f"{done.exit_code}, {summary or done.stderr.strip()})"]
    return []


def _registered(monkeypatch: pytest.MonkeyPatch, formats: list[Any]) -> None:
    monkeypatch.setattr(registry, "TRANSCRIPT_FORMATS", ExtensionPoint(
        "transcript format", "agentforge.transcript_formats", formats))


def test_the_formats_table_is_the_registry():
    assert table_problems(REPLAY.read_text(encoding="utf-8")) == []


def test_the_api_table_names_each_api_format_and_its_paths():
    assert api_problems(REPLAY.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("row", format_rows(REPLAY.read_text(encoding="utf-8")),
                         ids=lambda row: row.name)
def test_each_example_is_detected_and_replays_all_matched(cli, plain_terminal, row):
    assert example_problems(cli, row) == []


def test_a_format_the_table_does_not_show_is_named(monkeypatch: pytest.MonkeyPatch):
    throwaway = dataclasses.replace(registry.transcript_formats()[0], name="throwaway",
                                    title="throwaway transcripts nobody documented",
                                    before=(), api=None)
    _registered(monkeypatch, [*registry.transcript_formats(), throwaway])
    assert table_problems(REPLAY.read_text(encoding="utf-8")) == ["throwaway: no row"]


def test_a_row_the_registry_disagrees_with_is_named(monkeypatch: pytest.MonkeyPatch):
    text = REPLAY.read_text(encoding="utf-8")
    renamed = text.replace("| nock recordings | `nock` |", "| nock recordings | `nock-js` |")
    retitled = text.replace("| Codex CLI rollouts | `codex` |", "| Codex rollouts | `codex` |")
    assert table_problems(renamed) == ["nock-js: a row for a format that is not registered",
                                       "nock: no row"]
    assert table_problems(retitled) == [
        "codex: the row says 'Codex rollouts', the registry 'Codex CLI rollouts'"]
    first, *rest = registry.transcript_formats()
    api = next(fmt.api for fmt in rest if fmt.api is not None)
    _registered(monkeypatch, [dataclasses.replace(first, api=api), *rest])
    assert api_problems(text) == [f"{first.name}: no API row"]


def test_an_example_of_another_format_is_named(cli, plain_terminal):
    formats = "../sample_tools/transcripts/formats"
    web = Row("Claude Code sessions", "claude-code", f"[web]({formats}/claude-code-web.json)")
    assert example_problems(cli, web) == [
        "claude-code: claude-code-web.json is detected as claude-code-web"]
    openai = Row("tau2-bench messages", "tau2",
                 "[c](../sample_tools/transcripts/crm_conversations.jsonl)")
    assert example_problems(cli, openai)[0].startswith(
        "tau2: crm_conversations.jsonl does not read: ")  # conversations, not tau2's
    missing = Row("nock recordings", "nock", f"[gone]({formats}/gone.json)")
    assert example_problems(cli, missing) == [f"nock: {formats}/gone.json does not exist"]
    unmatched = Row("agentforge JSONL", "agentforge",
                    "[m](../sample_tools/transcripts/crm_mismatch.jsonl)")
    assert example_problems(cli, unmatched)[0].startswith(
        "agentforge: crm_mismatch.jsonl does not replay all-matched (exit 1")
    elsewhere = Row("Codex CLI rollouts", "codex", f"[codex]({formats}/codex.jsonl)")
    assert example_problems(cli, elsewhere)[0].startswith(  # its target is not CrmTools
        "codex: codex.jsonl does not replay all-matched (exit 1")
