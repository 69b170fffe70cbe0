"""What ``tools call`` decides from its flags (``CallChoices``) and the ``--json`` object
it prints for one call (``call_document``)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agentforge_cli import ToolExecutionRequest, build_local_tools, tool
from agentforge_cli.core.bind.argument_explanation import ArgumentExplanation
from agentforge_cli.core.define.spec import ToolExecutionResult
from agentforge_cli.core.run import call_document
from agentforge_cli.core.run.call_choices import CallChoices, check_call_timeout
from agentforge_cli.errors import CommandInputError, ToolExecutionError


class Notes:
    @tool
    def save(self, title: str, api_key: str) -> str:
        return title


def executor():
    (found,) = build_local_tools([Notes()]).values()
    return found


@pytest.mark.parametrize("timeout", [0.0, -1.0, float("nan")])
def test_a_timeout_that_is_not_positive_is_refused(timeout):
    with pytest.raises(CommandInputError, match="--timeout must be a positive number"):
        check_call_timeout(timeout)


def test_no_timeout_or_a_positive_one_passes():
    check_call_timeout(None)
    check_call_timeout(0.01)


def test_debug_traces_unless_errors_propagate():
    assert CallChoices(debug=True).traced and CallChoices(debug=True).propagates
    assert not CallChoices(debug=True, propagate_errors=True).traced
    assert CallChoices(propagate_errors=True).propagates
    assert not CallChoices().propagates


@pytest.mark.parametrize(("choices", "ran", "shown"), [
    (CallChoices(explain=True), "native", True),
    (CallChoices(explain=True), None, False),  # a Python tool has no binding note
    (CallChoices(binding="agentforge"), "native", True),  # asked for agentforge, fell back
    (CallChoices(binding="agentforge"), "agentforge", False),
    (CallChoices(explain=True, json_output=True), "native", False),
])
def test_the_binding_note_is_shown(choices, ran, shown):
    assert choices.shows_binding_note(ran) is shown


def test_repairs_are_looked_for_under_explain_unless_the_library_parses():
    assert CallChoices(explain=True).looks_for_repairs(None)
    assert not CallChoices(explain=True).looks_for_repairs("native")
    assert not CallChoices().looks_for_repairs(None)


def test_explanations_go_to_stderr_only_without_json():
    assert CallChoices(explain=True).notes and CallChoices(json_output=True).explains
    assert not CallChoices(explain=True, json_output=True).notes


def test_the_document_holds_bound_masked_arguments_in_a_fixed_order():
    request = ToolExecutionRequest(id="cli-1", name="save",
                                   arguments='{"title": "a", "api_key": "s3cret-value"}')
    explained = ArgumentExplanation(rows=(), error=None)
    document = call_document.call_document(request, None, executor(), explained, None)
    answer = call_document.answered(document, ToolExecutionResult("a"), None, ())
    assert list(answer) == ["name", "result", "is_error", "arguments", "id", "memory_id"]
    assert answer["arguments"]["title"] == "a"
    assert answer["arguments"]["api_key"] != "s3cret-value"


def test_arguments_that_do_not_bind_are_null():
    request = ToolExecutionRequest(id="cli-2", name="save", arguments='{"title": 1.5}')
    document = call_document.call_document(request, "m", executor(),
                                           ArgumentExplanation(rows=(), error=None), None)
    assert document["arguments"] is None and document["memory_id"] == "m"


def test_an_mcp_result_adds_its_blocks_and_explain_adds_rows_and_repairs():
    result = SimpleNamespace(text="ok", is_error=False, content=[{"type": "text"}],
                             structured_content={"n": 1})
    answer = call_document.answered({"name": "t", "id": "i", "memory_id": None}, result,
                                    [{"parameter": "n"}], ("a trailing comma",))
    assert list(answer) == ["name", "result", "is_error", "content", "structuredContent",
                            "id", "memory_id", "repairs", "explain"]
    assert answer["repairs"] == ["a trailing comma"]


def test_a_propagated_failure_names_its_cause():
    try:
        try:
            raise KeyError("k")
        except KeyError as cause:
            raise ToolExecutionError("save failed") from cause
    except ToolExecutionError as exc:
        failure = call_document.failed({"name": "save"}, exc, None)
    assert failure == {"name": "save", "result": None, "is_error": True,
                       "error": {"type": "ToolExecutionError", "message": "save failed",
                                 "cause": "KeyError: 'k'"}}
