"""The scripted model: steps played in order, each call checked against the tool's
binding first (an unknown tool, a missing argument, a refused value name the step, the
tool, the parameter, the type and the value), a script played out, script files, and
the pytest fixture in a throw-away session."""

from __future__ import annotations

import json
import sys
from importlib.metadata import entry_points

import pytest

from agentforge_cli import ToolService
from agentforge_cli.integrations.targets.loading import load_service
from agentforge_cli.models.prompt import Prompt
from agentforge_cli.testing import (
    ScriptedModel,
    ScriptError,
    call,
    calls,
    read_script,
    refused,
    say,
)

pytest_plugins = ["pytester"]

CRM = "sample_tools.crm:CrmTools"
ASKED = Prompt(None, (), [])


@pytest.fixture
def crm():
    return load_service([CRM], strict=True)


def test_steps_play_in_order_as_replies(crm):
    model = ScriptedModel([call("queryCustomer", name="长路", limit=5), say("done")], crm)
    first = model.ask(ASKED)
    assert [(c.name, json.loads(c.arguments)) for c in first.calls] == [
        ("queryCustomer", {"name": "长路", "limit": 5})]
    assert model.ask(ASKED).text == "done"
    assert model.prompts == [ASKED, ASKED] and model.remaining == 0


def test_parallel_calls_have_distinct_ids(crm):
    reply = ScriptedModel([calls(("queryCustomer", {"name": "a", "limit": 1}),
                                 ("queryCustomer", {"name": "b", "limit": 2}),
                                 text="two at once")], crm).ask(ASKED)
    assert len({c.id for c in reply.calls}) == 2 and reply.text == "two at once"


@pytest.mark.parametrize(("step", "message"), [
    (call("queryCustomr", name="x", limit=1),
     "script step 2: queryCustomr: no tool 'queryCustomr' among the tools (queryCustomer)"),
    (call("queryCustomer", name="x"),
     'script step 2: queryCustomer: Required parameter "limit" of tool "queryCustomer" '
     "is missing"),
    (call("queryCustomer", name="x", limit="five"),
     "script step 2: queryCustomer: parameter 'limit': expected int, got \"five\" "
     "(has non-integer value for int: <five>)"),
    (call("queryCustomer", name="x", limit=1, region="cn"),
     'script step 2: queryCustomer: "region" is not a parameter of tool "queryCustomer"'),
])
def test_a_step_that_does_not_bind_is_refused_before_anything_plays(crm, step, message):
    with pytest.raises(ScriptError) as info:
        ScriptedModel([call("queryCustomer", name="x", limit=1), step], crm)
    assert str(info.value).startswith(message)


def test_the_coercion_table_applies_as_to_a_model(crm):
    model = ScriptedModel([call("queryCustomer", name="x", limit="5")], crm)
    assert model.ask(ASKED).calls[0].arguments == '{"name":"x","limit":"5"}'


def test_a_step_is_checked_again_when_it_plays(crm):
    model = ScriptedModel([call("queryCustomer", name="x", limit=1)])  # no tools yet
    model.tools = ToolService()  # the tool is gone by the time the step plays
    with pytest.raises(ScriptError, match=r"script step 1: queryCustomer: no tool .* \(none\)"):
        model.ask(ASKED)
    assert model.prompts == []


def test_a_played_out_script_says_so(crm):
    model = ScriptedModel([say("only")], crm)
    model.ask(ASKED)
    with pytest.raises(ScriptError, match="the script has 1 steps and is played out: "
                                          "the model was asked a 2nd time"):
        model.ask(ASKED)


def test_a_script_file(tmp_path, crm):
    path = tmp_path / "s.json"
    path.write_text(json.dumps([{"call": "queryCustomer", "arguments": {"name": "x", "limit": 1}},
                                {"calls": [{"name": "queryCustomer",
                                            "arguments": {"name": "y", "limit": 2}}],
                                 "text": "t"}, "the end"]), encoding="utf-8")
    steps = read_script(path)
    assert [len(s.calls) for s in steps] == [1, 1, 0] and steps[2].text == "the end"
    ScriptedModel(steps, crm)
    path.write_text('[{"cal": "x"}]', encoding="utf-8")
    with pytest.raises(ScriptError, match="script step 1: not a step"):
        read_script(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ScriptError, match="cannot read the script"):
        read_script(path)


FIXTURE_TEST = '''
import pytest
from agentforge_cli.testing import ScriptError, call, say

def test_plays(agentforge_scripted_model):
    model = agentforge_scripted_model([call("queryCustomer", name="长路", limit=5), say("ok")])
    assert model.remaining == 2

def test_drifted_script(agentforge_scripted_model):
    agentforge_scripted_model([say("hi"), call("queryCustomer", name="长路", limt=5)])
'''


def test_the_fixture_checks_the_script_against_the_configured_tools(pytester):
    pytester.makepyfile(test_script=FIXTURE_TEST)
    installed = any(ep.value == "agentforge_cli.integrations.pytest.plugin"
                    for ep in entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "agentforge_cli.integrations.pytest.plugin"]
    pytester.syspathinsert(str(__import__("pathlib").Path(__file__).resolve().parents[2]))
    result = pytester.runpytest_subprocess(*plugin, "--agentforge-tools", CRM,
                                           "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*ScriptError: script step 2: queryCustomer: *limt*"])
    assert sys.executable


def test_a_refused_step_must_be_refused(crm):
    model = ScriptedModel([refused("queryCustomer", name="x"), say("sorry")], crm)
    assert model.ask(ASKED).calls[0].arguments == '{"name":"x"}'
    with pytest.raises(ScriptError) as info:
        ScriptedModel([refused("queryCustomer", name="x", limit=1)], crm)
    assert str(info.value) == ('script step 1: queryCustomer: marked refused, but '
                               '{"name": "x", "limit": 1} binds')
