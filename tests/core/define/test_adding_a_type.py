"""docs/adding-a-type.md holds: a new type is one handler and one registry line.

The handler and the line are taken from the page itself and registered through the
registry's ``EXACT`` table; nothing else is touched.
"""

from __future__ import annotations

import ipaddress
import re
import types
from pathlib import Path

import pytest

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools, tool
from agentforge_cli.core.define.handlers import registry
from agentforge_cli.errors import ArgumentError, ToolDefinitionError

PAGE = Path(__file__).resolve().parents[3] / "docs" / "adding-a-type.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


@pytest.fixture
def ipv4_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    handler_source, registry_line = python_blocks()
    scalars = types.ModuleType("scalars")  # stands in for core/define/handlers/scalars.py
    exec(compile(handler_source, str(PAGE), "exec"), scalars.__dict__)
    entry = eval("{" + registry_line.strip() + "}", {"ipaddress": ipaddress,
                                                      "scalars": scalars})
    assert list(entry) == [ipaddress.IPv4Address]  # one line, one type
    for annotation, maker in entry.items():
        monkeypatch.setitem(registry.EXACT, annotation, maker)


def ping(host: ipaddress.IPv4Address, also: list[ipaddress.IPv4Address] | None = None) -> str:
    """Ping a host."""
    return f"{type(host).__name__} {host} {also}"


def test_the_page_shows_one_handler_and_one_line():
    handler_source, registry_line = python_blocks()
    assert handler_source.count("def ipv4_handler") == 1
    assert len(registry_line.strip().splitlines()) == 1


def test_the_new_type_gets_a_schema_and_binds(ipv4_registered):
    table = build_local_tools([tool(name="ping")(ping)])
    (spec,) = table
    properties = spec.parameters["properties"]
    assert properties["host"] == {"type": "string", "format": "ipv4"}
    assert properties["also"]["anyOf"][0]["items"] == {"type": "string", "format": "ipv4"}
    assert spec.parameters["required"] == ["host"]

    service = ToolService().tools(table)
    result = service.execute(ToolExecutionRequest(
        name="ping", arguments='{"host":" 10.0.0.1 ","also":"[\\"10.0.0.2\\"]"}'))
    assert result == ("IPv4Address 10.0.0.1 [IPv4Address('10.0.0.2')]", False)

    refused = service.execute(ToolExecutionRequest(name="ping",
                                                   arguments='{"host":"10.0.0.300"}'))
    assert refused == ('Argument "host" is not an IPv4 address: <10.0.0.300> (tool "ping")',
                       True)
    (executor,) = table.values()
    with pytest.raises(ArgumentError, match=r'"also\[0\]" is not an IPv4 address: <5>'):
        executor.execute(ToolExecutionRequest(name="ping",
                                              arguments='{"host":"10.0.0.1","also":[5]}'))


def test_explain_names_the_new_type(ipv4_registered):
    (executor,) = build_local_tools([tool(name="ping")(ping)]).values()
    trace = executor.explain('{"host":"10.0.0.1"}').traces[0]
    assert trace.value == ipaddress.IPv4Address("10.0.0.1")
    assert trace.rule == "JSON string <10.0.0.1> coerced to IPv4Address"


def test_without_the_line_the_type_is_refused():
    assert ipaddress.IPv4Address not in registry.EXACT
    with pytest.raises(ToolDefinitionError, match="unsupported type IPv4Address"):
        build_local_tools([tool(name="ping")(ping)])
