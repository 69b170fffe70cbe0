"""pydantic-ai tools as targets (``frameworks/pydantic_ai.py``), and ``to_pydantic_ai``.

Everything runs the real library offline: the schema is what a ``FunctionModel`` is sent
in a real ``Agent`` run, the transcript is a real run's ``all_messages_json()``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pydantic_ai_tools
import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agentforge_cli import ToolService, build_local_tools
from agentforge_cli.integrations.frameworks import PYDANTIC_AI as adapter
from agentforge_cli.integrations.frameworks import adapter_for, foreign_table
from agentforge_cli.integrations.frameworks.pydantic_ai import to_pydantic_ai

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TOOLS = str(HERE / "pydantic_ai_tools.py")
TARGETS = [TOOLS, f"{TOOLS}:toolset", f"{TOOLS}:agent"]


def run(agent: Agent[Any, Any], prompt: str) -> Any:
    """``agent.run`` on a loop of its own, closed afterwards (``run_sync`` leaves its loop
    set on the thread, unclosed)."""
    return asyncio.run(agent.run(prompt))


def sent_tool_defs(**agent_options: Any) -> list[dict[str, Any]]:
    """The tool definitions a real agent run sends its model, as ``--format json`` rows."""
    seen: list[Any] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(info.function_tools)
        return ModelResponse(parts=[TextPart("ok")])

    run(Agent(FunctionModel(model), **agent_options), "hi")
    return [{"name": d.name, "description": d.description or "",
             "parameters": d.parameters_json_schema} for d in seen]


def listed(cli: Any, target: str, fmt: str = "json") -> Any:
    result = cli("tools", "list", target, "--format", fmt)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# ---------------------------------------------------------------- tools list


@pytest.mark.parametrize("target", TARGETS)
def test_list_is_what_pydantic_ai_sends_the_model(cli, target):
    expected = sent_tool_defs(toolsets=[pydantic_ai_tools.toolset])
    assert [row["name"] for row in expected] == ["forecast", "add", "whoami", "region_of"]
    assert listed(cli, target) == expected
    forecast = expected[0]["parameters"]
    assert forecast["properties"]["days"] == {"description": "How many days ahead.",
                                             "type": "integer"}
    assert "$defs" in forecast  # Place, as pydantic writes it


@pytest.mark.parametrize("fmt", ["openai", "gemini"])
def test_provider_formats(cli, fmt):
    rows = listed(cli, f"{TOOLS}:toolset", fmt)
    assert len(rows) == 4
    assert "forecast" in json.dumps(rows)


def test_adapter_routing_and_module_scan():
    assert adapter_for(pydantic_ai_tools.forecast_tool) is adapter
    assert adapter_for(pydantic_ai_tools.toolset) is adapter
    assert adapter_for(pydantic_ai_tools.agent) is adapter
    assert adapter.in_module_scan(pydantic_ai_tools.forecast_tool)
    assert not adapter.in_module_scan(pydantic_ai_tools.toolset)
    assert not adapter.in_module_scan(pydantic_ai_tools.agent)
    # one Tool reached through the module, the toolset and the agent is one tool
    table = foreign_table([pydantic_ai_tools.forecast_tool, pydantic_ai_tools.toolset,
                           pydantic_ai_tools.agent], "test")
    assert [spec.name for spec in table] == ["forecast", "add", "whoami", "region_of"]


# ---------------------------------------------------------------- tools call

STRING_NUMBER = '{"days": "3"}'
TRAILING_COMMA = '{"days": 3,}'
DOUBLE_ENCODED = '{"days": 3, "place": "{\\"city\\": \\"Paris\\"}"}'
WRONG_CASE = '{"days": 3, "unit": "CELSIUS"}'
REFUSED = ""  # pydantic-ai's own retry text, as the model reads it

MATRIX = [
    ("native", STRING_NUMBER, 0, "3 days in celsius for here"),
    ("native", TRAILING_COMMA, 1,
     REFUSED + '[{"type":"json_invalid","loc":[],"msg":"Invalid JSON: trailing comma'),
    ("native", DOUBLE_ENCODED, 1,
     REFUSED + '[{"type":"model_type","loc":["place"],"msg":"Input should be an object"'),
    ("native", WRONG_CASE, 1,
     REFUSED + '[{"type":"literal_error","loc":["unit"],'
               '"msg":"Input should be \'celsius\' or \'fahrenheit\'"'),
    ("agentforge", STRING_NUMBER, 0, "3 days in celsius for here"),
    ("agentforge", TRAILING_COMMA, 0, "3 days in celsius for here"),
    ("agentforge", DOUBLE_ENCODED, 0, "3 days in celsius for Paris"),
    ("agentforge", WRONG_CASE, 0, "3 days in celsius for here"),
]


@pytest.mark.parametrize(("binding", "arguments", "code", "start"), MATRIX)
def test_sloppy_argument_matrix(cli, binding, arguments, code, start):
    result = cli("tools", "call", "forecast", arguments, "-t", TOOLS, "--binding", binding)
    assert result.exit_code == code, result.output
    assert result.stdout.startswith(start), result.stdout


def test_a_value_is_sent_back_as_pydantic_ai_serializes_it(cli):
    result = cli("tools", "call", "add", '{"a": 1, "b": "2"}', "-t", TOOLS)
    assert result.exit_code == 0, result.output
    assert result.stdout == '{"sum":3}\n'


def test_a_tool_exception_is_an_error_result(cli):
    result = cli("tools", "call", "region_of", '{"code": "XX"}', "-t", TOOLS, "--json")
    assert result.exit_code == 1, result.output
    answer = json.loads(result.stdout)
    assert answer["is_error"] is True
    assert answer["result"] == "XX"  # the KeyError's message, by agentforge's error policy
    propagated = cli("tools", "call", "region_of", '{"code": "XX"}', "-t", TOOLS,
                     "--propagate-errors")
    assert propagated.exit_code != 0
    assert propagated.stdout == ""


def test_unknown_keys_are_refused_by_pydantic_ai(cli):
    result = cli("tools", "call", "add", '{"a": 1, "b": 2, "c": 3}', "-t", TOOLS)
    assert result.exit_code == 1
    assert result.stdout.startswith('[{"type":"extra_forbidden","loc":["c"]')


@pytest.mark.parametrize("binding", ["native", "agentforge"])
def test_a_tool_taking_a_run_context(cli, binding):
    result = cli("tools", "call", "whoami", "{}", "-t", f"{TOOLS}:agent", "--binding", binding)
    assert result.exit_code == 0, result.output
    assert result.stdout == "I am whoami\n"


@pytest.mark.parametrize(("binding", "says"), [
    ("native", "binding: native (pydantic-ai's own path, ToolManager.handle_call"),
    ("agentforge", "binding: agentforge (agentforge's coercion table in front of "
                   "pydantic-ai's function sample_tools.weather_pydantic_ai.forecast"),
])
def test_explain_names_the_path(cli, binding, says):
    result = cli("tools", "call", "forecast", STRING_NUMBER, "-t", TOOLS, "--binding", binding,
                 "--explain")
    assert result.exit_code == 0, result.output
    assert says in result.stderr


RETRYING = '''
from pydantic_ai import ModelRetry, Tool
from pydantic_ai.exceptions import ToolFailed


def pick(n: int) -> str:
    """Pick a number."""
    if n == 0:
        raise ModelRetry("zero is not allowed, pick another")
    if n < 0:
        raise ToolFailed("negative numbers are out of stock")
    return str(n)


def strict(n: int) -> str:
    """No retry allowed."""
    return str(n)


pick_tool = Tool(pick)
strict_tool = Tool(strict, max_retries=0)
'''


def test_model_retry_and_tool_failed_are_error_results(cli, write_module):
    path = str(write_module("pyd_retrying", RETRYING))
    retry = cli("tools", "call", "pick", '{"n": 0}', "-t", path)
    assert (retry.exit_code, retry.stdout) == (1, "zero is not allowed, pick another\n")
    failed = cli("tools", "call", "pick", '{"n": -1}', "-t", path)
    assert (failed.exit_code, failed.stdout) == (1, "negative numbers are out of stock\n")
    ok = cli("tools", "call", "pick", '{"n": "4"}', "-t", path)
    assert (ok.exit_code, ok.stdout) == (0, "4\n")
    # with max_retries=0, pydantic-ai ends the run on the first bad call: still a refusal
    none_left = cli("tools", "call", "strict", '{"n": "x"}', "-t", path)
    assert none_left.exit_code == 1
    assert none_left.stdout.startswith(
        "Tool 'strict' exceeded max retries")


# ---------------------------------------------------------------- check, diff, fuzz


def test_check_and_a_breaking_change(cli, write_module, tmp_path):
    assert cli("tools", "check", TOOLS).exit_code in (0, 1)  # lint findings are fine
    snapshot = tmp_path / "tools.lock.json"
    written = cli("tools", "check", TOOLS, "--snapshot", str(snapshot), "--update-snapshot")
    assert written.exit_code in (0, 1), written.output
    assert snapshot.exists()
    changed = write_module("pyd_changed", '''
from pydantic_ai import Tool


def forecast(days: str, hours: int) -> str:
    """Forecast the weather."""
    return days


forecast_tool = Tool(forecast)
''')
    against = cli("tools", "check", str(changed), "--snapshot", str(snapshot))
    assert against.exit_code == 1
    assert "breaking" in against.output.lower()
    newer = tmp_path / "new.lock.json"
    cli("tools", "check", str(changed), "--snapshot", str(newer), "--update-snapshot")
    diff = cli("tools", "diff", str(snapshot), str(newer))
    assert diff.exit_code == 1
    assert "breaking" in diff.output.lower()


def test_fuzz_finds_the_fragile_tool_only(cli):
    result = cli("tools", "fuzz", TOOLS, "--seed", "0", "--examples", "50")
    assert result.exit_code == 1, result.output
    out = result.output
    assert "✗ region_of" in out and "crash: KeyError" in out
    for name in ("forecast", "add", "whoami"):
        assert f"✓ {name}:" in out
    assert "fuzz found 1 problem in 1 of 4 tools" in out
    assert "mismatch" not in out


# ---------------------------------------------------------------- replay


def run_agent(toolsets: list[Any], calls: list[ToolCallPart]) -> tuple[bytes, Any]:
    """A real agent run offline: the model calls ``calls`` once, then answers."""
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=calls)
        return ModelResponse(parts=[TextPart("done")])

    result = run(Agent(FunctionModel(model), toolsets=toolsets), "the weather?")
    return result.all_messages_json(), result


REPLAY_CALLS = [
    ToolCallPart("forecast", '{"days": "3", "place": {"city": "Paris"}}', tool_call_id="c1"),
    ToolCallPart("add", {"a": 1, "b": 2}, tool_call_id="c2"),
    ToolCallPart("whoami", "{}", tool_call_id="c3"),
]


def test_replay_of_a_real_agent_run(cli, write_module, tmp_path):
    history, _ = run_agent([pydantic_ai_tools.toolset], REPLAY_CALLS)
    transcript = tmp_path / "history.json"
    transcript.write_bytes(history)
    matched = cli("replay", str(transcript), "-t", TOOLS)
    assert matched.exit_code == 0, matched.output
    assert "matched           3" in matched.output
    changed = write_module("pyd_replay_changed", '''
from pydantic_ai import RunContext, Tool


def forecast(days: int, place: dict | None = None) -> str:
    """Forecast the weather."""
    return f"{days} sunny days"


def add(a: int, b: int) -> dict[str, int]:
    """Add two integers."""
    return {"sum": a + b}


def whoami(ctx: RunContext[None]) -> str:
    """Say which tool is running."""
    return f"I am {ctx.tool_name}"


tools = [Tool(forecast), Tool(add), Tool(whoami)]
''')
    mismatched = cli("replay", str(transcript), "-t", f"{changed}:tools")
    assert mismatched.exit_code == 1
    assert "mismatched        1" in mismatched.output


# ---------------------------------------------------------------- serve


def test_served_over_mcp_stdio(tmp_path):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from agentforge_cli.cli.app import main; main()", "serve",
              f"{TOOLS}:toolset"],
        cwd=str(ROOT), env={**os.environ, "PYTHONPATH": str(ROOT)})
    got: dict[str, Any] = {}

    async def session() -> None:
        with (tmp_path / "stderr.txt").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as client:
                with anyio.fail_after(30):
                    await client.initialize()
                    got["tools"] = (await client.list_tools()).tools
                    got["call"] = await client.call_tool("forecast", {"days": "2"})

    anyio.run(session)
    assert [t.name for t in got["tools"]] == ["forecast", "add", "whoami", "region_of"]
    assert got["tools"][0].input_schema == listed_rows()[0]["parameters"]
    assert got["call"].is_error is False
    assert got["call"].content[0].text == "2 days in celsius for here"


def listed_rows() -> list[dict[str, Any]]:
    return sent_tool_defs(toolsets=[pydantic_ai_tools.toolset])


# ---------------------------------------------------------------- bad input


def test_an_agent_without_tools_is_a_clear_error(cli, write_module):
    path = write_module("pyd_empty", '''
from pydantic_ai import Agent
from pydantic_ai.toolsets import FunctionToolset

agent = Agent()
toolset = FunctionToolset()
''')
    for name in ("agent", "toolset"):
        result = cli("tools", "list", f"{path}:{name}")
        assert result.exit_code == 3, result.output
        assert "holds no function tool" in result.stderr
        assert "Traceback" not in result.output


def test_an_mcp_toolset_points_at_mcp_targets(cli, write_module):
    path = write_module("pyd_mcp", '''
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset

server = MCPToolset("http://127.0.0.1:9/mcp")  # never reached
agent = Agent(toolsets=[server])
''')
    for name in ("server", "agent"):
        result = cli("tools", "list", f"{path}:{name}")
        assert result.exit_code == 3, result.output
        assert "MCP server" in result.stderr and "mcp:COMMAND" in result.stderr
        assert "Traceback" not in result.output


def test_agentforge_binding_of_a_tool_without_a_function(cli, tmp_path, write_module):
    path = write_module("pyd_exported", '''
from agentforge_cli import tool
from agentforge_cli.integrations.frameworks.pydantic_ai import to_pydantic_ai


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: found"


toolset = to_pydantic_ai([lookup])
''')
    target = f"{path}:toolset"
    native = cli("tools", "call", "lookup", '{"city": "Paris",}', "-t", target)
    assert (native.exit_code, native.stdout) == (0, "Paris: found\n")  # agentforge's repair
    result = cli("tools", "call", "lookup", '{"city": "Paris",}', "-t", target,
                 "--binding", "agentforge")
    assert (result.exit_code, result.stdout) == (0, "Paris: found\n")  # run natively
    assert ("--binding agentforge cannot reach its function: the tool comes from a "
            "AgentforgeToolset") in result.stderr


def test_importing_agentforge_does_not_import_pydantic_ai():
    code = ("import agentforge_cli, agentforge_cli.integrations.frameworks, sys; "
            "print(any(m.split('.')[0] == 'pydantic_ai' for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- to_pydantic_ai


AGENTFORGE_TOOLS = '''
from typing import Literal

from pydantic import BaseModel

from agentforge_cli import tool


class Place(BaseModel):
    city: str


@tool
def forecast(days: int, unit: Literal["celsius", "fahrenheit"] = "celsius",
             place: Place | None = None) -> str:
    """Forecast the weather."""
    return f"{days} days in {unit} for {place.city if place else 'here'}"


@tool
def explode(n: int) -> str:
    """Fail."""
    raise RuntimeError(f"boom {n}")
'''


def test_to_pydantic_ai_in_a_real_agent_run(write_module):
    module = _load(write_module("af_forecast", AGENTFORGE_TOOLS))
    toolset = to_pydantic_ai(module)
    sent: list[Any] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            sent.extend(info.function_tools)
            return ModelResponse(parts=[
                ToolCallPart("forecast", '{"days": "3", "place": "{\\"city\\": \\"Oslo\\"}",}',
                             tool_call_id="c1"),
                ToolCallPart("explode", '{"n": 1}', tool_call_id="c2"),
            ])
        return ModelResponse(parts=[TextPart("done")])

    result = run(Agent(FunctionModel(model), toolsets=[toolset]), "the weather?")
    assert result.output == "done"
    table = build_local_tools(module)
    assert [(d.name, d.description, d.parameters_json_schema) for d in sent] == [
        (s.name, s.description, s.parameters) for s in table]
    returns = {part.tool_call_id: part for message in result.all_messages()
               for part in message.parts if part.part_kind == "tool-return"}
    # the sloppy call (a string number, a double-encoded object, a trailing comma) ran
    assert returns["c1"].content == "3 days in celsius for Oslo"
    assert returns["c1"].outcome == "success"
    assert returns["c2"].outcome == "failed"
    assert returns["c2"].content == "boom 1"


def test_to_pydantic_ai_takes_a_tool_service_and_test_model(write_module):
    path = write_module("af_lookup", '''
from agentforge_cli import tool


@tool
def lookup(city: str, limit: int = 1) -> str:
    """Look a city up."""
    return f"{city}: {limit}"
''')
    service = ToolService().tools(build_local_tools(_load(path)))
    from pydantic_ai.models.test import TestModel

    result = run(Agent(TestModel(), toolsets=[to_pydantic_ai(service)]), "go")
    returns = [part for message in result.all_messages() for part in message.parts
               if part.part_kind == "tool-return"]
    # TestModel calls each tool with arguments generated from agentforge's schema
    assert [(part.tool_name, part.outcome, part.content) for part in returns] == [
        ("lookup", "success", "a: 1")]
    assert result.output == '{"lookup":"a: 1"}'  # the result reached the model


def _load(path: Path) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
