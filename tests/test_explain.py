"""``LocalToolExecutor.explain``: per parameter, the raw value, the bound value, the rule."""

from __future__ import annotations

from typing import Annotated

from agentforge_cli import P, tool
from agentforge_cli.core.executor import LocalToolExecutor


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
