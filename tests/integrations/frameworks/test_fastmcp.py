"""FastMCP servers as targets (``agentforge_cli.integrations.frameworks.fastmcp``), and
``to_fastmcp``: the real library, in-process (``fastmcp_tools.py``), through the command
line in-process (``cli``), FastMCP's own in-memory ``Client``, and for ``record`` and
``serve`` the official ``mcp`` client over stdio.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import fastmcp_tools
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TOOLS = HERE / "fastmcp_tools.py"
TARGET = f"{TOOLS}:server"
CONTEXT_TARGET = f"{TOOLS}:context_server"
AGENTFORGE = [sys.executable, "-c", "from agentforge_cli.cli.app import main; main()"]
MATRIX = [  # arguments, native outcome, agentforge outcome (ok text, or refusal start)
    ('{"days": "3"}', ("ok", "3 days in celsius for here"),
     ("ok", "3 days in celsius for here")),
    ('{"days": 3,}', ("refused", "the arguments of forecast are not valid JSON"),
     ("ok", "3 days in celsius for here")),
    ('{"days": 3, "place": "{\\"city\\": \\"Paris\\"}"}',
     ("refused", "1 validation error for call[forecast]\nplace\n  Input should be a valid "
                 "dictionary or instance of Place"),
     ("ok", "3 days in celsius for Paris")),
    ('{"days": 3, "unit": "CELSIUS"}',
     ("refused", "1 validation error for call[forecast]\nunit\n  Input should be 'celsius' "
                 "or 'fahrenheit'"),
     ("ok", "3 days in celsius for here")),
]


def _listed(server: Any) -> list[dict[str, Any]]:
    """What the server answers ``tools/list`` with, through FastMCP's own client, as
    ``tools list --format json`` rows."""
    from fastmcp import Client

    async def main() -> list[Any]:
        async with Client(server) as client:
            return list(await client.list_tools())

    rows = []
    for tool in asyncio.run(main()):
        row = {"name": tool.name, "description": tool.description or "",
               "parameters": tool.input_schema, "title": tool.title}
        if tool.annotations is not None:
            row["annotations"] = tool.annotations.model_dump(by_alias=True, exclude_none=True)
        if tool.output_schema is not None:
            row["output_schema"] = tool.output_schema
        if tool.icons:
            row["icons"] = [icon.model_dump(by_alias=True, exclude_none=True)
                            for icon in tool.icons]
        if tool.meta is not None:  # FastMCP's own `_meta` (its tags), kept as listed
            row["meta"] = tool.meta
        rows.append(row)
    return rows


def _changed_tools(tmp_path: Path) -> Path:
    """The tool set with ``forecast`` answering differently (a changed tool)."""
    changed = tmp_path / "fastmcp_changed.py"
    changed.write_text(TOOLS.read_text(encoding="utf-8").replace(
        "return f\"{days} days in {unit}", "return f\"{days} day(s) in {unit}"),
        encoding="utf-8")
    return changed


# ---------------------------------------------------------------- the schema


def test_list_json_is_what_the_server_answers_tools_list(cli) -> None:
    done = cli("tools", "list", TARGET, "--format", "json")
    assert done.exit_code == 0, done.stderr
    rows = json.loads(done.stdout)
    assert rows == _listed(fastmcp_tools.server)
    assert [row["name"] for row in rows] == ["forecast", "convert", "lookup", "refuse"]
    forecast = rows[0]
    assert forecast["description"] == "Forecast the weather."
    assert forecast["parameters"]["properties"]["days"] == {
        "description": "How many days ahead.", "type": "integer"}
    assert rows[1]["annotations"] == {"readOnlyHint": True}


@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_provider_formats(cli, provider: str) -> None:
    done = cli("tools", "list", TARGET, "--format", provider)
    assert done.exit_code == 0, done.stderr
    assert "forecast" in done.stdout and "How many days ahead." in done.stdout


def test_a_scanned_module_reads_every_server(cli) -> None:
    done = cli("tools", "list", str(TOOLS), "--format", "json")
    assert done.exit_code == 0, done.stderr
    assert [row["name"] for row in json.loads(done.stdout)] == [
        "forecast", "convert", "lookup", "refuse", "greet"]


def test_a_tool_object_on_its_own(tmp_path: Path, cli) -> None:
    module = tmp_path / "lone_fastmcp_tool.py"
    module.write_text(
        "from fastmcp.tools import Tool\n\n"
        "def double(x: int) -> int:\n    '''Double a number.'''\n    return 2 * x\n\n"
        "double_tool = Tool.from_function(double)\n", encoding="utf-8")
    listed = cli("tools", "list", f"{module}:double_tool", "--format", "json")
    assert listed.exit_code == 0, listed.stderr
    assert json.loads(listed.stdout)[0]["name"] == "double"
    done = cli("tools", "call", "double", '{"x": "4"}', "-t", f"{module}:double_tool")
    assert (done.exit_code, done.stdout) == (0, "8\n")


# ---------------------------------------------------------------- calls


@pytest.mark.parametrize(("arguments", "native", "bound"), MATRIX)
@pytest.mark.parametrize("binding", ["native", "agentforge"])
def test_the_sloppy_argument_matrix(cli, binding: str, arguments: str,
                                    native: tuple[str, str], bound: tuple[str, str]) -> None:
    kind, text = native if binding == "native" else bound
    done = cli("tools", "call", "forecast", arguments, "-t", TARGET, "--binding", binding)
    if kind == "ok":
        assert (done.exit_code, done.stdout) == (0, text + "\n"), done.stderr
    else:
        assert done.exit_code == 1
        assert (done.stdout + done.stderr).lstrip().startswith(text), done.stdout + done.stderr
        assert "Traceback" not in done.stderr


def test_a_tool_exception_is_an_error_result_with_its_message(cli) -> None:
    done = cli("tools", "call", "lookup", '{"code": "xx"}', "-t", TARGET)
    assert done.exit_code == 1
    # FastMCP's own words for the failure, as a client of the server reads them
    assert done.stdout == "Error calling tool 'lookup': 'XX'\n"
    assert "Traceback" not in done.stderr and "Error calling tool" not in done.stderr


def test_a_tool_error_of_the_tool_is_its_text(cli) -> None:
    done = cli("tools", "call", "refuse", '{"reason": "closed"}', "-t", TARGET)
    assert (done.exit_code, done.stdout) == (1, "refused: closed\n")


def test_the_native_path_raises_the_function_s_exception() -> None:
    from agentforge_cli.integrations.frameworks import read_foreign

    tools = {tool.specification.name: tool for tool in read_foreign(fastmcp_tools.server, "t")}
    with pytest.raises(KeyError, match="XX"):
        tools["lookup"].invoke('{"code": "xx"}')
    ok = tools["lookup"].invoke('{"code": "par"}')
    assert (ok.text, ok.is_error) == ("Paris-Montsouris", False)
    assert tools["lookup"].source is tools["lookup"].source  # FastMCP's FunctionTool
    again = {t.specification.name: t for t in read_foreign(fastmcp_tools.server, "t")}
    assert again["lookup"].source is tools["lookup"].source
    assert tools["forecast"].function is fastmcp_tools.forecast


def test_blocks_and_structured_content_are_kept(cli) -> None:
    done = cli("tools", "call", "convert", '{"celsius": 10}', "-t", TARGET, "--json")
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["content"] == [{"type": "text", "text": '{"fahrenheit":50.0}'}]
    assert result["structuredContent"] == {"fahrenheit": 50.0}


def test_explain_names_the_path(cli) -> None:
    native = cli("tools", "call", "forecast", '{"days": 1}', "-t", TARGET, "--explain")
    assert "binding: native (FastMCP's own path, tools/call through an in-memory " \
           "fastmcp.Client" in native.stdout + native.stderr
    bound = cli("tools", "call", "forecast", '{"days": 1}', "-t", TARGET, "--explain",
                "--binding", "agentforge")
    assert "binding: agentforge" in bound.stdout + bound.stderr
    assert "FastMCP's function" in bound.stdout + bound.stderr


def test_a_context_tool_runs_natively_and_is_unreachable_for_agentforge(cli) -> None:
    done = cli("tools", "call", "greet", '{"name": "Ada"}', "-t", CONTEXT_TARGET)
    assert (done.exit_code, done.stdout) == (0, "hello Ada from greeter\n")
    bound = cli("tools", "call", "greet", '{"name": "Ada"}', "-t", CONTEXT_TARGET,
                "--binding", "agentforge")
    assert (bound.exit_code, bound.stdout) == (0, "hello Ada from greeter\n")  # natively
    assert ("--binding agentforge cannot reach its function: it takes parameters FastMCP "
            "fills in") in bound.stderr


# ---------------------------------------------------------------- check, diff, fuzz


def test_check_and_a_breaking_change_against_the_snapshot(cli, tmp_path: Path) -> None:
    assert cli("tools", "check", TARGET).exit_code == 0
    snapshot = tmp_path / "tools.lock.json"
    written = cli("tools", "check", TARGET, "--snapshot", str(snapshot), "--update-snapshot")
    assert written.exit_code == 0, written.stdout + written.stderr
    broken_tools = tmp_path / "fastmcp_broken.py"
    broken_tools.write_text(TOOLS.read_text(encoding="utf-8").replace(
        "def lookup(code: str)", "def lookup(code: str, region: str)"), encoding="utf-8")
    broken = cli("tools", "check", f"{broken_tools}:server", "--snapshot", str(snapshot))
    assert broken.exit_code == 1
    assert "breaking" in broken.stdout and "region" in broken.stdout
    new = tmp_path / "new.lock.json"
    assert cli("tools", "check", f"{broken_tools}:server", "--snapshot", str(new),
               "--update-snapshot").exit_code == 0
    diff = cli("tools", "diff", str(snapshot), str(new))
    assert diff.exit_code == 1 and "region" in diff.stdout


def test_fuzz_finds_the_fragile_tool_and_nothing_else(cli) -> None:
    done = cli("tools", "fuzz", TARGET, "--seed", "0", "--examples", "50", "--json")
    assert done.exit_code == 1
    report = {tool["name"]: tool for tool in json.loads(done.stdout)["tools"]}
    assert report["lookup"]["failed"]
    assert report["lookup"]["counts"]["crash"] > 0
    assert "KeyError" in report["lookup"]["failures"][0]["detail"]
    for name in ("forecast", "convert", "refuse"):
        assert not report[name]["failed"], report[name]
        assert report[name]["counts"]["mismatch"] == 0
    assert report["refuse"]["counts"]["tool error"] > 0  # its own ToolError


# ---------------------------------------------------------------- record, replay, serve


@pytest.fixture(scope="module")
def stdio_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    """The tool set run by FastMCP over stdio under ``agentforge record``, and the
    official ``mcp`` client connected to it; yields a sync ``call`` and the recording."""
    from anyio.from_thread import start_blocking_portal
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    folder = tmp_path_factory.mktemp("fastmcp-record")
    recording = folder / "session.jsonl"
    launcher = folder / "run_fastmcp.py"
    launcher.write_text(f"import sys\nsys.path.insert(0, {str(HERE)!r})\n"
                        "import fastmcp_tools\n"
                        "fastmcp_tools.server.run(transport='stdio', show_banner=False)\n",
                        encoding="utf-8")
    params = StdioServerParameters(
        command=AGENTFORGE[0], args=[*AGENTFORGE[1:], "record", "-o", str(recording), "--",
                                     sys.executable, str(launcher)],
        cwd=str(ROOT), env=_env())
    with _connected(params, folder, start_blocking_portal, ClientSession,
                    stdio_client) as run:
        yield run, recording


def _env() -> dict[str, str]:
    import os

    keep = {key: os.environ[key] for key in ("PATH", "PYTHONPATH", "HOME") if key in os.environ}
    return {**keep, "FASTMCP_LOG_ENABLED": "false"}


@contextmanager
def _connected(params: Any, folder: Path, start_blocking_portal: Any, session_class: Any,
               stdio_client: Any) -> Iterator[Any]:
    """A sync ``run(method, *args)`` on the official client's session."""

    @asynccontextmanager
    async def connect() -> Any:
        with (folder / "stderr.txt").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    session_class(read, write) as session:
                await session.initialize()
                yield session

    with start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(connect()) as session:
        def run(method: str, *args: Any) -> Any:
            return portal.call(getattr(session, method), *args)

        yield run


