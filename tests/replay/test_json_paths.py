"""``replay.json_paths``: the JSONPath subset scrubbers name places with — each selector,
what selects nothing, refused paths, deep values, and the same values as jsonpath-ng
(a maintained JSONPath library) finds for every path of the subset."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentforge_cli.replay.json_paths import MAX_PATH_CHARS, parse_path, shown

DOCUMENT = {
    "created_at": "2026-12-01",
    "items": [{"id": 1, "updated": "a"}, {"id": 2, "sub": {"id": 3}}, {"name": "x"}],
    "meta": {"a b": {"id": 4}, "it's": 5},
    "x-request-id": "r1",
}


@pytest.mark.parametrize(("path", "found"), [
    ("$", ["$"]),
    ("$.created_at", ["$.created_at"]),
    ("$['created_at']", ["$.created_at"]),
    ('$["created_at"]', ["$.created_at"]),
    ("$.x-request-id", ["$.x-request-id"]),
    ("$..id", ["$.items[0].id", "$.items[1].id", "$.items[1].sub.id", "$.meta['a b'].id"]),
    ("$.items[*].updated", ["$.items[0].updated"]),
    ("$.items[*].id", ["$.items[0].id", "$.items[1].id"]),
    ("$.items[0]", ["$.items[0]"]),
    ("$.items[-1].name", ["$.items[2].name"]),
    ("$.items[ 1 ].sub.id", ["$.items[1].sub.id"]),
    ("$.meta.*", ["$.meta['a b']", "$.meta['it\\'s']"]),
    ("$.meta['it\\'s']", ["$.meta['it\\'s']"]),
    ("$..[0]", ["$.items[0]"]),
    # what is not there selects nothing, never an error
    ("$.items[3]", []), ("$.items[-4]", []), ("$.missing", []), ("$.items.id", []),
    ("$.created_at[0]", []), ("$.meta[0]", []), ("$..nothing", []),
])
def test_each_selector_finds_its_places(path, found):
    assert [shown(where) for where in parse_path(path).locations(DOCUMENT)] == found


@pytest.mark.parametrize(("path", "problem"), [
    ("created_at", "starts with $"),
    ("$.", "expected a member name or *"),
    ("$..", "expected a member name or *"),
    ("$.1st", "expected a member name or *"),
    ("$.[0]", "expected a member name or *"),
    ("$a", "expected . or ["),
    ("$[", "expected [*], [n] or ['name']"),
    ("$[1:2]", "expected [*], [n] or ['name']"),
    ("$[?(@.id)]", "expected [*], [n] or ['name']"),
    ("$['a\\q']", "unknown escape"),
    ("$." + "a" * MAX_PATH_CHARS, "at most"),
])
def test_a_path_outside_the_subset_is_refused_with_where(path, problem):
    with pytest.raises(ValueError) as info:
        parse_path(path)
    assert problem in str(info.value)


def test_a_deep_value_is_walked_without_recursion():
    deep: object = {"id": 1}
    for _ in range(sys.getrecursionlimit() * 2):
        deep = {"next": deep}
    (where,) = parse_path("$..id").locations(deep)
    assert len(where) == sys.getrecursionlimit() * 2 + 1


def test_a_place_is_listed_once_though_two_routes_reach_it():
    value = {"a": {"a": 1}}
    assert [shown(w) for w in parse_path("$..a").locations(value)] == ["$.a", "$.a.a"]


# ------------------------------------------------------------ against jsonpath-ng

_KEYS = st.sampled_from(["id", "a", "b", "items"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text("xyz", max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=12)
_PATHS = ["$.id", "$..id", "$.items[*].id", "$.items[0]", "$.items[-1].a", "$.a.*",
          "$[*]", "$..a.b", "$.items[1].b", "$..items[*]", "$['a']['b']", "$..[0]"]


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_the_subset_selects_what_jsonpath_ng_selects(document):
    from jsonpath_ng import parse

    for path in _PATHS:
        ours = parse_path(path)
        values = [_at(document, where) for where in ours.locations(document)]
        theirs = [match.value for match in parse(path).find(document)]
        assert sorted(map(_key, values)) == sorted(map(_key, theirs)), path


def _at(value, where):
    for step in where:
        value = value[step]
    return value


def _key(value) -> str:
    return json.dumps(value, sort_keys=True)
