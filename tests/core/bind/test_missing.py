"""Missing or null arguments: Python defaults, ``None`` for Optional, strict binding (the
default), and the lenient mode's defaults, which never break a declared constraint."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import Annotated, Literal, Optional

import pytest

from agentforge_cli import P, ToolExecutionRequest, ToolService, build_local_tools, tool
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ArgumentError, ToolArgumentsError
from sample_tools.crm import CrmTools


class Mode(Enum):
    FAST = 1
    SLOW = 2


@dataclass
class Box:
    label: str
    weight: int = 1
    fragile: bool | None = None


class Seen:
    def __init__(self) -> None:
        self.calls: list[dict] = []

    @tool
    def defaults(self, count: int = 3, ratio: float = 0.5, flag: bool = True,
                 name: str = "anon", mode: Mode = Mode.SLOW) -> None:
        self.calls.append(dict(count=count, ratio=ratio, flag=flag, name=name, mode=mode))

    @tool
    def optionals(self, a: int | None, b: Optional[str], c: Box | None,  # noqa: UP045
                  d: list[int] | None) -> None:
        self.calls.append(dict(a=a, b=b, c=c, d=d))

    @tool
    def lenient_defaults(self, i: int, f: float, b: bool, s: str, d: Decimal,
                         items: list[int], box: Box) -> None:
        self.calls.append(dict(i=i, f=f, b=b, s=s, d=d, items=items, box=box))

    @tool
    def optional_with_default(self, limit: int | None = 10) -> None:
        self.calls.append(dict(limit=limit))

    @tool
    def boxed(self, box: Box) -> None:
        self.calls.append(dict(box=box))


def run(method_name: str, arguments: str, **options) -> tuple[Seen, object]:
    seen = Seen()
    executor = LocalToolExecutor(getattr(seen, method_name), **options)
    result = executor.execute(ToolExecutionRequest(name=method_name, arguments=arguments))
    return seen, result


@pytest.mark.parametrize("arguments", ["{}", '{"count":null,"ratio":null,"flag":null,'
                                             '"name":null,"mode":null}', "", "null"])
def test_python_default_wins_over_missing_and_null(arguments):
    seen, result = run("defaults", arguments)
    assert result == ("Success", False)
    assert seen.calls == [dict(count=3, ratio=0.5, flag=True, name="anon", mode=Mode.SLOW)]


def test_given_values_override_defaults():
    seen, _ = run("defaults", '{"count":1,"ratio":2,"flag":false,"name":"x","mode":"fast"}')
    assert seen.calls == [dict(count=1, ratio=2.0, flag=False, name="x", mode=Mode.FAST)]


@pytest.mark.parametrize("arguments", ["{}", '{"a":null,"b":null,"c":null,"d":null}'])
def test_optional_parameters_become_none(arguments):
    seen, result = run("optionals", arguments)
    assert result.is_error is False
    assert seen.calls == [dict(a=None, b=None, c=None, d=None)]


def test_optional_default_wins_over_null():
    seen, _ = run("optional_with_default", '{"limit":null}')
    assert seen.calls == [dict(limit=10)]
    seen, _ = run("optional_with_default", '{"limit":"4"}')
    assert seen.calls == [dict(limit=4)]


def test_lenient_defaults_for_missing_required_parameters():
    seen, result = run("lenient_defaults", "{}", strict=False)
    assert result.is_error is False
    (call,) = seen.calls
    assert call == dict(i=0, f=0.0, b=False, s=None, d=None, items=None, box=None)
    assert type(call["i"]) is int
    assert type(call["f"]) is float
    assert type(call["b"]) is bool


def test_null_is_the_same_as_missing_for_lenient_defaults():
    seen, _ = run("lenient_defaults", '{"i":null,"f":null,"b":null,"s":null,"d":null,'
                                      '"items":null,"box":null}', strict=False)
    assert seen.calls == [dict(i=0, f=0.0, b=False, s=None, d=None, items=None, box=None)]


def test_null_field_of_object_is_missing():
    seen, _ = run("boxed", '{"box":{"label":"a","weight":null,"fragile":null}}')
    assert seen.calls == [dict(box=Box("a", 1, None))]
    with pytest.raises(ArgumentError, match=r'Argument "box\.label"'):
        run("boxed", '{"box":{"label":null}}')


def test_unknown_keys_are_ignored_in_lenient_mode():
    seen, result = run("defaults", '{"count":2,"colour":"red","extra":{"a":1}}', strict=False)
    assert result.is_error is False
    assert seen.calls[0]["count"] == 2


# --- strict binding, the default -----------------------------------------------------------

QUERY_TAKES = "queryCustomer takes name (string), limit (integer)"


def test_a_missing_required_parameter_is_an_error_by_default():
    executor = LocalToolExecutor(CrmTools().queryCustomer)
    with pytest.raises(ArgumentError) as info:
        executor.execute(ToolExecutionRequest(name="queryCustomer",
                                              arguments='{"name":"长路"}'))
    assert str(info.value) == (
        f'Required parameter "limit" of tool "queryCustomer" is missing; {QUERY_TAKES}')


def test_strict_null_for_required_parameter_is_missing():
    executor = LocalToolExecutor(CrmTools().queryCustomer, strict=True)
    with pytest.raises(ArgumentError) as info:
        executor.execute(ToolExecutionRequest(name="queryCustomer",
                                              arguments='{"name":"长路","limit":null}'))
    assert str(info.value) == (
        f'Required parameter "limit" of tool "queryCustomer" is missing; {QUERY_TAKES}')


def test_strict_still_applies_defaults_and_optional():
    seen, result = run("defaults", "{}", strict=True)
    assert result.is_error is False
    assert seen.calls[0]["count"] == 3
    seen, result = run("optionals", "{}", strict=True)
    assert result.is_error is False
    assert seen.calls == [dict(a=None, b=None, c=None, d=None)]


def test_strict_forced_required_parameter_with_default():
    class Forced:
        @tool
        def forced(self, page: Annotated[int, P(required=True)] = 1) -> int:
            return page

    executor = LocalToolExecutor(Forced().forced, strict=True)
    with pytest.raises(ArgumentError, match=r'Required parameter "page" of tool "forced"'):
        executor.execute(ToolExecutionRequest(name="forced", arguments="{}"))
    lenient = LocalToolExecutor(Forced().forced, strict=False)
    assert lenient.execute(ToolExecutionRequest(name="forced", arguments="{}")).text == "1"


def test_unknown_keys_are_an_error_by_default_and_each_is_named():
    executor = LocalToolExecutor(CrmTools().queryCustomer)
    with pytest.raises(ArgumentError) as info:
        executor.execute(ToolExecutionRequest(
            name="queryCustomer", arguments='{"name":"长路","limit":5,"colour":"red","zz":1}'))
    assert str(info.value) == (
        '"colour" is not a parameter of tool "queryCustomer"; "zz" is not a parameter of '
        f'tool "queryCustomer". {QUERY_TAKES}')


class Cluster:
    @tool
    def scale_service(self, name: str, count: Annotated[int, P(minimum=1, maximum=50)],
                      env: Literal["prod", "staging"] = "staging") -> str:
        return f"{name}@{env}: {count}"


SCALE_TAKES = ("scale_service takes name (string), count (integer 1..50), "
               "env (enum(prod, staging), optional)")


@pytest.mark.parametrize("strict", [True, False])
def test_a_renamed_parameter_sent_under_its_old_name_is_refused_naming_the_new_one(strict):
    """``replicas`` became ``count``: a model still sending ``replicas`` is told, in both
    modes, rather than getting a default (the lenient one, 0, is below the minimum)."""
    executor = LocalToolExecutor(Cluster().scale_service, strict=strict)
    with pytest.raises(ArgumentError) as info:
        executor.execute(ToolExecutionRequest(
            name="scale_service", arguments='{"name":"checkout","replicas":3}'))
    if strict:
        assert str(info.value) == ('"replicas" is not a parameter of tool "scale_service"; '
                                   f'did you mean "count"? {SCALE_TAKES}')
    else:
        assert str(info.value) == (
            'Required parameter "count" of tool "scale_service" is missing, and the lenient '
            "default 0 is out of range for int (minimum 1, maximum 50); send a value")


def test_the_closest_spelling_is_suggested_among_the_parameters_not_sent():
    executor = LocalToolExecutor(Cluster().scale_service)
    with pytest.raises(ArgumentError, match=r'"nmae" is not a parameter of tool '
                                            r'"scale_service"; did you mean "name"\?'):
        executor.execute(ToolExecutionRequest(name="scale_service",
                                              arguments='{"nmae":"a","count":2}'))
    with pytest.raises(ArgumentError) as info:  # nothing close, nothing missing: no guess
        executor.execute(ToolExecutionRequest(
            name="scale_service", arguments='{"name":"a","count":2,"colour":"red"}'))
    assert "did you mean" not in str(info.value)


def test_a_long_or_hostile_unknown_key_is_shown_short_and_on_one_line():
    executor = LocalToolExecutor(Cluster().scale_service)
    key = "x\\n" * 10_000
    with pytest.raises(ArgumentError) as info:
        executor.execute(ToolExecutionRequest(
            name="scale_service", arguments=f'{{"name":"a","count":2,"{key}":1}}'))
    message = str(info.value)
    assert "\n" not in message and len(message) < 400


def test_strict_through_build_local_tools_and_service():
    service = ToolService().tools(build_local_tools([CrmTools()]))
    result = service.execute(ToolExecutionRequest(name="queryCustomer",
                                                  arguments='{"name":"长路"}'))
    assert result == (
        f'Required parameter "limit" of tool "queryCustomer" is missing; {QUERY_TAKES}', True)
    ok = service.execute(ToolExecutionRequest(name="queryCustomer",
                                              arguments='{"name":"长路","limit":5}'))
    assert ok == ("customer:长路,limit:5", False)


def test_strict_error_is_wrapped_when_configured():
    executor = LocalToolExecutor(CrmTools().queryCustomer, strict=True,
                                 wrap_argument_errors=True)
    with pytest.raises(ToolArgumentsError) as info:
        executor.execute(ToolExecutionRequest(name="queryCustomer", arguments="{}"))
    assert 'Required parameter "name" of tool "queryCustomer" is missing' in str(info.value)
    assert isinstance(info.value.__cause__, ArgumentError)


# --- lenient mode: a filled-in value keeps every declared constraint -----------------------

def test_lenient_missing_crm_limit_is_zero():
    executor = LocalToolExecutor(CrmTools().queryCustomer, strict=False)
    result = executor.execute(ToolExecutionRequest(name="queryCustomer",
                                                   arguments='{"name":"长路"}'))
    assert result.text == "customer:长路,limit:0"


class Constrained:
    @tool
    def bounded(self, n: Annotated[int, P(minimum=1)]) -> int:
        return n

    @tool
    def ratio(self, r: Annotated[float, P(maximum=-1)]) -> float:
        return r

    @tool
    def choice(self, mode: Literal["a", "b"]) -> str:
        return mode

    @tool
    def member(self, mode: Mode) -> str:
        return str(mode)

    @tool
    def loose(self, n: Annotated[int, P(minimum=0, required=False)]) -> int:
        return n

    @tool
    def unbound(self, n: Annotated[int, P(maximum=5, required=False)],
                token: Annotated[int, P(minimum=3, sensitive=True)]) -> int:
        return n


@pytest.mark.parametrize(("name", "broken"), [
    ("bounded", "0 is out of range for int (minimum 1)"),
    ("ratio", "0.0 is out of range for float (maximum -1)"),
    ("choice", "None is not one of the values of Literal['a', 'b']"),
    ("member", "None is not a valid enum value for Mode: <null> (expected one of: FAST, SLOW)"),
])
@pytest.mark.parametrize("arguments", ["{}", '{"n":null,"r":null,"mode":null}'])
def test_a_lenient_default_that_breaks_a_constraint_is_refused_naming_it(name, broken,
                                                                          arguments):
    executor = LocalToolExecutor(getattr(Constrained(), name), strict=False)
    with pytest.raises(ArgumentError) as info:
        executor.execute(ToolExecutionRequest(name=name, arguments=arguments))
    key = "n" if name == "bounded" else "r" if name == "ratio" else "mode"
    assert str(info.value) == (f'Required parameter "{key}" of tool "{name}" is missing, and '
                               f"the lenient default {broken}; send a value")


def test_a_lenient_default_inside_the_constraints_is_passed():
    executor = LocalToolExecutor(Constrained().loose, strict=False)
    assert executor.execute(ToolExecutionRequest(name="loose", arguments="{}")) == ("0", False)


def test_an_optional_parameter_left_out_is_filled_only_when_the_value_keeps_its_bounds():
    """``required=False`` without a default: even strict binding fills it, so the filled
    value is checked too; a secret's lenient default is never shown."""
    for strict in (True, False):
        executor = LocalToolExecutor(Constrained().unbound, strict=strict)
        result = executor.execute(ToolExecutionRequest(name="unbound", arguments='{"token":4}'))
        assert result == ("0", False)
    lenient = LocalToolExecutor(Constrained().unbound, strict=False)
    with pytest.raises(ArgumentError) as info:
        lenient.execute(ToolExecutionRequest(name="unbound", arguments='{"n":1}'))
    assert str(info.value) == ('Required parameter "token" of tool "unbound" is missing, and '
                               "the lenient default *** is out of range for int (minimum 3); "
                               "send a value")


