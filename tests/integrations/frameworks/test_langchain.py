"""LangChain tools as targets (``frameworks/langchain.py``) and ``to_langchain``, run with
the real library: the schema LangChain sends, its own validation on the native path,
agentforge's repairs on ``--binding agentforge``, and every command on the tool set."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool

pytestmark = pytest.mark.usefixtures("plain_terminal")

HERE = Path(__file__).parent
TOOLS = str(HERE / "langchain_tools.py")

MATRIX = {
    "string number": '{"days": "3"}',
    "trailing comma": '{"days": 3,}',
    "double-encoded": '{"days": 3, "place": "{\\"city\\": \\"Paris\\"}"}',
    "wrong-case enum": '{"days": 3, "unit": "CELSIUS"}',
}


def _module():  # the tool set, imported as the loader imports it
    import importlib.util

    spec = importlib.util.spec_from_file_location("lc_tools_for_schema", TOOLS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_list_is_the_schema_langchain_sends(cli):
    done = cli("tools", "list", TOOLS, "--format", "json")
    assert done.exit_code == 0, done.output
    listed = {row["name"]: row for row in json.loads(done.stdout)}
    module = _module()
    assert list(listed) == ["forecast", "convert", "lookup", "whoami"]
    for name in listed:
        sent = convert_to_openai_tool(getattr(module, name))["function"]
        assert listed[name] == sent
    assert list(listed["whoami"]["parameters"]["properties"]) == ["greeting"]  # user: injected


def test_a_toolkit_is_read_through_get_tools(cli):
    done = cli("tools", "list", f"{TOOLS}:toolkit", "--format", "json")
    assert done.exit_code == 0, done.output
    assert [row["name"] for row in json.loads(done.stdout)] == ["forecast", "convert"]


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_every_provider_format_is_made_from_it(cli, provider):
    done = cli("tools", "list", f"{TOOLS}:forecast", "--format", provider)
    assert done.exit_code == 0, done.output
    assert "days" in done.stdout


@pytest.mark.parametrize(("case", "native", "agentforge"), [
    ("string number", "3 days in celsius for here", "3 days in celsius for here"),
    ("trailing comma", "the arguments of forecast are not valid JSON",
     "3 days in celsius for here"),
    ("double-encoded", "1 validation error for forecast\nplace", "3 days in celsius for Paris"),
    ("wrong-case enum", "1 validation error for forecast\nunit", "3 days in celsius for here"),
])
def test_sloppy_arguments_native_and_agentforge(cli, case, native, agentforge):
    for binding, expected in (("native", native), ("agentforge", agentforge)):
        done = cli("tools", "call", "forecast", MATRIX[case], "-t", TOOLS, "--binding", binding)
        assert done.stdout.startswith(expected), (binding, done.output)
        assert done.exit_code == (0 if expected.startswith("3 days") else 1)


def test_a_refusal_names_pydantic_s_error(cli):
    done = cli("tools", "call", "forecast", MATRIX["wrong-case enum"], "-t", TOOLS)
    assert done.exit_code == 1
    assert "unit\n  Input should be 'celsius' or 'fahrenheit'" in done.stdout


def test_a_tool_exception_is_an_error_result(cli):
    done = cli("tools", "call", "lookup", '{"code": "xyz"}', "-t", TOOLS)
    assert (done.exit_code, done.stdout.strip()) == (1, "XYZ")
    done = cli("tools", "call", "lookup", '{"code": "par"}', "-t", TOOLS, "--propagate-errors")
    assert (done.exit_code, done.stdout.strip()) == (0, "Paris")


def test_injected_arguments_are_refused_with_the_reason(cli):
    done = cli("tools", "call", "whoami", '{"greeting": "hi"}', "-t", TOOLS)
    assert done.exit_code == 1
    assert "harness fills in (user)" in done.stdout
    done = cli("tools", "call", "whoami", '{"greeting": "hi"}', "-t", TOOLS,
               "--binding", "agentforge")
    assert done.exit_code == 1, done.output  # called natively, and said so
    assert "harness fills in (user)" in done.stdout
    assert ("binding: native (LangChain's own path, StructuredTool.invoke: its JSON parsing, "
            "its validation, its errors); --binding agentforge cannot reach its function: it "
            "takes arguments the harness fills in (user)") in done.stderr


def test_explain_says_which_path_ran(cli):
    done = cli("tools", "call", "forecast", '{"days": "3"}', "-t", TOOLS, "--explain")
    assert "binding: native (LangChain's own path, StructuredTool.invoke" in done.stderr
    assert "forecast is bound by LangChain" in done.stderr
    done = cli("tools", "call", "forecast", '{"days": "3"}', "-t", TOOLS, "--explain",
               "--binding", "agentforge")
    assert "binding: agentforge (agentforge's coercion table in front of LangChain's" \
        in done.stderr
    assert "coerced to int" in done.stderr
    done = cli("tools", "call", "forecast", '{"days": "3"}', "-t", TOOLS, "--json")
    assert json.loads(done.stdout)["binding"] == "native"


def test_check_and_snapshots(cli, tmp_path, write_module):
    done = cli("tools", "check", TOOLS, "--provider", "openai-strict", "--json")
    assert done.exit_code == 0, done.output
    found = json.loads(done.stdout)["findings"]
    # @tool without parse_docstring=True sends no parameter descriptions: lint says so
    assert {(f["rule"], f["level"]) for f in found} == {("no-description", "warning")}
    assert {f["path"] for f in found if f["tool"] == "forecast"} == {
        "$.days", "$.unit", "$.place", "$.place.city"}
    snapshot = tmp_path / "tools.lock.json"
    done = cli("tools", "check", TOOLS, "--snapshot", str(snapshot), "--update-snapshot")
    assert done.exit_code == 0, done.output
    assert cli("tools", "check", TOOLS, "--snapshot", str(snapshot)).exit_code == 0
    changed = write_module("lc_changed", '''
        from langchain_core.tools import tool

        @tool
        def forecast(days: str, region: str) -> str:
            """Forecast the weather."""
            return days
    ''')
    done = cli("tools", "check", str(changed), "--snapshot", str(snapshot))
    assert done.exit_code == 1, done.output
    assert "region" in done.output


def test_fuzz_finds_the_crash_and_no_false_mismatch(cli):
    done = cli("tools", "fuzz", TOOLS, "--seed", "0", "--examples", "40", "--json")
    assert done.exit_code == 1, done.output
    reports = {tool["name"]: tool for tool in json.loads(done.stdout)["tools"]}
    kinds = {name: {f["kind"] for f in report["failures"]} for name, report in reports.items()}
    assert kinds["lookup"] == {"crash"}
    assert kinds["forecast"] == kinds["convert"] == set()


def _recorded_conversation(path: Path, tools: dict[str, object]) -> None:
    """A LangChain message history as an app keeps it: the AI's tool calls, each answered
    by the tool's own ``invoke``, saved with ``messages_to_dict``."""
    from langchain_core.messages import AIMessage, HumanMessage, messages_to_dict

    calls = [{"name": "forecast", "args": {"days": 2, "place": {"city": "Oslo"}}, "id": "c1"},
             {"name": "convert", "args": {"amount": 3.5}, "id": "c2"}]
    messages = [HumanMessage("weather and money"), AIMessage("", tool_calls=calls)]
    for call in calls:
        messages.append(tools[call["name"]].invoke({**call, "type": "tool_call"}))
    messages.append(AIMessage("done"))
    path.write_text(json.dumps(messages_to_dict(messages)), encoding="utf-8")


