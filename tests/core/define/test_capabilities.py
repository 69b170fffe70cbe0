"""What executors declare beyond ``execute``: each real one satisfies its Protocols, a
plain object with only ``execute`` none of the optional ones."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Annotated

import pytest

from agentforge_cli import P, ToolExecutionRequest, ToolService, build_local_tools, tool
from agentforge_cli.core.bind.argument_explanation import ExplainingToolExecutor
from agentforge_cli.core.define.capabilities import (
    AsyncToolExecutor,
    BindingToolExecutor,
    DefinedToolExecutor,
    ForeignToolExecutor,
    SensitiveToolExecutor,
    SpecifiedToolExecutor,
    WrappingToolExecutor,
)
from agentforge_cli.core.define.spec import ToolExecutionResult, ToolExecutor
from agentforge_cli.core.observe.calllog import LoggingToolExecutor
from agentforge_cli.core.observe.declared_secrets import sensitive_keys
from agentforge_cli.core.run.async_paths import async_path
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.core.run.wrapping import innermost

OPTIONAL = (SpecifiedToolExecutor, DefinedToolExecutor, BindingToolExecutor,
            ExplainingToolExecutor, AsyncToolExecutor, WrappingToolExecutor,
            ForeignToolExecutor, SensitiveToolExecutor)


@tool
def login(user: str, pin: Annotated[str, P("a PIN (not masked by its name)", sensitive=True)]
          ) -> str:
    """Log in."""
    return f"hello {user}"


class OnlyExecute:
    """An executor that declares nothing but ``execute``."""

    def execute(self, request: ToolExecutionRequest, memory_id: object = None
                ) -> ToolExecutionResult:
        return ToolExecutionResult("done")


def request(arguments: str = '{"user": "ada", "pin": "x"}') -> ToolExecutionRequest:
    return ToolExecutionRequest(id="c1", name="login", arguments=arguments)


def test_a_plain_object_with_only_execute_declares_nothing_optional():
    plain = OnlyExecute()
    assert isinstance(plain, ToolExecutor)
    assert [p.__name__ for p in OPTIONAL if isinstance(plain, p)] == []


def test_the_local_executor_declares_what_it_has():
    local = LocalToolExecutor(login)
    declared = {p.__name__ for p in OPTIONAL if isinstance(local, p)}
    assert declared == {"SpecifiedToolExecutor", "DefinedToolExecutor", "BindingToolExecutor",
                        "ExplainingToolExecutor", "AsyncToolExecutor",
                        "SensitiveToolExecutor"}
    assert local.sensitive_keys == frozenset({"pin"})


def test_a_wrapper_declares_its_delegate_and_reaches_what_it_declares():
    local = LocalToolExecutor(login)
    logged = LoggingToolExecutor(local)
    assert isinstance(logged, WrappingToolExecutor) and logged.delegate is local
    assert innermost(LoggingToolExecutor(logged)) is local
    assert sensitive_keys(LoggingToolExecutor(logged)) == frozenset({"pin"})
    assert sensitive_keys(OnlyExecute()) == frozenset()


def test_the_service_routes_without_declaring_a_tool():
    service = ToolService().tools(build_local_tools([login]))
    assert isinstance(service, AsyncToolExecutor)
    assert not isinstance(service, DefinedToolExecutor | WrappingToolExecutor)


def test_the_async_path_is_resolved_once_per_executor():
    local = LocalToolExecutor(login)
    assert async_path(local) == local.aexecute
    plain = OnlyExecute()
    path = async_path(plain)
    assert isinstance(path, functools.partial) and path.args == (plain,)
    assert asyncio.run(path(request(), None)) == ToolExecutionResult("done")


def test_a_service_and_a_wrapper_run_an_executor_without_aexecute_in_a_thread(caplog):
    service = ToolService().tools({LocalToolExecutor(login).specification: OnlyExecute()})
    assert asyncio.run(service.aexecute(request())) == ToolExecutionResult("done")
    logged = LoggingToolExecutor(OnlyExecute())
    with caplog.at_level(logging.INFO, logger="agentforge.tools"):
        assert asyncio.run(logged.aexecute(request())) == ToolExecutionResult("done")
    assert "Tool response: login result=done" in caplog.text


@pytest.mark.parametrize("wrapped", [False, True])
def test_a_logged_call_masks_the_sensitive_keys_read_when_wrapped(caplog, wrapped):
    local = LocalToolExecutor(login)
    logged = LoggingToolExecutor(LoggingToolExecutor(local) if wrapped else local)
    with caplog.at_level(logging.INFO, logger="agentforge.tools"):
        logged.execute(request('{"user": "ada", "pin": "40417731"}'))
    assert "40417731" not in caplog.text and '"pin":"***"' in caplog.text


def test_registering_tools_does_not_import_asyncio():
    """A command that never calls a tool from async code (``tools list``) never loads
    ``asyncio``: the async path of each tool is picked without it."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from agentforge_cli import ToolService, build_local_tools, tool\n"
            "@tool\n"
            "def ping(host: str) -> str:\n"
            "    return host\n"
            "ToolService().tools(build_local_tools([ping]))\n"
            "print('asyncio' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "False"


def test_declares_answers_as_isinstance_once_per_class():
    from agentforge_cli.core.define.capabilities import BindingToolExecutor, declares

    local, plain = LocalToolExecutor(login), OnlyExecute()
    for executor in (local, plain, local, plain):
        assert declares(executor, BindingToolExecutor) == isinstance(executor,
                                                                     BindingToolExecutor)
    assert declares(local, BindingToolExecutor) and not declares(plain, BindingToolExecutor)