# --- a failing call says what was filled in -----------------------------------------------

class Tickets:
    @tool
    def create_ticket(self, subject: str, customer: Box, priority: int) -> str:
        return f"{subject} for {customer.label} at {10 // priority}"

    @tool
    async def create_later(self, subject: str, customer: Box) -> str:
        return f"{subject} for {customer.label}"

    @tool
    def paged(self, page: int = 1, size: int | None = None) -> str:
        raise RuntimeError(f"page {page} of {size} is gone")


NO_LABEL = "'NoneType' object has no attribute 'label'"


@pytest.mark.parametrize("options", [{}, {"timeout": 5.0}], ids=["fast path", "general"])
def test_a_failure_after_a_missing_required_argument_names_it_first(options):
    executor = LocalToolExecutor(Tickets().create_ticket, strict=False, **options)
    result = executor.execute(ToolExecutionRequest(
        name="create_ticket", arguments='{"subject":"Refund","priority":2}'))
    assert result == (f'"customer" was missing and was passed as None; then: {NO_LABEL}',
                      True)


def test_several_missing_arguments_are_named_with_their_values():
    executor = LocalToolExecutor(Tickets().create_ticket, strict=False)
    result = executor.execute(ToolExecutionRequest(
        name="create_ticket", arguments='{"subject":"Refund","customer":{"label":"a"},'
                                        '"priority":null}'))
    assert result == ('"priority" was missing and was passed as 0; then: '
                      "integer division or modulo by zero", True)
    result = executor.execute(ToolExecutionRequest(name="create_ticket", arguments="{}"))
    assert result.text == ('"subject", "customer" and "priority" were missing and were '
                           f"passed as None, None and 0; then: {NO_LABEL}")


