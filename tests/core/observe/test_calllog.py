"""The logging decorator: what it logs around each execution, with secrets masked."""

from __future__ import annotations

import json
import logging
import re
from typing import Annotated

import pytest

from agentforge_cli import P, ToolExecutionRequest, ToolService, build_local_tools, tool
from agentforge_cli.core.define.spec import ToolExecutionResult
from agentforge_cli.core.observe.calllog import LoggingToolExecutor
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ArgumentError
from sample_tools.crm import CrmTools

LOGGER = "agentforge.tools"
SECRETS = ("hunter2", "sk-live-123", "tok-456", "shh-789", "pin-0000", "nested-key")


class Vault:
    @tool
    def login(self, user: str, password: str = "", api_key: str = "", token: str = "",
              secret: str = "",
              pin: Annotated[str, P("PIN", name="code", sensitive=True)] = "",
              options: dict | None = None) -> str:
        return f"welcome {user}"

    @tool
    def fail(self, reason: str) -> str:
        raise RuntimeError(reason)

    @tool
    def unlock(self, pin: Annotated[int, P(sensitive=True)], password: int = 0) -> str:
        return "unlocked"


def logged_service() -> ToolService:
    return ToolService().tools(build_local_tools([Vault(), CrmTools()], logging=True))


def records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == LOGGER]


def all_text(caplog) -> str:
    parts = []
    for record in records(caplog):
        parts.append(record.getMessage())
        parts.extend(str(v) for k, v in vars(record).items()
                     if k not in ("msg", "args", "message"))
    return "\n".join(parts)


