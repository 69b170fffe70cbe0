"""A tool's ``SystemExit`` or ``KeyboardInterrupt`` is its failure, on every path; a real
Ctrl-C of the process still stops it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools, tool
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ToolExecutionError


@tool
def exits(code: int = 2) -> str:
    """Exit like an argparse command line."""
    sys.exit(code)


@tool
def interrupts() -> str:
    """Raise KeyboardInterrupt itself."""
    raise KeyboardInterrupt


@tool
async def async_exits(code: int = 2) -> str:
    """Exit from an async tool that never suspends."""
    sys.exit(code)


@tool
async def async_exits_later(code: int = 2) -> str:
    """Exit from an async tool after suspending."""
    await asyncio.sleep(0)
    sys.exit(code)


def request(name: str, arguments: str = "{}") -> ToolExecutionRequest:
    return ToolExecutionRequest(id="c1", name=name, arguments=arguments)


TOOLS = [exits, interrupts, async_exits, async_exits_later]
EXPECTED = {"exits": "SystemExit(2)", "interrupts": "KeyboardInterrupt",
            "async_exits": "SystemExit(2)", "async_exits_later": "SystemExit(2)"}


@pytest.mark.parametrize("func", TOOLS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("timeout", [None, 30.0], ids=["caller-thread", "timeout-thread"])
def test_sync_execute_answers_an_error_result(func, timeout) -> None:
    executor = LocalToolExecutor(func, timeout=timeout)
    for _ in range(2):  # the generated fast path, installed by the first call, too
        result = executor.execute(request(func.__name__))
        assert result == (f'Tool "{func.__name__}" raised {EXPECTED[func.__name__]}', True)


@pytest.mark.parametrize("func", TOOLS, ids=lambda f: f.__name__)
def test_async_execute_and_the_service_answer_an_error_result(func) -> None:
    service = ToolService().tools(build_local_tools([func]))
    name = func.__name__
    expected = (f'Tool "{name}" raised {EXPECTED[name]}', True)
    assert service.execute(request(name)) == expected
    assert asyncio.run(service.aexecute(request(name))) == expected  # loop or thread pool
    assert service.execute(request(name)) == expected  # the service goes on


def test_sync_tool_called_from_a_running_loop_exits_into_an_error_result() -> None:
    async def main():
        return LocalToolExecutor(async_exits_later).execute(request("async_exits_later"))

    assert asyncio.run(main()).is_error


def test_propagated_as_an_execution_error_when_configured() -> None:
    executor = LocalToolExecutor(exits, propagate_execution_errors=True)
    with pytest.raises(ToolExecutionError) as info:
        executor.execute(request("exits", '{"code": 3}'))
    assert isinstance(info.value.__cause__, SystemExit)
    assert "SystemExit(3)" in str(info.value)


def test_a_tool_exit_in_a_worker_thread_does_not_end_it() -> None:
    results = []
    thread = threading.Thread(
        target=lambda: results.append(LocalToolExecutor(exits).execute(request("exits"))))
    thread.start()
    thread.join(30)
    assert results == [('Tool "exits" raised SystemExit(2)', True)]


SLOW_TOOL = textwrap.dedent("""
    import sys, time
    from agentforge_cli import ToolExecutionRequest, tool
    from agentforge_cli.core.run.executor import LocalToolExecutor

    @tool
    def slow() -> str:
        '''Wait for a Ctrl-C.'''
        print("running", flush=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            time.sleep(0.01)
        return "finished"

    executor = LocalToolExecutor(slow)
    try:
        print(executor.execute(ToolExecutionRequest(id="1", name="slow", arguments="{}")))
    except KeyboardInterrupt:
        print("stopped by Ctrl-C", flush=True)
        sys.exit(130)
""")


def test_a_real_ctrl_c_inside_a_sync_tool_still_stops_the_process(tmp_path) -> None:
    script = tmp_path / "slow.py"
    script.write_text(SLOW_TOOL, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                               text=True, env=env)
    try:
        assert process.stdout.readline().strip() == "running"
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    assert "stopped by Ctrl-C" in out