CALLS = [("forecast", {"days": 3}), ("forecast", {"days": "2", "unit": "fahrenheit"}),
         ("convert", {"celsius": 20}), ("lookup", {"code": "ber"}),
         ("forecast", {"days": 3, "unit": "CELSIUS"}), ("refuse", {"reason": "closed"})]


def test_a_recorded_session_replays_all_matched(stdio_session, cli, tmp_path: Path) -> None:
    run, recording = stdio_session
    answers = [run("call_tool", name, arguments) for name, arguments in CALLS]
    assert [answer.is_error for answer in answers] == [False, False, False, False, True, True]
    assert recording.read_text(encoding="utf-8").count('"tools/call"') == len(CALLS)
    done = cli("replay", str(recording), "-t", TARGET, "--json")
    assert done.exit_code == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert [call["status"] for call in report["calls"]] == ["matched"] * len(CALLS)
    changed = cli("replay", str(recording), "-t", f"{_changed_tools(tmp_path)}:server")
    assert changed.exit_code == 1
    assert "mismatched" in changed.stdout


def test_serve_passes_blocks_and_output_schema_on(tmp_path: Path) -> None:
    from anyio.from_thread import start_blocking_portal
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=AGENTFORGE[0],
                                   args=[*AGENTFORGE[1:], "serve", TARGET],
                                   cwd=str(ROOT), env=_env())
    with _connected(params, tmp_path, start_blocking_portal, ClientSession,
                    stdio_client) as run:
        listed = {tool.name: tool for tool in run("list_tools").tools}
        assert listed["convert"].output_schema == _listed(fastmcp_tools.server)[1][
            "output_schema"]
        result = run("call_tool", "convert", {"celsius": 10})
        assert result.structured_content == {"fahrenheit": 50.0}
        assert [block.text for block in result.content] == ['{"fahrenheit":50.0}']
        sloppy = run("call_tool", "forecast", {"days": "3"})
        assert (sloppy.is_error, sloppy.content[0].text) == (False, "3 days in celsius for here")
        crash = run("call_tool", "lookup", {"code": "xx"})
        assert (crash.is_error, crash.content[0].text) == (True, "Error calling tool 'lookup': "
                                                                 "'XX'")


