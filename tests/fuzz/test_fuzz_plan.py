"""What ``tools fuzz`` checks and chooses before calling a tool, and what its reports mean
for the run (``fuzz/plan.py``)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agentforge_cli.errors import CommandInputError
from agentforge_cli.fuzz.plan import (
    check_audit_options,
    check_names,
    check_options,
    plan_fuzz,
    run_failed,
    shown_name,
    skip_notes,
)


@pytest.mark.parametrize(("examples", "timeout", "crash", "allow", "message"), [
    (0, 5.0, [], [], "--examples must be at least 1, got 0"),
    (1, 0.0, [], [], "--timeout must be a positive number of seconds, got 0"),
    (1, 5.0, ["not a name"], [], "--crash takes an exception class name such as ValueError "
                                 "or package.module.Error, got 'not a name'"),
    (1, 5.0, ["KeyError"], ["KeyError"], "KeyError is given to both --crash and --allow"),
])
def test_options_are_refused_naming_the_option(examples, timeout, crash, allow, message):
    with pytest.raises(CommandInputError) as refused:
        check_options(examples, timeout, crash, allow)
    assert refused.value.message == message


def test_good_options_pass():
    check_options(1, 0.5, ["pkg.mod.Error"], ["ValueError"])


def test_audit_takes_no_examples_but_not_fewer():
    check_audit_options(0, 5.0)
    with pytest.raises(CommandInputError, match="--examples must be 0 or more, got -1"):
        check_audit_options(-1, 5.0)
    with pytest.raises(CommandInputError, match="--timeout must be a positive number"):
        check_audit_options(1, -2.0)


def test_an_unknown_tool_is_refused_naming_it():
    with pytest.raises(CommandInputError, match="nope"):
        check_names(["add", "nope"], ["add", "sub"])
    check_names([], ["add"])


def spec(name, **annotations):
    return SimpleNamespace(name=name, annotations=annotations or None, execution=None)


def test_the_plan_selects_the_named_tools_in_the_services_order():
    specs = [spec("a"), spec("b"), spec("c")]
    plan = plan_fuzz(specs, names=["c", "a"], examples=3, seed=7, crash=(), allow=(),
                     include_destructive=False, allow_effects=False, served=frozenset())
    assert plan.selected == ["a", "c"]
    assert (plan.options.seed, plan.options.examples, plan.options.chosen) == (
        7, 3, frozenset({"a", "c"}))


def test_without_a_seed_the_plan_draws_one():
    plan = plan_fuzz([spec("a")], names=(), examples=1, seed=None, crash=(), allow=(),
                     include_destructive=False, allow_effects=False, served=frozenset())
    assert plan.selected == ["a"] and 0 <= plan.options.seed < 2**32


def test_skip_notes_say_why_a_tool_is_not_called_or_not_guarded():
    specs = [spec("wipe", destructiveHint=True), spec("note", readOnlyHint=False), spec("ok")]
    plan = plan_fuzz(specs, names=(), examples=1, seed=1, crash=(), allow=(),
                     include_destructive=False, allow_effects=False, served=frozenset())
    assert skip_notes(specs, plan) == [
        "skipped wipe: destructive (destructiveHint): run with --include-destructive to call it"]
    plan = plan_fuzz(specs, names=(), examples=1, seed=1, crash=(), allow=(),
                     include_destructive=True, allow_effects=False, served=frozenset())
    assert [note.split(":")[0] for note in skip_notes(specs, plan)] == [
        "effects allowed for wipe", "effects allowed for note"]


def test_a_run_fails_on_a_finding_or_when_every_tool_is_skipped():
    found = SimpleNamespace(failed=True, skipped=None)
    clean = SimpleNamespace(failed=False, skipped=None)
    skipped = SimpleNamespace(failed=False, skipped="destructive")
    assert run_failed([clean, found])
    assert run_failed([skipped, skipped])
    assert not run_failed([clean, skipped])
    assert not run_failed([])


def test_names_are_shown_on_one_line_without_control_characters():
    assert "\x1b" not in shown_name("evil\x1b[2Jname\n")
    assert "\n" not in shown_name("two\nlines")