def test_replay_a_langchain_history(cli, tmp_path, write_module):
    module = _module()
    history = tmp_path / "history.json"
    _recorded_conversation(history, {"forecast": module.forecast, "convert": module.convert})
    done = cli("replay", str(history), "-t", TOOLS, "--json")
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)["summary"]
    assert summary == {"matched": 2, "mismatched": 0, "unrecorded": 0}
    changed = write_module("lc_changed_result", '''
        from langchain_core.tools import tool

        @tool
        def forecast(days: int, place: dict | None = None) -> str:
            """Forecast the weather."""
            return "sunny"

        @tool
        def convert(amount: float, currency: str = "EUR") -> str:
            """Convert."""
            return f"{amount * 2:g} {currency}"
    ''')
    done = cli("replay", str(history), "-t", str(changed), "--json")
    assert done.exit_code == 1, done.output
    assert json.loads(done.stdout)["summary"]["mismatched"] == 1


def test_serve_over_mcp_with_the_official_client(tmp_path):
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def session() -> tuple[list[str], str]:
        params = StdioServerParameters(
            command=str(Path(sys.executable).with_name("agentforge")),
            args=["serve", TOOLS, "--binding", "agentforge"], cwd=str(tmp_path))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            names = [t.name for t in (await client.list_tools()).tools]
            answer = await client.call_tool("forecast", {"days": "4", "unit": "Fahrenheit"})
            return names, answer.content[0].text  # type: ignore[union-attr]

    names, text = asyncio.run(asyncio.wait_for(session(), 60))
    assert names == ["forecast", "convert", "lookup", "whoami"]
    assert text == "4 days in fahrenheit for here"