# ---------------------------------------------------------------- bad input, export


def test_a_server_without_tools_is_a_clear_error(cli) -> None:
    done = cli("tools", "list", f"{TOOLS}:empty_server")
    assert done.exit_code == 3
    assert "yields no tool" in done.stderr and "Traceback" not in done.stderr


def test_importing_agentforge_does_not_import_fastmcp() -> None:
    code = ("import sys, agentforge_cli, agentforge_cli.integrations, "
            "agentforge_cli.integrations.frameworks, agentforge_cli.integrations.targets.loading\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastmcp', 'mcp')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"


def add(a: int, b: int = 1) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


def test_to_fastmcp_serves_agentforge_tools_end_to_end() -> None:
    from fastmcp import Client, FastMCP

    from agentforge_cli import build_local_tools, tool
    from agentforge_cli.integrations.frameworks.fastmcp import to_fastmcp

    added = tool(add)
    server = to_fastmcp([added], name="sums")
    assert isinstance(server, FastMCP)
    spec = next(iter(build_local_tools([added])))

    async def main() -> tuple[list[Any], Any, Any]:
        async with Client(server) as client:
            listed = await client.list_tools()
            sloppy = await client.call_tool_mcp("add", {"a": "2", "b": 3})
            wrong = await client.call_tool_mcp("add", {"a": "two"})
            return list(listed), sloppy, wrong

    listed, sloppy, wrong = asyncio.run(main())
    assert [(t.name, t.description, t.input_schema) for t in listed] == [
        ("add", spec.description, spec.parameters)]
    assert (sloppy.is_error, sloppy.content[0].text) == (False, "5")
    assert wrong.is_error and '"a"' in wrong.content[0].text
