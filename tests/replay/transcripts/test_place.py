"""A location in a transcript is a ``Place`` value, rendered only when shown."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import open_transcript
from agentforge_cli.replay.transcripts.errors import TranscriptError
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

PACKAGE = Path(__file__).resolve().parents[3] / "agentforge_cli"


@pytest.mark.parametrize(("place", "shown"), [
    (WHOLE_FILE, ""),
    (Place(3), "line 3"),
    (WHOLE_FILE.at("messages", 2), "messages[2]"),
    (Place(18).at("interactions", 1).at("request body"), "line 18, interactions[1], request body"),
    (Place(1).at("resourceSpans", 0, "scopeSpans", 1, "spans", 2),
     "line 1, resourceSpans[0].scopeSpans[1].spans[2]"),
    (WHOLE_FILE.at("samples", 2).then("messages", 0), "samples[2].messages[0]"),
    (WHOLE_FILE.then("messages", 0), "messages[0]"),
    (Place(4).at("response body").at("output", "message"), "line 4, response body, output.message"),
])
def test_a_place_renders_its_line_and_path(place, shown):
    assert str(place) == shown
    assert bool(place) is bool(shown)


def test_places_are_values():
    assert Place(3).at("parts", 1) == Place(3, (("parts", 1),))
    assert Place(3).at("parts", 1) != Place(3).at("parts", 2)
    assert len({Place(3), Place(3), Place(4)}) == 2
    assert Place(3).at("parts", 1).path == (("parts", 1),)  # a reader can walk it


def test_a_reader_error_carries_the_structured_place(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "x", "input": [1]}]}]))
    with pytest.raises(TranscriptError) as info:
        list(open_transcript(path, "anthropic").events())
    assert info.value.where == WHOLE_FILE.at("messages", 0).at("content", 0)
    assert f"{path}, messages[0], content[0]: " in str(info.value)


def test_jsonl_events_know_their_line(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"type": "user", "content": "hi"}\n\n'
                    '{"type": "tool_call", "id": "c", "name": "x", "arguments": "{}"}\n')
    events = list(open_transcript(path).events())
    assert [event.where.line for event in events] == [1, 3]


def _location_texts(tree: ast.AST) -> list[int]:
    """Lines of f-strings that build a location as text: ``f"line {n}"``, or a
    ``where``/``at`` value continued as a path (``f"{where}, parts[{i}]"``)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr) or not node.values:
            continue
        first = node.values[0]
        if isinstance(first, ast.Constant) and str(first.value).startswith("line "):
            found.append(node.lineno)
        elif isinstance(first, ast.FormattedValue) and len(node.values) > 1:
            name = ast.unparse(first.value).split(".")[-1]
            then = node.values[1]
            if name in ("where", "at", "place") and isinstance(then, ast.Constant) and (
                    str(then.value).startswith((", ", ".", "["))):
                found.append(node.lineno)
    return found


def test_no_reader_builds_a_location_as_text():
    offenders = []
    for path in sorted((PACKAGE / "replay").rglob("*.py")):
        if path.name == "place.py":  # the one renderer
            continue
        for line in _location_texts(ast.parse(path.read_text(encoding="utf-8"))):
            offenders.append(f"{path.relative_to(PACKAGE)}:{line}")
    assert offenders == []


def test_the_location_check_sees_text_locations():
    tree = ast.parse('a = f"line {n}"\nb = f"{record.where}, parts[{i}]"\nc = f"x {where}"\n'
                     'd = f"{where}.messages[{i}]"\ne = f"{entry.where} {name}"\n')
    assert _location_texts(tree) == [1, 2, 4]
