"""``--explain`` in the core (``diagnostics.explain``): per parameter, the raw value, the
bound value and the rule; ``try_bind``: the values a call would receive."""

from __future__ import annotations

import logging
import re
from typing import Annotated, Any

import pytest

from agentforge_cli import P, build_local_tools, tool
from agentforge_cli.core.bind import diagnostics
from agentforge_cli.core.run.executor import LocalToolExecutor


@tool
def unlock(name: str, pin: Annotated[int, P(sensitive=True)], *, note: str | None,
           retries: int = 3) -> str:
    return f"{name}:{pin}:{retries}:{note}"


def explain(arguments, **options):
    return LocalToolExecutor(unlock, **options).explain(arguments)


def test_each_parameter_names_its_rule_and_value():
    result = explain('{"name":"door","pin":"1234"}')
    assert result.error is None
    rows = {t.name: t for t in result.traces}
    assert (rows["name"].value, rows["name"].rule) == (
        "door", "JSON string taken as is for str")
    assert rows["pin"].value == 1234 and rows["pin"].status == "bound"
    assert rows["pin"].rule == "JSON string <***> coerced to int"  # a secret stays masked
    assert rows["retries"].present is False
    assert (rows["retries"].value, rows["retries"].rule) == (
        3, "missing -> the parameter's default")
    assert (rows["note"].value, rows["note"].rule) == (None, "missing -> None (Optional)")


def test_binding_stops_at_the_first_failing_parameter():
    result = explain('{"name":"door","pin":"12ab","retries":"x"}')
    statuses = [(t.name, t.status) for t in result.traces]
    assert statuses == [("name", "bound"), ("pin", "failed"), ("note", "not bound"),
                        ("retries", "not bound")]
    assert "12ab" not in result.error and "<***>" in result.error
    assert result.error.startswith('Argument "pin"') and 'tool "unlock"' in result.error


def test_unparseable_arguments_bind_nothing():
    result = explain('{"name": ')
    assert all(t.status == "not bound" for t in result.traces)
    assert result.error.startswith("Arguments could not be parsed as JSON")


def test_a_parse_error_shows_the_text_received_masked_and_cut() -> None:
    # as docs/coercion.md says: the text is shown, secrets as ***, past 200 characters cut
    error = explain('{"name": "door", "password": "hunter2", "note": "' + "a" * 500).error
    assert "hunter2" not in error and '"password": "***"' in error
    assert "received: <{\"name\": \"door\"" in error and re.search(r"… \(\d+ characters\)>", error)
    assert "Unterminated string starting at line 1 column 49" in error  # one "at"


def test_strict_mode_reports_unknown_keys_after_the_parameters():
    result = explain('{"name":"door","pin":1,"colour":"red"}', strict=True)
    assert [t.status for t in result.traces] == ["bound"] * 4
    assert '"colour"' in result.error


def test_explain_never_calls_the_tool():
    calls = []

    @tool
    def record(x: int) -> str:
        calls.append(x)
        return "called"

    assert LocalToolExecutor(record).explain('{"x": 1}').traces[0].value == 1
    assert calls == []


@tool
def counts(n: int, ratio: float, flag: bool, label: str) -> str:
    return "ok"


def test_a_missing_value_names_its_lenient_default():
    explained = LocalToolExecutor(counts, strict=False).explain("{}")
    rules = {t.name: (t.value, t.rule) for t in explained.traces}
    assert rules == {"n": (0, "missing int -> 0 (lenient default)"),
                     "ratio": (0.0, "missing float -> 0.0 (lenient default)"),
                     "flag": (False, "missing bool -> False (lenient default)"),
                     "label": (None, "missing str -> None (lenient default)")}


def test_the_method_and_the_function_agree_through_the_logging_wrapper():
    (logged,) = build_local_tools([unlock], logging=True).values()
    direct = LocalToolExecutor(unlock).explain('{"name":"door","pin":"1"}')
    assert diagnostics.explain(logged, '{"name":"door","pin":"1"}') == direct
    assert logged.explain('{"name":"door","pin":"1"}') == direct


def test_explain_and_try_bind_answer_none_for_an_executor_that_is_not_local():
    class Remote:
        def execute(self, request, memory_id=None):
            raise AssertionError("never called")

    assert diagnostics.explain(Remote(), "{}") is None
    assert diagnostics.try_bind(Remote(), "{}") is None


def test_try_bind_gives_python_values_or_none():
    executor = LocalToolExecutor(unlock)
    definition, values = diagnostics.try_bind(executor, '{"name":"door","pin":"12"}')
    assert definition is executor.definition
    assert values == {"name": "door", "pin": 12, "note": None, "retries": 3}
    assert diagnostics.try_bind(executor, '{"pin":"12ab"}') is None
    assert diagnostics.try_bind(LocalToolExecutor(unlock, wrap_argument_errors=True),
                                '{"pin":"12ab"}') is None


@tool
def configure(settings: dict[str, Any]) -> str:
    return "ok"


@pytest.mark.parametrize("settings", [{"api_token": "tok-123", "region": "eu"},
                                      '{"api_token":"tok-123","region":"eu"}'])
def test_a_rule_masks_secret_keys_nested_in_a_coerced_value(settings):
    trace = LocalToolExecutor(configure).explain({"settings": settings}).traces[0]
    assert trace.status == "bound" and trace.value["api_token"] == "tok-123"
    assert "tok-123" not in trace.rule and "***" in trace.rule and "eu" in trace.rule


def test_explaining_logs_nothing(caplog):
    (logged,) = build_local_tools([unlock], logging=True).values()
    with caplog.at_level(logging.INFO, logger="agentforge.tools"):
        diagnostics.explain(logged, '{"name":"door","pin":"1"}')
    assert caplog.records == []
