"""The rules of a migration (``--rename-tool``, ``--rename-arg``, ``--drop-arg``) and what
they do to one recorded call's name and arguments."""

from __future__ import annotations

import pytest

from agentforge_cli.replay.transcripts.writing.migration import Migration


def test_rules_are_read_as_the_command_line_spells_them():
    migration = Migration.parse(["lookup=find"], ["find.q=query", "github.search.q=terms"],
                                ["find.verbose"])
    assert migration.tools == {"lookup": "find"}
    assert migration.arguments == {"find": {"q": "query", "verbose": None},
                                   "github.search": {"q": "terms"}}  # the last dot splits
    assert migration.options() == ["--rename-tool lookup=find", "--rename-arg find.q=query",
                                   "--drop-arg find.verbose", "--rename-arg github.search.q=terms"]
    assert not Migration.parse()


@pytest.mark.parametrize(("rules", "message"), [
    ({"rename_tool": ["lookup"]}, "--rename-tool takes OLD=NEW, got 'lookup'"),
    ({"rename_tool": ["=find"]}, "--rename-tool takes OLD=NEW"),
    ({"rename_arg": ["q=query"]}, "--rename-arg takes TOOL.OLD=NEW (the tool, a dot"),
    ({"rename_arg": ["find.q="]}, "--rename-arg takes TOOL.OLD=NEW, got 'find.q='"),
    ({"drop_arg": ["find."]}, "--drop-arg takes TOOL.NAME"),
    ({"rename_tool": ["a=b", "a=c"]}, "a is renamed twice"),
    ({"rename_arg": ["f.q=a"], "drop_arg": ["f.q"]}, "f.q has two rules"),
])
def test_a_rule_that_does_not_read_is_refused_by_name(rules, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        Migration.parse(**rules)


def test_an_argument_string_is_edited_where_it_changes():
    migration = Migration.parse(["lookup=find"], ["find.q=query"], ["find.n"])
    assert migration.call("lookup", '{"q": "caf\\u00e9", "n": 1, "x": true}') == (
        "find", '{"query": "caf\\u00e9", "x": true}')
    assert migration.call("find", '{"q":"长路"}') == ("find", '{"query":"长路"}')


def test_a_call_the_rules_do_not_touch_is_left_alone():
    migration = Migration.parse(["lookup=find"], ["find.q=query"])
    assert migration.call("other", '{"q": 1}') is None
    assert migration.call("find", '{"query": 1}') is None
    assert migration.call("lookup", "{}") == ("find", "{}")


def test_arguments_that_are_not_a_json_object_are_left_as_recorded():
    migration = Migration.parse(rename_arg=["find.q=query"])
    assert migration.call("find", '{"q": 1,}') is None  # sloppy: the binder's to repair
    assert migration.call("find", '"{\\"q\\": 1}"') is None


def test_a_rename_onto_a_key_the_call_has_is_left_undone():
    migration = Migration.parse(rename_arg=["find.q=query", "find.n=limit"])
    assert migration.arguments_object("find", {"q": 1, "query": 2, "n": 3}) == {
        "q": 1, "query": 2, "limit": 3}
