"""Minimal edits of JSON text: what an update changes is all that changes, and what it
writes afresh follows the text's own escapes, spacing and indentation."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentforge_cli.replay.transcripts.files.json_edits import (
    edit_json,
    escapes_non_ascii,
    text_style,
)


def test_an_unchanged_value_is_the_same_text():
    text = '{ "a" : 1 ,"b":[1,  2]}\n'
    assert edit_json(text, {"a": 1, "b": [1, 2]}) is text


def test_a_changed_string_keeps_the_spelling_of_what_it_keeps():
    text = '{"a": "caf\\u00e9 \\ud83d\\udcf6 old \\/ end", "b": "r\\u00e9sum\\u00e9"}'
    edited = edit_json(text, {"a": "café 📶 new / end", "b": "résumé"})
    assert edited == '{"a": "caf\\u00e9 \\ud83d\\udcf6 new \\/ end", "b": "r\\u00e9sum\\u00e9"}'


def test_new_text_is_escaped_as_the_text_escapes_it():
    escaped = '{"a": "\\u00e9", "b": "x"}'
    assert edit_json(escaped, {"a": "é", "b": "长路"}) == '{"a": "\\u00e9", "b": "\\u957f\\u8def"}'
    raw = '{"a": "é", "b": "x"}'
    assert edit_json(raw, {"a": "é", "b": "长路"}) == '{"a": "é", "b": "长路"}'


def test_a_lone_surrogate_is_written_as_an_escape():
    edited = edit_json('{"a": "é"}', {"a": "bad\udcff"})
    edited.encode("utf-8")
    assert json.loads(edited) == {"a": "bad\udcff"}


def test_a_renamed_key_keeps_its_place_and_its_value_text():
    text = '{"customer": "\\u957f\\u8def", "limit": 5.0}'
    assert edit_json(text, {"name": "长路", "limit": 5.0}) == \
        '{"name": "\\u957f\\u8def", "limit": 5.0}'


def test_a_dropped_key_takes_its_separator_with_it():
    assert edit_json('{"a":1,"b":2,"c":3}', {"a": 1, "c": 3}) == '{"a":1,"c":3}'
    assert edit_json('{\n  "a": 1,\n  "b": 2\n}', {"a": 1}) == '{\n  "a": 1\n}'


@pytest.mark.parametrize(("text", "expected"), [
    ('{"a":1}', '{"a":1,"e":{"x":[1,2]}}'),
    ('{"a": 1}', '{"a": 1, "e": {"x": [1, 2]}}'),
    ('{\n  "a": 1\n}', '{\n  "a": 1,\n  "e": {\n    "x": [\n      1,\n      2\n    ]\n  }\n}'),
    ('{\n\t"a": 1\n}', '{\n\t"a": 1,\n\t"e": {\n\t\t"x": [\n\t\t\t1,\n\t\t\t2\n\t\t]\n\t}\n}'),
    ('{\r\n  "a": 1\r\n}', '{\r\n  "a": 1,\r\n  "e": {\r\n    "x": [\r\n      1,\r\n'
                           '      2\r\n    ]\r\n  }\r\n}'),
])
def test_a_new_member_is_written_as_its_neighbours_are(text, expected):
    assert edit_json(text, {"a": 1, "e": {"x": [1, 2]}}) == expected


def test_a_record_a_line_stays_a_record_a_line():
    text = '[\n  {"role":"user","content":"hi"},\n  {"role":"tool","content":"old"}\n]\n'
    new = [{"role": "user", "content": "hi"}, {"role": "tool", "content": "new"},
           {"role": "tool", "content": "added"}]
    assert edit_json(text, new) == ('[\n  {"role":"user","content":"hi"},\n'
                                    '  {"role":"tool","content":"new"},\n'
                                    '  {"role":"tool","content":"added"}\n]\n')


def test_items_added_between_others_are_found_as_added():
    text = '[{"a":1}, {"b":2}, {"c":3}]'
    new = [{"a": 1}, {"b": 2}, {"new": 0}, {"c": 3}]
    assert edit_json(text, new) == '[{"a":1}, {"b":2}, {"new":0}, {"c":3}]'


def test_keys_keep_the_order_they_are_written_in():
    text = '{"b": 1, "a": 2}'
    assert edit_json(text, {"a": 2, "b": 1}) is text
    assert edit_json(text, {"a": 3, "b": 1, "c": 0, "d": 4}) == '{"b": 1, "a": 3, "c": 0, "d": 4}'
    assert edit_json(text, {"c": 0, "a": 2, "b": 1}) == '{"c": 0, "b": 1, "a": 2}'
    dropped = '{"a": 1, "b": 2, "m": 3}'  # "n" follows "m": it takes no dropped key's place
    assert edit_json(dropped, {"m": 3, "n": 4}) == '{"m": 3, "n": 4}'


def test_a_key_written_twice_is_written_anew():
    assert json.loads(edit_json('{"a":1,"a":2}', {"a": 3})) == {"a": 3}


def test_what_a_text_shows_of_its_escapes():
    assert escapes_non_ascii('"caf\\u00e9"') is True
    assert escapes_non_ascii('"café"') is False
    assert escapes_non_ascii('"plain \\\\u00e9"') is None  # an escaped backslash, then u00e9
    assert text_style('{"a": 1}').spaced and not text_style('{"a":1}').spaced


# -- the property: an edited text is what the same writer writes for the new value --------

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=10) | \
    st.sampled_from(["é", "长路", "📶", 'a"b', "\n\t", "\\", "/"])
_LEAF = st.none() | st.booleans() | st.integers(2, 10**6) | _TEXT
"""Leaves (no 0 or 1: Python finds them equal to false and true, which an edit keeps as
written)."""
_KEYS = st.sampled_from(["a", "b", "content", "é", "is_error", "x y"])
_VALUE = st.recursive(_LEAF, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(_KEYS, inner, max_size=4), max_leaves=15)
_WRITERS = [{}, {"ensure_ascii": False}, {"separators": (",", ":"), "ensure_ascii": False},
            {"indent": 2}, {"indent": 4, "ensure_ascii": False}, {"indent": "\t"}]
"""How ``json.dumps`` writers spell a value; each also sorts its keys, so that one order
holds for old keys and new (an edit keeps the order keys are written in)."""


def _sorted(value):
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    return [_sorted(item) for item in value] if isinstance(value, list) else value


def _changed(draw, value):
    """``value`` with some of its parts changed, dropped, renamed or added."""
    if isinstance(value, dict):
        changed = {}
        for key, item in value.items():
            roll = draw(st.integers(0, 9))
            if roll == 0:
                continue
            changed[draw(st.sampled_from(["renamed", key])) if roll == 1 else key] = (
                _changed(draw, item) if roll < 5 else item)
        if draw(st.integers(0, 4)) == 0:  # a key it never had, written after the others
            added = draw(st.sampled_from(["new", "is_error"]))
            if added not in value:
                changed[added] = draw(_VALUE)
        return changed
    if isinstance(value, list):
        changed_list = [_changed(draw, item) if draw(st.integers(0, 3)) == 0 else item
                        for item in value]
        for _ in range(draw(st.integers(0, 2))):
            changed_list.insert(draw(st.integers(0, len(changed_list))), draw(_VALUE))
        return changed_list
    return draw(_LEAF) if draw(st.integers(0, 2)) == 0 else value


@settings(max_examples=400, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.data())
def test_an_edited_text_is_what_its_writer_writes_for_the_new_value(data):
    old = data.draw(st.dictionaries(_KEYS, _VALUE, min_size=1, max_size=4))
    old["marker"] = "é"  # shows how the writer spells non-ASCII
    writer = data.draw(st.sampled_from(_WRITERS))
    new = _changed(data.draw, old)
    new["marker"] = "é"
    new = _sorted(new)
    edited = edit_json(json.dumps(old, sort_keys=True, **writer), new)
    assert edited == json.dumps(new, sort_keys=True, **writer)


# -- files written back ----------------------------------------------------------------


def test_a_jsonl_file_keeps_its_byte_order_mark_line_ends_and_other_lines(tmp_path):
    from agentforge_cli.replay.transcripts import open_transcript

    path = tmp_path / "t.jsonl"
    lines = ['{"type":"user","content":"caf\\u00e9"}',
             '{"type": "tool_call", "id": "a", "name": "x", "arguments": "{}"}',
             '{"type": "tool_result", "id": "a", "content": "old \\u00e9", "is_error": false}',
             '{"name":"y","arguments":"{}"}']
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    open_transcript(path).write_results({0: ("new é", True), 1: ("長", False)})
    assert path.read_bytes() == b"\xef\xbb\xbf" + "\r\n".join([
        *lines[:2], lines[2].replace("old", "new").replace("false", "true"), lines[3],
        '{"type":"tool_result","content":"\\u9577","is_error":false}']).encode() + b"\r\n"


def test_a_json_document_keeps_everything_it_does_not_change(tmp_path):
    from agentforge_cli.replay.transcripts import open_transcript

    path = tmp_path / "t.json"
    text = ('\ufeff{ "model" : "m", "temperature": 1.0E0,\r\n  "messages": [\r\n'
            '    {"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function",'
            '"function":{"name":"x","arguments":"{}"}}]},\r\n'
            '    {"role":"tool","tool_call_id":"a","content":"caf\\u00e9 old"}\r\n  ]\r\n}')
    path.write_bytes(text.encode("utf-8"))
    open_transcript(path).write_results({0: ("café new", False)})
    assert path.read_bytes().decode("utf-8") == text.replace("old", "new")


def test_a_change_nested_too_deeply_is_written_anew():
    depth = 600  # json itself reads and writes it; the walk takes frames a level
    old = new = "x"
    for _ in range(depth):
        old, new = [old], [new]
    assert json.loads(edit_json(json.dumps(old), [new, 1])) == [new, 1]