def test_a_failure_with_every_required_argument_given_is_the_tools_own_message():
    executor = LocalToolExecutor(Tickets().create_ticket, strict=False)
    result = executor.execute(ToolExecutionRequest(
        name="create_ticket", arguments='{"subject":"x","customer":{"label":"a"},'
                                        '"priority":0}'))
    assert result == ("integer division or modulo by zero", True)
    paged = LocalToolExecutor(Tickets().paged, strict=False)  # defaults are not "missing required"
    assert paged.execute(ToolExecutionRequest(name="paged", arguments="{}")) == (
        "page 1 of None is gone", True)


def test_a_success_after_a_missing_argument_is_unchanged():
    executor = LocalToolExecutor(Tickets().create_ticket, strict=False)
    result = executor.execute(ToolExecutionRequest(
        name="create_ticket", arguments='{"customer":{"label":"a"},"priority":1}'))
    assert result == ("None for a at 10", False)


def test_the_note_reaches_async_calls_and_propagated_errors():
    import asyncio

    from agentforge_cli.errors import ToolExecutionError

    executor = LocalToolExecutor(Tickets().create_later, strict=False)
    request = ToolExecutionRequest(name="create_later", arguments='{"subject":"Refund"}')
    expected = f'"customer" was missing and was passed as None; then: {NO_LABEL}'
    assert executor.execute(request) == (expected, True)
    assert asyncio.run(executor.aexecute(request)) == (expected, True)
    propagating = LocalToolExecutor(Tickets().create_ticket, strict=False,
                                    propagate_execution_errors=True)
    with pytest.raises(ToolExecutionError) as info:
        propagating.execute(ToolExecutionRequest(name="create_ticket",
                                                 arguments='{"priority":1}'))
    assert str(info.value).startswith('"subject" and "customer" were missing and were '
                                      "passed as None and None; then: ")


def test_a_rebound_executor_keeps_the_note():
    executor = LocalToolExecutor(Tickets().create_ticket, strict=False)
    other = executor.rebound(Tickets().create_ticket)
    result = other.execute(ToolExecutionRequest(name="create_ticket",
                                                arguments='{"subject":"x","priority":1}'))
    assert result.text.startswith('"customer" was missing and was passed as None; then: ')


def test_a_missing_secret_default_is_not_shown():
    class Vault:
        @tool
        def unlock(self, api_token: Annotated[str, P(required=True)] = "s3cr3t") -> str:
            raise RuntimeError("locked")

    result = LocalToolExecutor(Vault().unlock, strict=False).execute(
        ToolExecutionRequest(name="unlock", arguments="{}"))
    assert result == ('"api_token" was missing and was passed as ***; then: locked', True)
