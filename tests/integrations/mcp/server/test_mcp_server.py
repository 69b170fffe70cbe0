"""``agentforge serve``: the MCP server, driven end to end by the SDK's own stdio client.

One server subprocess (``serve_launcher.py``: ``sample_tools.shop`` plus
``mcp_sample_tools``, call log on) serves the whole module; the client plumbing is in
``mcp_client_support.py``. Stdout discipline, stdin closing, concurrency, time limits and
cancellation are in ``test_mcp_stdio.py``.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_sample_tools  # tests/integrations is on sys.path (pytest's rootdir-relative import)
import pytest
from mcp import types
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_client_support import AGENTFORGE, ROOT, TIMEOUT, Remote, serve

from agentforge_cli import ToolService, __version__, build_local_tools
from agentforge_cli.core.define.spec import ToolExecutionRequest
from agentforge_cli.integrations.mcp.server.tool_server import (
    MCPUnavailableError,
    build_server,
    execute_tool,
    require_mcp,
)
from sample_tools.shop import ShopTools

LAUNCHER = Path(__file__).resolve().parents[2] / "serve_launcher.py"


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory):
    yield from serve([str(LAUNCHER), "--log"], tmp_path_factory.mktemp("mcp-serve"))


# ---------------------------------------------------------------- initialize, tools/list


def test_initialize_reports_name_and_version(remote: Remote) -> None:
    assert remote.init.server_info.name == "agentforge"
    assert remote.init.server_info.version == __version__
    assert remote.init.capabilities.tools is not None


def test_tools_list_is_the_specification_table(remote: Remote) -> None:
    listed = remote.run(remote.session.list_tools).tools
    table = build_local_tools([ShopTools(), mcp_sample_tools])
    expected = [{"name": s.name, "description": s.description, "parameters": s.parameters}
                for s in table]
    got = [{"name": t.name, "description": t.description, "parameters": t.input_schema}
           for t in listed]
    assert got == expected
    add = next(t for t in listed if t.name == "add")
    assert add.input_schema["properties"]["a"]["type"] == "integer"
    assert add.description == "Add two integers."
    assert add.title == "Add two numbers"  # declared with @tool(title=..., annotations=...)
    assert add.annotations.read_only_hint is True and add.annotations.idempotent_hint is True
    assert next(t for t in listed if t.name == "explode").annotations is None


def test_a_cursor_never_handed_out_is_invalid_params(remote: Remote) -> None:
    with pytest.raises(MCPError) as info:
        remote.run(functools.partial(remote.session.list_tools,
                                     params=types.PaginatedRequestParams(cursor="bogus")))
    assert info.value.code == types.INVALID_PARAMS
    assert "cursor" in info.value.message


def test_resources_and_prompts_are_empty_lists(remote: Remote) -> None:
    assert remote.run(remote.session.list_resources).resources == []
    assert remote.run(remote.session.list_resource_templates).resource_templates == []
    assert remote.run(remote.session.list_prompts).prompts == []
    assert remote.init.capabilities.resources is not None
    assert remote.init.capabilities.prompts is not None
    with pytest.raises(MCPError) as info:
        remote.run(remote.session.read_resource, "file:///nothing.txt")
    assert "file:///nothing.txt" in info.value.message
    with pytest.raises(MCPError) as info:
        remote.run(remote.session.get_prompt, "nothing")
    assert info.value.code == types.INVALID_PARAMS


# ---------------------------------------------------------------- tools/call


def test_call_coerces_a_string_for_an_int(remote: Remote) -> None:
    # "3" violates inputSchema; it must reach the coercion table, not a schema check.
    result = remote.call("add", {"a": "3", "b": 4})
    assert result.is_error is False
    assert remote.text(result) == "7"
    assert result.structured_content is None

    price = remote.call("getPrice", {"sku": "TEA-001", "quantity": "3"})
    assert (price.is_error, remote.text(price)) == (False, "384.00")


def test_call_with_exact_decimal_and_default(remote: Remote) -> None:
    price = remote.call("getPrice", {"sku": "TEA-001", "quantity": 2, "discount": 0.9})
    assert (price.is_error, remote.text(price)) == (False, "230.40")


def test_argument_error_is_an_error_result_with_the_cli_message(remote: Remote) -> None:
    result = remote.call("add", {"a": "three", "b": 4})
    assert result.is_error is True
    service = ToolService().tools(build_local_tools([mcp_sample_tools]))
    expected = service.execute(ToolExecutionRequest(name="add", arguments='{"a":"three","b":4}'))
    assert expected.is_error
    assert remote.text(result) == expected.text
    assert 'Argument "a"' in remote.text(result)
    assert result.structured_content is None


def test_missing_arguments_object_goes_through_the_pipeline(remote: Remote) -> None:
    # No `arguments` at all: bound as {}, as `tools call` would: the first required
    # parameter is named, with what the tool takes.
    result = remote.call("add", None)
    assert (result.is_error, remote.text(result)) == (
        True, 'Required parameter "a" of tool "add" is missing; add takes a (integer), '
              "b (integer)")


def test_tool_exception_is_an_error_result(remote: Remote) -> None:
    result = remote.call("explode", {"reason": "on purpose"})
    assert result.is_error is True
    assert remote.text(result) == "boom: on purpose"

    shop = remote.call("getPrice", {"sku": "NOPE"})
    assert shop.is_error is True
    assert remote.text(shop).startswith("unknown sku: NOPE")


def test_unknown_tool_is_a_protocol_error(remote: Remote) -> None:
    with pytest.raises(MCPError) as info:
        remote.call("ad", {"a": 1, "b": 2})
    assert info.value.code == types.INVALID_PARAMS
    assert info.value.message == 'Unknown tool "ad". Did you mean: add?'


def test_tools_run_off_the_server_loop(remote: Remote) -> None:
    # an async tool runs on a loop of its own (one that blocks cannot freeze the server)
    result = remote.call("countdown", {"start": "3"})
    assert result.is_error is False
    assert json.loads(remote.text(result)) == {"values": [3, 2, 1], "on_main_thread": False}
    # ...and a sync tool on a thread of its own.
    assert remote.call("where").structured_content == {"on_main_thread": False}


def test_async_tool_errors(remote: Remote) -> None:
    raised = remote.call("countdown", {"start": 0})
    assert (raised.is_error, remote.text(raised)) == (True, "start must be at least 1, got 0")
    bad = remote.call("countdown", {"start": 2, "delay_ms": "soon"})
    assert bad.is_error is True
    assert 'Argument "delay_ms"' in remote.text(bad)


def test_object_result_is_also_structured_content(remote: Remote) -> None:
    stock = remote.call("check_stock", {"skus": ["TEA-001", "SNK-001"]})  # an async tool
    assert stock.is_error is False
    assert remote.text(stock) == '{"SNK-001":40,"TEA-001":12}'
    assert stock.structured_content == {"SNK-001": 40, "TEA-001": 12}

    listing = remote.call("listProducts", {"category": "gift"})  # a JSON array: text only
    assert listing.is_error is False
    assert json.loads(remote.text(listing))[0]["sku"] == "GFT-001"
    assert listing.structured_content is None


def test_an_object_return_type_is_an_output_schema_and_structured_content(remote: Remote
                                                                         ) -> None:
    listed = {tool.name: tool for tool in remote.run(remote.session.list_tools).tools}
    schema = listed["reading"].output_schema
    assert schema["type"] == "object" and schema["title"] == "Reading"
    assert set(schema["required"]) == {"city", "degrees", "unit", "taken"}
    assert listed["stock"].output_schema["properties"]["count"] == {"type": "integer"}
    for untyped in ("add", "where", "check_stock"):  # no object return type
        assert listed[untyped].output_schema is None, untyped
    assert listed["point"].output_schema["required"] == ["x", "y"]  # a NamedTuple
    assert remote.call("point").structured_content == {"x": 1, "y": 2}

    # the SDK client validates structuredContent against the outputSchema
    result = remote.call("reading", {"city": "Oslo"})
    assert result.is_error is False
    assert result.structured_content == json.loads(remote.text(result))
    assert result.structured_content["history"][0]["degrees"] == 19.5
    assert result.structured_content["unit"] == "CELSIUS"
    stocked = remote.call("stock", {"sku": "TEA-001"})
    assert stocked.structured_content == {"sku": "TEA-001", "count": 7}
    assert remote.text(stocked) == '{"sku":"TEA-001","count":7}'

    broken = remote.call("reading", {"city": "Oslo", "broken": True})
    assert broken.is_error is True
    assert remote.text(broken).startswith('Tool "reading" returned a result that does not '
                                          "match its outputSchema:")


def test_a_blocked_sync_tool_does_not_block_the_loop(remote: Remote) -> None:
    outcome: dict[str, str] = {}

    async def both() -> None:
        async def waiter() -> None:
            result = await remote.session.call_tool("wait_for_signal", {"seconds": 10})
            outcome["wait"] = remote.text(result)

        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await anyio.sleep(0.2)  # let the sync tool start blocking its thread
            result = await remote.session.call_tool("send_signal", {})
            outcome["send"] = remote.text(result)

    remote.run(both)
    assert outcome == {"send": "sent", "wait": "signalled"}


def _logged(remote: Remote, last: str) -> str:
    """The server's stderr once ``last`` is in it: ``--log`` writes from a thread of its
    own, which a loaded machine may run a little after the answer is sent."""
    deadline = time.monotonic() + TIMEOUT
    while last not in (text := remote.stderr.read_text(encoding="utf-8")):
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    return text


def test_stdout_carries_only_the_protocol_and_logs_go_to_stderr(remote: Remote) -> None:
    result = remote.call("noisy", {"message": "stray print from a tool"})
    assert (result.is_error, remote.text(result)) == (False, "printed")
    # The session still works and never saw a line it could not parse.
    assert remote.text(remote.call("add", {"a": 1, "b": 1})) == "2"
    remote.call("syncInventory", {"api_token": "wh-secret-1", "warehouse_id": "2"})
    # the calls this test's log assertions need are made here: under xdist the module's
    # other tests may run on another worker, against another server
    remote.call("countdown", {"start": "1"})
    remote.call("explode", {"reason": "on purpose"})
    assert remote.problems == []
    stderr = _logged(remote, "Tool response: explode")
    assert "stray print from a tool" in stderr
    assert "Tool request: add" in stderr
    assert "Tool request: countdown" in stderr  # async tools are logged too
    assert "Tool response: explode result=boom: on purpose is_error=True" in stderr
    assert "wh-secret-1" not in stderr  # a sensitive argument is masked
    assert "Traceback" not in stderr


def test_modern_protocol_era() -> None:
    """The 2026-07-28 per-request era (``Client``'s default ``auto`` mode) serves the same."""
    from mcp.client import Client

    params = StdioServerParameters(command=sys.executable, args=[str(LAUNCHER)], cwd=str(ROOT),
                                   env={"PYTHONWARNINGS": "error"})

    async def main() -> None:
        with anyio.fail_after(TIMEOUT):
            async with Client(params) as client:
                assert "add" in [t.name for t in (await client.list_tools()).tools]
                added = await client.call_tool("add", {"a": "3", "b": 4})
                assert (added.is_error, added.content[0].text) == (False, "7")
                stock = await client.call_tool("check_stock", {"skus": ["GFT-001"]})
                assert stock.structured_content == {"GFT-001": 3}
                failed = await client.call_tool("explode", {"reason": "x"})
                assert (failed.is_error, failed.content[0].text) == (True, "boom: x")
                with pytest.raises(MCPError) as info:
                    await client.call_tool("nope", {})
                assert info.value.code == types.INVALID_PARAMS

    anyio.run(main)


# ---------------------------------------------------------------- the CLI: `agentforge serve`


def test_agentforge_serve_command(tmp_path: Path) -> None:
    """The installed command, its targets resolved by the CLI, driven by the SDK client."""
    assert AGENTFORGE.exists(), "the agentforge entry point is not installed (make install)"
    args = ["serve", "sample_tools.shop", "tests/integrations/mcp_sample_tools.py", "--log"]
    for remote in _serve_command(str(AGENTFORGE), args, tmp_path):
        assert remote.init.server_info.name == "agentforge"
        assert remote.init.server_info.version == __version__
        names = [t.name for t in remote.run(remote.session.list_tools).tools]
        assert {"getPrice", "add", "countdown"} <= set(names)
        price = remote.call("getPrice", {"sku": "TEA-001", "quantity": "3"})
        assert (price.is_error, remote.text(price)) == (False, "384.00")
        added = remote.call("add", {"a": "3", "b": 4})
        assert (added.is_error, remote.text(added)) == (False, "7")
        bad = remote.call("add", {"a": "three", "b": 4})
        assert bad.is_error is True
        assert 'Argument "a"' in remote.text(bad)
        raised = remote.call("explode", {"reason": "via the CLI"})
        assert (raised.is_error, remote.text(raised)) == (True, "boom: via the CLI")
        counted = remote.call("countdown", {"start": "2"})
        assert json.loads(remote.text(counted))["values"] == [2, 1]
        with pytest.raises(MCPError) as info:
            remote.call("nope", {})
        assert info.value.code == types.INVALID_PARAMS
        noisy = remote.call("noisy", {"message": "stray print via the CLI"})
        assert noisy.is_error is False
    stderr = (tmp_path / "cli-stderr.txt").read_text(encoding="utf-8")
    assert "Tool request: add" in stderr  # --log goes to stderr
    assert "stray print via the CLI" in stderr  # a tool's print never reaches stdout
    assert "Traceback" not in stderr


def _serve_command(command: str, args: list[str], tmp_path: Path):
    for remote in serve(args, tmp_path, command=command, stderr_name="cli-stderr.txt"):
        yield remote
        assert remote.problems == []


# ---------------------------------------------------------------- in process


def test_core_never_imports_the_sdk() -> None:
    code = ("import sys, agentforge_cli; from agentforge_cli import *; "
            "import agentforge_cli.integrations.mcp.server.tool_server; "
            "import agentforge_cli.integrations.mcp.server.stdio; "
            "bad = sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'anyio')));"
            "print(bad)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=TIMEOUT, check=True)
    assert done.stdout.strip() == "[]"


def test_require_mcp_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    with pytest.raises(MCPUnavailableError,
                       match=r"from a clone of agentforge with: pip install '\.\[mcp\]'"):
        require_mcp()
    monkeypatch.setattr(metadata, "version", lambda name: "1.26.0")
    with pytest.raises(MCPUnavailableError, match=r"mcp>=2\.3; mcp 1\.26\.0 is installed"):
        build_server(ToolService())


def test_in_process_policies() -> None:
    """Timeouts and propagated execution errors still become error results."""
    import asyncio

    from agentforge_cli import tool

    @tool
    async def sleepy(seconds: float) -> str:
        """Sleep."""
        await asyncio.sleep(seconds)
        return "awake"

    @tool
    def failing() -> str:
        """Fail."""
        raise LookupError("nothing here")

    slow = ToolService().tools(build_local_tools([sleepy], timeout=0.05))
    strict = ToolService().tools(build_local_tools([failing], propagate_execution_errors=True))

    async def main() -> list[Any]:
        return [
            await execute_tool(slow, ToolExecutionRequest(name="sleepy",
                                                          arguments={"seconds": 5})),
            await execute_tool(slow, ToolExecutionRequest(name="sleepy",
                                                          arguments={"seconds": "0"})),
            await execute_tool(strict, ToolExecutionRequest(name="failing", arguments=None)),
            await execute_tool(strict, ToolExecutionRequest(name="nope", arguments=None)),
        ]

    timed_out, quick, failed, unknown = anyio.run(main)
    assert tuple(timed_out) == ('Tool "sleepy" timed out after 0.05 s', True)
    assert tuple(quick) == ("awake", False)
    assert tuple(failed) == ("nothing here", True)
    assert unknown.is_error and unknown.text.startswith('Unknown tool "nope".')


def test_agentforge_serve_validates_inputs_unless_lenient(tmp_path: Path) -> None:
    """MCP servers must validate tool inputs: `serve` binds strictly by default."""
    # the command line of this checkout (its root is the server's working directory)
    args = ["-c", "from agentforge_cli.cli.app import main; main()", "serve",
            "sample_tools.crm:CrmTools", "docs/examples/ticket_tools.py"]
    (tmp_path / "strict").mkdir()
    for remote in _serve_command(sys.executable, args, tmp_path / "strict"):
        missing = remote.call("queryCustomer", {"limit": 5})
        assert (missing.is_error, remote.text(missing)) == (
            True, 'Required parameter "name" of tool "queryCustomer" is missing; '
                  "queryCustomer takes name (string), limit (integer)")
        wrong = remote.call("queryCustomer", {"name": "长路", "limit": "many"})
        assert wrong.is_error is True
        assert remote.text(wrong).startswith('Argument "limit" has non-integer value')
        unknown = remote.call("queryCustomer", {"name": "长路", "limit": 5, "city": "上海"})
        assert (unknown.is_error, remote.text(unknown)) == (
            True, '"city" is not a parameter of tool "queryCustomer". '
                  "queryCustomer takes name (string), limit (integer)")
        fine = remote.call("queryCustomer", {"name": "长路", "limit": 5})
        assert (fine.is_error, remote.text(fine)) == (False, "customer:长路,limit:5")
    (tmp_path / "lenient").mkdir()
    for remote in _serve_command(sys.executable, [*args, "--lenient"], tmp_path / "lenient"):
        filled = remote.call("queryCustomer", {"name": "长路"})
        assert (filled.is_error, remote.text(filled)) == (False, "customer:长路,limit:0")
        crashed = remote.call("create_ticket", {"subject": "Refund"})
        assert (crashed.is_error, remote.text(crashed)) == (
            True, "\"customer\" was missing and was passed as None; then: 'NoneType' object "
                  "has no attribute 'email'")