def test_logs_request_and_response(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    service = logged_service()
    result = service.execute(ToolExecutionRequest(id="call_1", name="queryCustomer",
                                                  arguments='{"name":"长路","limit":5}'),
                             memory_id="session-1")
    assert result == ("customer:长路,limit:5", False)
    logs = records(caplog)
    assert len(logs) == 2
    before, after = (r.getMessage() for r in logs)
    assert "queryCustomer" in before
    assert "长路" in before and "limit" in before
    assert "session-1" in before
    assert "customer:长路,limit:5" in after
    assert re.search(r"\d", after) and "ms" in after


def test_masks_secret_names_and_sensitive_parameters(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    arguments = {"user": "ann", "password": "hunter2", "api_key": "sk-live-123",
                 "token": "tok-456", "secret": "shh-789", "code": "pin-0000"}
    result = logged_service().execute(ToolExecutionRequest(name="login",
                                                           arguments=json.dumps(arguments)))
    assert result == ("welcome ann", False)
    text = all_text(caplog)
    for secret in SECRETS:
        assert secret not in text
    before = records(caplog)[0].getMessage()
    assert "ann" in before
    assert before.count("***") >= 5


def test_masks_nested_secret_keys(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    arguments = {"user": "ann", "options": {"deep": {"API_KEY": "nested-key"}}}
    logged_service().execute(ToolExecutionRequest(name="login", arguments=json.dumps(arguments)))
    assert "nested-key" not in all_text(caplog)


@pytest.mark.parametrize("arguments", [
    pytest.param('{"user":"ann","password":"hunter2",}', id="trailing-comma"),
    pytest.param(json.dumps(json.dumps({"user": "ann", "password": "hunter2"})),
                 id="double-encoded"),
    pytest.param("'" + json.dumps({"user": "ann", "token": "hunter2"}) + "'",
                 id="single-quoted"),
    pytest.param('{"user":"ann","password":"hunter2","limit":5.5}', id="argument-error"),
    pytest.param('{"user":"ann","password":"hunter2"', id="unparseable"),
])
def test_secrets_are_masked_in_arguments_the_tool_repairs(caplog, arguments):
    caplog.set_level(logging.INFO, logger=LOGGER)
    logged_service().execute(ToolExecutionRequest(name="login", arguments=arguments))
    assert "hunter2" not in all_text(caplog)


@pytest.mark.parametrize("arguments", [
    pytest.param('{"pin":"12ab34"}', id="sensitive-parameter"),
    pytest.param('{"pin":1,"password":"12ab34"}', id="secret-name"),
])
def test_argument_error_log_does_not_reveal_masked_values(caplog, arguments):
    caplog.set_level(logging.INFO, logger=LOGGER)
    result = logged_service().execute(ToolExecutionRequest(name="unlock", arguments=arguments))
    assert result.is_error is True
    assert "12ab34" not in all_text(caplog)


def test_logs_execution_errors(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    result = logged_service().execute(ToolExecutionRequest(name="fail",
                                                           arguments='{"reason":"disk full"}'))
    assert result == ("disk full", True)
    after = records(caplog)[-1].getMessage()
    assert "disk full" in after


def test_logs_argument_errors_and_reraises(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    (executor,) = build_local_tools([CrmTools()], logging=True).values()
    with pytest.raises(ArgumentError):
        executor.execute(ToolExecutionRequest(name="queryCustomer",
                                              arguments='{"name":"a","limit":5.5}'))
    logs = records(caplog)
    assert len(logs) == 2
    assert "5.5" in logs[-1].getMessage()
    assert logs[-1].levelno >= logging.WARNING


def test_never_configures_handlers(caplog):
    logger = logging.getLogger(LOGGER)
    root_handlers = list(logging.getLogger().handlers)
    own_handlers = list(logger.handlers)
    level, propagate = logger.level, logger.propagate
    service = logged_service()
    service.execute(ToolExecutionRequest(name="queryCustomer",
                                         arguments='{"name":"a","limit":1}'))
    assert logger.handlers == own_handlers
    assert logging.getLogger().handlers == root_handlers
    assert (logger.level, logger.propagate) == (level, propagate)


def test_silent_when_logger_disabled(caplog):
    caplog.set_level(logging.ERROR, logger=LOGGER)
    result = logged_service().execute(ToolExecutionRequest(name="queryCustomer",
                                                           arguments='{"name":"a","limit":1}'))
    assert result == ("customer:a,limit:1", False)
    assert records(caplog) == []


def test_wraps_any_executor(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)

    class Fixed:
        def execute(self, request, memory_id=None):
            return ToolExecutionResult("fixed answer", False)

    wrapper = LoggingToolExecutor(Fixed())
    result = wrapper.execute(ToolExecutionRequest(name="anything", arguments='{"token":"t0k"}'),
                             "mem-9")
    assert result == ("fixed answer", False)
    text = all_text(caplog)
    assert "anything" in text and "mem-9" in text and "fixed answer" in text
    assert "t0k" not in text


def test_logging_wrapper_exposes_the_same_result_as_the_plain_executor():
    plain = LocalToolExecutor(CrmTools().queryCustomer)
    logged = LoggingToolExecutor(plain)
    request = ToolExecutionRequest(name="queryCustomer", arguments='{"name":"a","limit":"2"}')
    assert logged.execute(request) == plain.execute(request)


def test_aexecute_logs_as_execute_does(caplog):
    import asyncio

    service = logged_service()
    requests = [ToolExecutionRequest(id="c1", name="queryCustomer",
                                     arguments='{"name":"长路","limit":5}'),
                ToolExecutionRequest(id="c2", name="fail", arguments='{"reason":"down"}')]

    def events() -> list[tuple]:
        return [(r.levelname, r.tool_event, r.tool_name, getattr(r, "tool_result", None))
                for r in records(caplog)]

    caplog.set_level(logging.INFO, logger=LOGGER)
    sync_results = [service.execute(request, "m") for request in requests]
    sync_events = events()
    caplog.clear()

    async def main():
        return [await service.aexecute(request, "m") for request in requests]

    assert asyncio.run(main()) == sync_results
    assert events() == sync_events
    assert [e[1] for e in sync_events] == ["request", "response", "request", "response"]


def test_aexecute_logs_an_argument_error_and_raises_it(caplog):
    import asyncio

    caplog.set_level(logging.INFO, logger=LOGGER)
    (executor,) = build_local_tools([Vault().unlock], logging=True).values()
    with pytest.raises(ArgumentError):
        asyncio.run(executor.aexecute(ToolExecutionRequest(name="unlock",
                                                           arguments='{"pin":"x"}')))
    assert [r.tool_event for r in records(caplog)] == ["request", "error"]


def test_aexecute_is_silent_when_the_logger_is_disabled(caplog):
    import asyncio

    caplog.set_level(logging.WARNING, logger=LOGGER)
    result = asyncio.run(logged_service().aexecute(ToolExecutionRequest(
        name="queryCustomer", arguments='{"name":"长路","limit":5}')))
    assert result == ("customer:长路,limit:5", False)
    assert records(caplog) == []
