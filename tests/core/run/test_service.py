"""``ToolService`` dispatch and the answers it gives the model."""

from __future__ import annotations

import pytest

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools, tool
from agentforge_cli.core.define.spec import ToolExecutionResult
from sample_tools.crm import CrmTools


class Catalog:
    @tool(name="queryCustomer")
    def query_customer(self, name: str, limit: int) -> str:
        return f"{name}:{limit}"

    @tool(name="queryOrders")
    def query_orders(self, customer: str) -> list:
        return [customer]

    @tool(name="createTicket")
    def create_ticket(self, title: str) -> None:
        if not title:
            raise ValueError("title must not be empty")


@pytest.fixture
def service() -> ToolService:
    svc = ToolService()
    svc.tools(build_local_tools([Catalog()]))
    return svc


def test_dispatches_by_name(service):
    assert service.execute(ToolExecutionRequest(id="1", name="queryCustomer",
                                                arguments='{"name":"a","limit":2}')) == ("a:2",
                                                                                         False)
    assert service.execute(ToolExecutionRequest(id="2", name="queryOrders",
                                                arguments='{"customer":"长路"}')) == (
        '["长路"]', False)
    assert service.execute(ToolExecutionRequest(id="3", name="createTicket",
                                                arguments='{"title":"t"}')) == ("Success", False)


def test_result_is_a_tool_execution_result(service):
    result = service.execute(ToolExecutionRequest(name="queryOrders", arguments='{"customer":"x"}'))
    assert isinstance(result, ToolExecutionResult)
    text, is_error = result
    assert (text, is_error) == ('["x"]', False)


@pytest.mark.parametrize(("written", "suggested"), [
    ("quryCustomer", "queryCustomer"),
    ("querycustomer", "queryCustomer"),
    ("queryOrder", "queryOrders"),
    ("create_ticket", "createTicket"),
])
def test_unknown_tool_suggests_close_names(service, written, suggested):
    result = service.execute(ToolExecutionRequest(name=written, arguments="{}"))
    assert result.is_error is True
    assert written in result.text
    assert suggested in result.text


def test_unknown_tool_with_nothing_close(service):
    result = service.execute(ToolExecutionRequest(name="zzz", arguments="{}"))
    assert result.is_error is True
    assert "zzz" in result.text


def test_unknown_tool_on_an_empty_service():
    result = ToolService().execute(ToolExecutionRequest(name="anything", arguments="{}"))
    assert result.is_error is True
    assert "anything" in result.text


def test_argument_errors_become_error_results(service):
    result = service.execute(ToolExecutionRequest(name="queryCustomer",
                                                  arguments='{"name":"a","limit":5.5}'))
    assert result.is_error is True
    assert 'Argument "limit" has non-integer value for int: <5.5>' in result.text


def test_parse_errors_become_error_results(service):
    result = service.execute(ToolExecutionRequest(name="queryCustomer", arguments="[1]"))
    assert result.is_error is True
    assert "array" in result.text


def test_execution_errors_become_error_results_by_default(service):
    result = service.execute(ToolExecutionRequest(name="createTicket", arguments='{"title":""}'))
    assert result == ("title must not be empty", True)


def test_memory_id_defaults_to_none():
    seen = []

    class Recorder:
        def execute(self, request, memory_id=None):
            seen.append(memory_id)
            return ToolExecutionResult("ok", False)

    (spec,) = build_local_tools([CrmTools()])
    service = ToolService()
    service.tools({spec: Recorder()})
    service.execute(ToolExecutionRequest(name="queryCustomer"))
    service.execute(ToolExecutionRequest(name="queryCustomer"), memory_id="session-1")
    service.execute(ToolExecutionRequest(name="queryCustomer"), "session-2")
    assert seen == [None, "session-1", "session-2"]


def test_tools_from_several_tables_are_combined():
    service = ToolService()
    service.tools(build_local_tools([CrmTools()]))
    service.tools(build_local_tools([Catalog().query_orders]))
    assert service.execute(ToolExecutionRequest(name="queryOrders",
                                                arguments='{"customer":"c"}')).text == '["c"]'
    assert service.execute(ToolExecutionRequest(
        name="queryCustomer", arguments='{"name":"n","limit":1}')).text == "customer:n,limit:1"


def test_request_defaults():
    request = ToolExecutionRequest(name="x")
    assert request.id is None
    request = ToolExecutionRequest(id="call_1", name="x", arguments='{"a":1}')
    assert request.arguments == '{"a":1}'
    with pytest.raises(AttributeError):
        request.name = "y"  # frozen


# -- the async path: the same answers, without blocking the event loop ---------------------


class Threads:
    """Tools reporting where they ran."""

    @tool
    def sync_where(self) -> str:
        import threading

        return threading.current_thread().name

    @tool
    async def async_where(self) -> str:
        import asyncio

        return str(id(asyncio.get_running_loop()))


REQUESTS = [
    ToolExecutionRequest(id="1", name="queryCustomer", arguments='{"name":"a","limit":"2"}'),
    ToolExecutionRequest(id="2", name="queryCustomer", arguments='{"name":"a","limit":2.5}'),
    ToolExecutionRequest(id="3", name="queryCustomer", arguments='{"name": '),
    ToolExecutionRequest(id="4", name="quryCustomer", arguments="{}"),
    ToolExecutionRequest(id="5", name="createTicket", arguments='{"title":""}'),
    ToolExecutionRequest(id="6", name="queryOrders", arguments='{"customer":"长路"}'),
]


@pytest.mark.parametrize("logging", [False, True])
def test_aexecute_answers_what_execute_answers(logging):
    import asyncio

    service = ToolService().tools(build_local_tools([Catalog()], logging=logging))

    async def main():
        return [await service.aexecute(request) for request in REQUESTS]

    assert asyncio.run(main()) == [service.execute(request) for request in REQUESTS]


def test_aexecute_runs_sync_tools_in_a_worker_and_async_tools_on_the_loop():
    import asyncio
    import threading

    service = ToolService().tools(build_local_tools([Threads()]))

    async def main():
        where = await service.aexecute(ToolExecutionRequest(name="sync_where"))
        loop = await service.aexecute(ToolExecutionRequest(name="async_where"))
        return where.text, loop.text, str(id(asyncio.get_running_loop()))

    worker, tool_loop, our_loop = asyncio.run(main())
    assert worker != threading.current_thread().name
    assert tool_loop == our_loop


def test_aexecute_runs_an_executor_without_aexecute_in_a_worker():
    import asyncio
    import threading

    class Remote:
        def execute(self, request, memory_id=None):
            return ToolExecutionResult(f"{threading.current_thread().name} {memory_id}")

    spec = build_local_tools([Catalog()])
    service = ToolService().tools({next(iter(spec)): Remote()})
    result = asyncio.run(service.aexecute(ToolExecutionRequest(name="queryCustomer"), "m-1"))
    worker, memory_id = result.text.split()
    assert worker != threading.current_thread().name and memory_id == "m-1"


def test_both_paths_raise_what_an_executor_propagates():
    import asyncio

    from agentforge_cli.errors import ToolExecutionError

    service = ToolService().tools(build_local_tools([Catalog()],
                                                    propagate_execution_errors=True))
    request = ToolExecutionRequest(name="createTicket", arguments='{"title":""}')
    with pytest.raises(ToolExecutionError, match="title must not be empty"):
        service.execute(request)
    with pytest.raises(ToolExecutionError, match="title must not be empty"):
        asyncio.run(service.aexecute(request))
