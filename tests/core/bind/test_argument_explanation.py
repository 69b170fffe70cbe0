"""Each executor describes its own ``--explain`` (``explain_arguments``): rows agentforge
bound, or, for a tool bound elsewhere, what it is sent and a note naming who binds it."""

from __future__ import annotations

from typing import Annotated

from agentforge_cli import P, tool
from agentforge_cli.core.bind.argument_explanation import ExplanationRow, sent_explanation
from agentforge_cli.core.observe.calllog import LoggingToolExecutor
from agentforge_cli.core.run.executor import LocalToolExecutor

ROW_KEYS = ["parameter", "present", "raw", "value", "python", "type", "status", "rule"]


@tool
def unlock(name: str, pin: Annotated[int, P(sensitive=True)], retries: int = 3) -> str:
    return f"{name}:{pin}:{retries}"


def test_a_python_tool_explains_the_values_agentforge_binds():
    explained = LocalToolExecutor(unlock).explain_arguments('{"name":"door","pin":"1234"}')
    assert explained.error is None and not explained.bound_elsewhere
    assert explained.sent is None and explained.note is None
    rows = {row.parameter: row for row in explained.rows}
    assert all(isinstance(row, ExplanationRow) for row in explained.rows)
    assert rows["name"].as_json() == {
        "parameter": "name", "present": True, "raw": "door", "value": "door",
        "python": "'door'", "type": "str", "status": "bound",
        "rule": "JSON string taken as is for str"}
    assert (rows["pin"].raw, rows["pin"].value, rows["pin"].python) == ("***", "***", "***")
    assert list(rows["retries"].as_json()) == ROW_KEYS


def test_a_failing_parameter_stops_the_rows_as_a_call_would():
    explained = LocalToolExecutor(unlock).explain_arguments('{"name":"door","pin":"x"}')
    assert explained.error is not None and "pin" in explained.error
    statuses = [(row.parameter, row.status) for row in explained.rows]
    assert statuses == [("name", "bound"), ("pin", "failed"), ("retries", "not bound")]
    assert all(row.value is None for row in explained.rows[1:])


def test_a_wrapper_forwards_to_the_executor_it_wraps():
    logged = LoggingToolExecutor(LocalToolExecutor(unlock))
    explained = logged.explain_arguments('{"name":"door","pin":1}')
    assert [row.status for row in explained.rows] == ["bound", "bound", "bound"]


SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "days": {
    "type": "integer"}}, "required": ["city", "days"]}


def test_a_tool_bound_elsewhere_explains_what_it_is_sent():
    explained = sent_explanation(SCHEMA, '{"city": "Oslo", "extra": 1}', lead="bound there",
                                 bound_by="bound by lib", schema_label="schema")
    assert explained.bound_elsewhere and explained.error is None
    assert explained.sent == {"city": "Oslo", "extra": 1}
    assert [(row.parameter, row.status) for row in explained.rows] == [
        ("city", "sent"), ("days", "missing"), ("extra", "sent")]
    assert explained.rows[0].rule == 'bound by lib; schema: {"type": "string"} (required)'
    assert explained.rows[2].rule == "bound by lib; schema: not declared"
    assert all(row.python is None and row.value is None for row in explained.rows)
    lines = explained.note.splitlines() if explained.note else []
    assert lines[:3] == ["bound there", 'sent: {"city": "Oslo", "extra": 1}', "schema: {"]


def test_arguments_that_do_not_parse_are_said_so_and_nothing_is_sent():
    explained = sent_explanation(SCHEMA, "[1]", lead="bound there", bound_by="bound by lib",
                                 schema_label="inputSchema")
    assert explained.sent is None
    assert explained.error is not None
    assert explained.error.startswith("the arguments are not a JSON object")
    assert [row.status for row in explained.rows] == ["missing", "missing"]
    assert explained.note is not None and f"sent: {explained.error}" in explained.note
