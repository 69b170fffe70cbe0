"""The sample tool modules the README and demo use: they build, and their schemas are valid."""

from __future__ import annotations

import importlib

import pytest
from jsonschema import Draft202012Validator

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools

MODULES = ["sample_tools.crm", "sample_tools.weather", "sample_tools.shop"]


def _service(target) -> ToolService:
    service = ToolService()
    service.tools(build_local_tools([target]))
    return service


@pytest.mark.parametrize("module_name", MODULES)
def test_every_sample_schema_is_valid_json_schema_2020_12(module_name):
    module = importlib.import_module(module_name)
    targets = [module.CrmTools()] if module_name.endswith("crm") else [module]
    specs = list(build_local_tools(targets))
    assert specs, f"{module_name} yields no tool"
    for spec in specs:
        Draft202012Validator.check_schema(spec.parameters)
        assert spec.parameters["type"] == "object"


def test_crm_call_returns_the_documented_text():
    from sample_tools.crm import CrmTools

    result = _service(CrmTools()).execute(
        ToolExecutionRequest(id="call_1", name="queryCustomer",
                             arguments='{"name":"长路","limit":5}'), memory_id="session-1")
    assert (result.text, result.is_error) == ("customer:长路,limit:5", False)


def test_shop_module_yields_each_tool_once():
    import sample_tools.shop as shop

    names = [spec.name for spec in build_local_tools([shop])]
    assert len(names) == len(set(names))
    assert {"placeOrder", "getOrder", "restock", "check_stock"} <= set(names)


@pytest.mark.parametrize(("arguments", "message"), [
    ('{"parcel":{"length_cm":1e308,"width_cm":10,"height_cm":10,"weight_kg":1},'
     '"destination":[30,120]}',
     "parcel.length_cm must be more than 0 and at most 300 cm; got 1e+308"),
    ('{"parcel":{"length_cm":10,"width_cm":10,"height_cm":0,"weight_kg":1},'
     '"destination":[30,120]}',
     "parcel.height_cm must be more than 0 and at most 300 cm; got 0"),
    ('{"parcel":{"length_cm":10,"width_cm":10,"height_cm":10,"weight_kg":1e30},'
     '"destination":[30,120]}',
     "parcel.weight_kg must be more than 0 and at most 70 kg; got 1e+30"),
    ('{"parcel":{"length_cm":10,"width_cm":10,"height_cm":10,"weight_kg":1},'
     '"destination":[3000,120]}',
     "destination must be [latitude, longitude] in degrees, latitude -90..90 and "
     "longitude -180..180; got [3000, 120]"),
])
def test_quote_shipping_says_what_it_takes(arguments, message):
    import sample_tools.shop as shop

    result = _service(shop).execute(
        ToolExecutionRequest(id="c", name="quote_shipping", arguments=arguments))
    assert (result.text, result.is_error) == (message, True)
