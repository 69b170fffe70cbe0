"""Property-based tests: whatever a model sends, every sample tool answers with a result.

For every tool in ``sample_tools``, arbitrary JSON values under the tool's own parameter
keys, arbitrary JSON documents and arbitrary text are pushed through ``ToolService``; the
answer is always a ``ToolExecutionResult`` (a success string or an error the model can
read) — never an exception escaping the service.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools
from agentforge_cli.core.define.spec import ToolExecutionResult
from sample_tools import crm, shop, weather

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

json_scalars = (st.none() | st.booleans() | st.integers() | st.text(max_size=20)
                | st.floats(allow_nan=False, allow_infinity=False))
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


def _service() -> ToolService:
    service = ToolService()
    service.tools(build_local_tools([crm.CrmTools(), weather, shop.ShopTools()]))
    return service


SERVICE = _service()
TOOLS = [(spec.name, list(spec.parameters["properties"])) for spec in SERVICE.specifications]


def _answer(name: str, arguments: str) -> ToolExecutionResult:
    result = SERVICE.execute(ToolExecutionRequest(id="call_p", name=name,
                                                  arguments=arguments))
    assert isinstance(result, ToolExecutionResult)
    assert isinstance(result.text, str) and isinstance(result.is_error, bool)
    if result.is_error:
        assert result.text.strip(), "an error result always says something"
    return result


@pytest.mark.parametrize(("name", "keys"), TOOLS, ids=[n for n, _ in TOOLS])
@SETTINGS
@given(data=st.data())
def test_arbitrary_values_under_the_tools_own_keys(name, keys, data):
    arguments = {key: data.draw(json_values, label=key)
                 for key in keys if data.draw(st.booleans(), label=f"send {key}")}
    _answer(name, json.dumps(arguments, ensure_ascii=False))


@pytest.mark.parametrize(("name", "keys"), TOOLS, ids=[n for n, _ in TOOLS])
@SETTINGS
@given(value=json_values)
def test_arbitrary_json_documents(name, keys, value):
    _answer(name, json.dumps(value))


@SETTINGS
@given(text=st.text(max_size=200))
def test_arbitrary_text(text):
    for name, _ in TOOLS:
        _answer(name, text)


@SETTINGS
@given(value=json_values)
def test_a_double_encoded_object_binds_like_the_object(value):
    arguments = json.dumps({"name": "长路", "limit": 5, "extra": value})
    plain = _answer("queryCustomer", arguments)
    twice = _answer("queryCustomer", json.dumps(arguments))
    assert plain == twice
    assert plain.is_error and plain.text.startswith(
        '"extra" is not a parameter of tool "queryCustomer"')
    given = json.dumps({"name": "长路", "limit": value if isinstance(value, int) else 5})
    assert _answer("queryCustomer", json.dumps(given)) == _answer("queryCustomer", given)


def test_a_hostile_call_does_not_poison_the_next():
    hostile = ["[" * 100_000, '{"limit": 1' + "0" * 5000 + "}", '{"limit": NaN}',
               '{"name": "\\ud800", "limit": 1e-999}', "x" * 2_000_000]
    for arguments in hostile:
        assert _answer("queryCustomer", arguments).is_error
        assert _answer("queryCustomer", '{"name":"长路","limit":5}') == (
            "customer:长路,limit:5", False)
