"""The pieces of the fuzz engine: the crash rule, the sloppy forms, the generator."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from agentforge_cli import build_local_tools
from agentforge_cli.fuzz.classify import CrashRule
from agentforge_cli.fuzz.forms import FORMS, render
from sample_tools import crm, shop, weather


def raised(function) -> BaseException:
    try:
        function()
    except Exception as exc:
        return exc
    raise AssertionError("did not raise")


def test_a_subscript_key_error_is_a_crash_a_raised_one_is_not():
    rule = CrashRule.build()

    def subscript():
        return {}["missing"]

    def pop():
        return {}.pop("missing")

    def on_purpose():
        raise KeyError("no issue #9")

    assert rule.is_crash(raised(subscript))
    assert rule.is_crash(raised(pop))
    assert not rule.is_crash(raised(on_purpose))


def test_the_default_crash_classes_and_the_options():
    rule = CrashRule.build()
    assert rule.is_crash(raised(lambda: 1 / 0))
    assert rule.is_crash(raised(lambda: None.x))
    assert not rule.is_crash(ValueError("no"))
    assert not rule.is_crash(LookupError("no"))
    assert CrashRule.build(crash=["LookupError"]).is_crash(LookupError("x"))
    assert not CrashRule.build(allow=["ArithmeticError"]).is_crash(raised(lambda: 1 / 0))
    assert CrashRule.build(crash=["builtins.OSError"]).is_crash(PermissionError("x"))


def test_the_sloppy_forms():
    args = {"n": 5, "items": [1, {"x": 2.5}], "flag": True, "note": "x"}
    required = {"n", "items"}
    written = {form: render(form, args, required) for form in FORMS}
    assert written["clean"] == '{"n":5,"items":[1,{"x":2.5}],"flag":true,"note":"x"}'
    assert json.loads(written["string numbers"]) == {
        "n": "5", "items": ["1", {"x": "2.5"}], "flag": True, "note": "x"}
    assert json.loads(written["double-encoded containers"])["items"] == '[1,{"x":2.5}]'
    assert json.loads(json.loads(written["double-encoded arguments"])) == args
    assert written["trailing commas"] == '{"n":5,"items":[1,{"x":2.5,},],"flag":true,"note":"x",}'
    assert json.loads(written["missing optional keys"]) == {"n": 5, "items": [1, {"x": 2.5}]}
    assert json.loads(written["nulls"]) == {"n": 5, "items": [1, {"x": 2.5}], "flag": None,
                                            "note": None}


@pytest.mark.parametrize("spec", list(build_local_tools([crm.CrmTools(), weather, shop])),
                         ids=lambda spec: spec.name)
def test_generated_arguments_are_schema_valid(spec):
    from hypothesis import HealthCheck, given, seed, settings

    from agentforge_cli.fuzz.strategies import arguments

    validator = Draft202012Validator(spec.parameters)
    seen = []

    @settings(max_examples=25, database=None, suppress_health_check=list(HealthCheck))
    @seed(0)
    @given(arguments(spec.parameters))
    def check(args):
        assert validator.is_valid(args)
        seen.append(args)

    check()
    assert seen