def test_an_object_of_langchain_that_holds_no_tool_is_refused(cli, write_module):
    path = write_module("lc_empty", '''
        from langchain_core.tools import BaseToolkit

        class Empty(BaseToolkit):
            def get_tools(self):
                return []

        empty = Empty()
        from langchain_core.messages import HumanMessage
        message = HumanMessage("not a tool")
    ''')
    for name in ("empty", "message"):
        done = cli("tools", "list", f"{path}:{name}")
        assert done.exit_code == 3, done.output
        assert "yields no tool" in done.stderr
        assert "Traceback" not in done.output


def test_a_toolkit_that_fails_is_a_target_error(cli, write_module):
    path = write_module("lc_broken", '''
        from langchain_core.tools import BaseToolkit

        class Broken(BaseToolkit):
            def get_tools(self):
                raise RuntimeError("no credentials")

        broken = Broken()
    ''')
    done = cli("tools", "list", f"{path}:broken")
    assert done.exit_code == 3, done.output
    assert "cannot read the LangChain tools of target" in done.stderr
    assert "RuntimeError: no credentials" in done.stderr


def test_to_langchain_runs_through_agentforge(tmp_path):
    from langchain_core.messages import ToolMessage

    from agentforge_cli import tool
    from agentforge_cli.integrations import to_langchain

    @tool
    def query(name: str, limit: int = 10) -> str:
        """Find customers.

        Args:
            name: Who.
            limit: How many.
        """
        return f"{name}:{limit}"

    (exported,) = to_langchain([query])
    from agentforge_cli.core.define.definition import tool_specification_from

    sent = convert_to_openai_tool(exported)["function"]
    assert sent["parameters"] == tool_specification_from(query).parameters
    assert sent["description"] == "Find customers."
    message = exported.invoke({"type": "tool_call", "name": "query", "id": "t1",
                               "args": {"name": "长路", "limit": "5"}})
    assert isinstance(message, ToolMessage)
    assert (message.content, message.status, message.tool_call_id) == ("长路:5", "success", "t1")
    failed = exported.invoke({"type": "tool_call", "name": "query", "id": "t2",
                              "args": {"name": "x", "limit": "many"}})
    assert failed.status == "error"
    assert 'Argument "limit"' in failed.content


def test_importing_agentforge_loads_no_framework():
    code = ("import sys, agentforge_cli, agentforge_cli.integrations; "
            "from agentforge_cli import tool, P; "
            "print(sorted(m for m in ('langchain_core', 'pydantic_ai', 'agents', 'fastmcp', "
            "'smolagents') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
