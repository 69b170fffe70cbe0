"""OpenAI Agents SDK targets (``agentforge_cli.integrations.frameworks.openai_agents``) and
the export ``to_openai_agents``, against the real SDK (no model is called: the agent runs
use an offline ``Model`` of this file, tracing off).

The tools are in ``openai_agents_tools.py``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import openai_agents_tools  # this folder is on sys.path (pytest's rootdir-relative import)
import pytest
from agents import (
    Agent,
    FunctionTool,
    ModelResponse,
    Runner,
    Usage,
    set_tracing_disabled,
)
from agents.models.chatcmpl_converter import Converter as ChatConverter
from agents.models.interface import Model
from agents.models.openai_responses import Converter as ResponsesConverter
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from agentforge_cli import ToolService, build_local_tools, tool
from agentforge_cli.integrations.frameworks import (
    adapter_for,
    foreign_table,
    openai_agents,
    read_foreign,
)
from agentforge_cli.integrations.frameworks.openai_agents import to_openai_agents

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TOOLS = str(HERE / "openai_agents_tools.py")
FORECAST = f"{TOOLS}:forecast"
TIMEOUT = 30.0

set_tracing_disabled(True)


@pytest.fixture(autouse=True)
def _plain(plain_terminal: None) -> None:
    pass


# ------------------------------------------------------------------ an offline model


def _message(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg_1", type="message", role="assistant",
                                 status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text,
                                                             annotations=[])])


class OfflineModel(Model):
    """Answers each turn with the next scripted function call (name, argument text), then
    with a final message; keeps every input it was given."""

    def __init__(self, calls: list[tuple[str, str]], final: str = "done") -> None:
        self.calls = list(calls)
        self.final = final
        self.inputs: list[Any] = []
        self.tools: list[Any] = []

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any,
                           tools: Any, output_schema: Any, handoffs: Any, tracing: Any, *,
                           previous_response_id: Any = None, conversation_id: Any = None,
                           prompt: Any = None) -> ModelResponse:
        self.inputs.append(input if isinstance(input, str) else list(input))
        self.tools = list(tools)
        if self.calls:
            name, arguments = self.calls.pop(0)
            output: list[Any] = [ResponseFunctionToolCall(
                type="function_call", call_id=f"call_{len(self.inputs)}", name=name,
                arguments=arguments)]
        else:
            output = [_message(self.final)]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("offline model: no streaming")


def run_agent(agent: Agent[Any], prompt: str) -> Any:
    """``Runner.run`` on a loop closed afterwards (``Runner.run_sync`` keeps the thread's
    default loop open on purpose)."""
    return asyncio.run(Runner.run(agent, prompt))


def outputs_of(items: list[Any]) -> dict[str, str]:
    """call_id -> output of the ``function_call_output`` items the model was given."""
    return {item["call_id"]: item["output"] for item in items
            if isinstance(item, dict) and item.get("type") == "function_call_output"}


# ------------------------------------------------------------------ reading the tools


SDK_TOOLS = [openai_agents_tools.forecast, openai_agents_tools.convert,
             openai_agents_tools.lookup, openai_agents_tools.greet]


def test_tools_list_json_is_what_the_sdk_sends(cli) -> None:
    result = cli("tools", "list", TOOLS, "--format", "json")
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    responses = ResponsesConverter.convert_tools(SDK_TOOLS, handoffs=[]).tools
    chat = [ChatConverter.tool_to_openai(t)["function"] for t in SDK_TOOLS]
    assert listed == [{"name": t["name"], "description": t["description"],
                       "parameters": t["parameters"]} for t in responses]
    assert listed == [{"name": t["name"], "description": t["description"],
                       "parameters": t["parameters"]} for t in chat]
    # the SDK's strict form: every property required, no other key
    assert listed[0]["parameters"]["required"] == ["days", "unit", "place"]
    assert listed[0]["parameters"]["additionalProperties"] is False


@pytest.mark.parametrize("form", ["openai", "gemini"])
def test_tools_list_provider_formats(cli, form: str) -> None:
    result = cli("tools", "list", TOOLS, "--format", form)
    assert result.exit_code == 0, result.output
    assert "forecast" in json.loads(result.stdout)[0].__repr__()


def test_an_agent_is_read_for_its_function_tools_and_names_what_it_skips(cli,
                                                                         monkeypatch) -> None:
    monkeypatch.setattr(openai_agents, "_noted", set())  # the note is written once a process
    result = cli("tools", "list", f"{TOOLS}:agent", "--format", "json")
    assert result.exit_code == 0, result.output
    assert [row["name"] for row in json.loads(result.stdout)] == ["forecast", "convert"]
    assert result.stderr.count("skipped WebSearchTool; only its FunctionTools are read") == 1


def test_reading_gives_the_tool_object_and_its_path() -> None:
    adapter = adapter_for(openai_agents_tools.forecast)
    assert adapter is not None and adapter.library == "OpenAI Agents SDK"
    assert adapter.in_module_scan(openai_agents_tools.forecast)
    assert not adapter.in_module_scan(openai_agents_tools.agent)
    [forecast] = read_foreign(openai_agents_tools.forecast, "forecast")
    assert forecast.source is openai_agents_tools.forecast
    assert forecast.path == "FunctionTool.on_invoke_tool"
    assert forecast.function is openai_agents_tools.forecast.__wrapped__
    [greet] = read_foreign(openai_agents_tools.greet, "greet")
    assert greet.function is None and "RunContextWrapper" in greet.unreachable


def test_a_hand_built_function_tool_runs_natively_only() -> None:
    async def echo(ctx: Any, text: str) -> str:
        return f"got {text}"

    raw = FunctionTool(name="raw", description="Echo the argument text.",
                       params_json_schema={"type": "object",
                                           "properties": {"q": {"type": "string"}},
                                           "required": ["q"], "additionalProperties": False},
                       on_invoke_tool=echo)
    [tool_read] = read_foreign(raw, "raw")
    assert tool_read.invoke('{"q": "a"}') == ('got {"q": "a"}', False)
    assert tool_read.function is None and "built by hand" in tool_read.unreachable
    [executor] = foreign_table([raw], "raw", binding="agentforge").values()
    assert executor.binding == "native"  # nothing to bind: run natively, and say so
    assert "--binding agentforge cannot reach its function: a FunctionTool built by hand" \
        in executor.binding_note
    sub = Agent(name="sub").as_tool(tool_name="ask_sub", tool_description="Ask sub.")
    [agent_tool] = read_foreign(sub, "sub")
    assert agent_tool.unreachable == "it is an agent run as a tool (Agent.as_tool)"


# ------------------------------------------------------------------ the sloppy-argument matrix


SDK_FAILURE = "An error occurred while running the tool. Please try again."
"""What the SDK's default failure_error_function tells the model, refusals included."""
MATRIX = [
    # arguments, native (ok?, output or message start), agentforge (ok?, ...)
    ('{"days": "3"}', (True, "3 days in celsius for here"),
     (True, "3 days in celsius for here")),
    ('{"days": 3,}', (False, SDK_FAILURE), (True, "3 days in celsius for here")),
    ('{"days": 3, "place": "{\\"city\\": \\"Paris\\"}"}',
     (False, SDK_FAILURE), (True, "3 days in celsius for Paris")),
    ('{"days": 3, "unit": "CELSIUS"}', (False, SDK_FAILURE),
     (True, "3 days in celsius for here")),
]


@pytest.mark.parametrize("binding", ["native", "agentforge"])
@pytest.mark.parametrize(("arguments", "native", "bound"), MATRIX,
                         ids=["string-number", "trailing-comma", "double-encoded",
                              "wrong-case-enum"])
def test_sloppy_arguments(cli, binding: str, arguments: str, native: tuple[bool, str],
                          bound: tuple[bool, str]) -> None:
    ok, text = native if binding == "native" else bound
    result = cli("tools", "call", "forecast", arguments, "-t", FORECAST, "--binding", binding)
    assert result.exit_code == (0 if ok else 1), result.output
    if ok:
        assert result.stdout.strip() == text
    else:
        assert result.stdout.startswith(text), result.stdout


def test_without_a_failure_function_the_refusal_is_the_sdk_s_message(cli, monkeypatch,
                                                                      write_module) -> None:
    path = write_module("oai_no_failure_text", '''
        from typing import Literal

        from agents import function_tool

        @function_tool(failure_error_function=None)
        def forecast(days: int, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
            """Forecast the weather."""
            return f"{days} days in {unit}"
    ''')
    # the redaction is the SDK's default (OPENAI_AGENTS_DONT_LOG_TOOL_DATA): its message
    # then has no detail, and agentforge says how to get one
    result = cli("tools", "call", "forecast", '{"days": 3, "unit": "x"}', "-t", str(path))
    assert result.exit_code == 1
    assert "OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0" in result.stdout
    import agents._debug

    monkeypatch.setattr(agents._debug, "DONT_LOG_TOOL_DATA", False)
    result = cli("tools", "call", "forecast", '{"days": 3, "unit": "x"}', "-t", str(path))
    assert result.exit_code == 1
    assert "1 validation error for forecast_args" in result.stdout
    assert "Input should be 'celsius' or 'fahrenheit'" in result.stdout
    result = cli("tools", "call", "forecast", "[3]", "-t", str(path))
    assert result.exit_code == 1
    assert result.stdout.strip() == ("Invalid JSON input for tool forecast: expected a JSON "
                                     "object")


def test_an_argument_list_is_answered_as_the_sdk_answers_the_model(cli) -> None:
    result = cli("tools", "call", "forecast", "[3]", "-t", TOOLS)
    assert (result.exit_code, result.stdout.strip()) == (1, SDK_FAILURE)


def test_the_tools_exception_is_answered_in_the_sdk_s_words(cli) -> None:
    result = cli("tools", "call", "lookup", '{"code": "XXX"}', "-t", TOOLS)
    assert (result.exit_code, result.stdout.strip()) == (1, SDK_FAILURE)
    assert "No active span" not in result.output  # the SDK's tracing is not reached
    raised = cli("tools", "call", "lookup", '{"code": "XXX"}', "-t", TOOLS, "--propagate-errors")
    assert "caused by KeyError: 'XXX'" in raised.stderr  # the exception itself is kept
    assert cli("tools", "call", "lookup", '{"code": "AMS"}', "-t", TOOLS).stdout == "Amsterdam\n"


def test_the_tools_exception_propagates_from_invoke() -> None:
    [lookup] = read_foreign(openai_agents_tools.lookup, "lookup")
    with pytest.raises(KeyError):
        lookup.invoke('{"code": "XXX"}')
    assert lookup.invoke('{"code": "PAR"}') == ("Paris", False)


def test_a_context_tool_runs_natively_and_is_unreachable_for_agentforge(cli) -> None:
    result = cli("tools", "call", "greet", '{"name": "Ann"}', "-t", TOOLS)
    assert result.exit_code == 0, result.output
    assert result.stdout == "hello Ann from nobody\n"
    result = cli("tools", "call", "greet", '{"name": "Ann"}', "-t", f"{TOOLS}:greet",
                 "--binding", "agentforge")
    assert (result.exit_code, result.stdout) == (0, "hello Ann from nobody\n")  # natively
    assert "--binding agentforge cannot reach its function: its function takes a " \
        "RunContextWrapper" in result.stderr


@pytest.mark.parametrize(("binding", "says"), [
    ("native", "binding: native (OpenAI Agents SDK's own path, FunctionTool.on_invoke_tool"),
    ("agentforge", "binding: agentforge (agentforge's coercion table in front of OpenAI "
                   "Agents SDK's function"),
])
def test_explain_names_the_path(cli, binding: str, says: str) -> None:
    result = cli("tools", "call", "forecast", '{"days": 2}', "-t", FORECAST, "--binding",
                 binding, "--explain")
    assert result.exit_code == 0, result.output
    assert says in result.output


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(("name", "message"), [
    ("bare_agent", "OpenAI Agents SDK agent 'bare' has no function tool (it has: "
                   "WebSearchTool)"),
    ("hosted", "WebSearchTool is not a function tool of the OpenAI Agents SDK"),
])
def test_an_sdk_object_without_function_tools_is_refused(cli, name: str, message: str) -> None:
    result = cli("tools", "list", f"{TOOLS}:{name}")
    assert result.exit_code == 3
    assert message in result.stderr
    assert "Traceback" not in result.output


# ------------------------------------------------------------------ check, diff, fuzz


CHANGED = '''
from agents import function_tool
from typing import Literal


@function_tool
def forecast(days: int, unit: Literal["celsius"] = "celsius") -> str:
    """Forecast the weather.

    Args:
        days: How many days ahead.
        unit: The temperature unit.
    """
    return f"{days} days in {unit} for here"


@function_tool
def convert(amount: float, rate: float = 1.0) -> str:
    """Convert an amount of money at a rate.

    Args:
        amount: The amount to convert.
        rate: The exchange rate.
    """
    return f"{amount * rate:.1f}"
'''


def test_check_snapshot_and_diff_report_a_breaking_change(cli, write_module, tmp_path) -> None:
    result = cli("tools", "check", TOOLS)
    assert result.exit_code == 0, result.output
    snapshot = tmp_path / "tools.lock.json"
    result = cli("tools", "check", TOOLS, "--snapshot", str(snapshot), "--update-snapshot")
    assert result.exit_code == 0, result.output
    changed = write_module("oai_changed_tools", CHANGED)
    result = cli("tools", "check", str(changed), "--snapshot", str(snapshot))
    assert result.exit_code == 1, result.output
    assert "enum-value-removed" in result.stdout
    new = tmp_path / "new.json"
    new.write_text(cli("tools", "list", str(changed), "--format", "json").stdout)
    result = cli("tools", "diff", str(snapshot), str(new))
    assert result.exit_code == 1, result.output
    assert "breaking" in result.stdout


def test_fuzz_finds_the_fragile_tool_and_no_false_mismatch(cli) -> None:
    result = cli("tools", "fuzz", TOOLS, "--seed", "0", "--examples", "50", "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    tools = {entry["name"]: entry for entry in report["tools"]}
    kinds = {name: {failure["kind"] for failure in entry["failures"]}
             for name, entry in tools.items()}
    assert kinds["lookup"] == {"crash"}
    assert "KeyError" in tools["lookup"]["failures"][0]["detail"]
    assert kinds["forecast"] == kinds["convert"] == kinds["greet"] == set()


# ------------------------------------------------------------------ replay of a real run


def _recorded_run(tmp_path: Path) -> Path:
    """An offline run of ``agent``; its ``to_input_list()`` (Responses items) as JSON. The
    calls carry every property, as the SDK's strict schema has the model send them."""
    model = OfflineModel([
        ("forecast", '{"days": "3", "unit": "celsius", "place": {"city": "Paris"}}'),
        ("convert", '{"amount": 2.5, "rate": 2}'),
    ])
    result = run_agent(openai_agents_tools.agent.clone(model=model), "weather?")
    assert result.final_output == "done"
    assert outputs_of(model.inputs[-1]) == {"call_1": "3 days in celsius for Paris",
                                            "call_2": "5.00"}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(result.to_input_list(), default=str), encoding="utf-8")
    return path


def test_replay_of_an_agent_run_matches(cli, tmp_path) -> None:
    transcript = _recorded_run(tmp_path)
    result = cli("replay", str(transcript), "-t", TOOLS)
    assert result.exit_code == 0, result.output
    assert "(openai-responses)" in result.stdout
    assert "✓ 2 calls replayed, no result differs" in result.stdout
    # the agent as the target reads the same tools
    assert cli("replay", str(transcript), "-t", f"{TOOLS}:agent").exit_code == 0


def test_replay_against_a_changed_tool_mismatches(cli, tmp_path, write_module) -> None:
    transcript = _recorded_run(tmp_path)
    source = Path(TOOLS).read_text(encoding="utf-8")
    changed = write_module("oai_changed_replay_tools", source.replace(
        'return f"{amount * rate:.2f}"', 'return f"{amount * rate + 1:.2f}"'))
    result = cli("replay", str(transcript), "-t", str(changed))
    assert result.exit_code == 1, result.output
    assert "mismatched" in result.stdout
    assert "- recorded: 5.00" in result.stdout
    assert "+ actual:   6.00" in result.stdout


def test_a_call_without_the_strict_schemas_every_property_drifts(cli, tmp_path) -> None:
    # The SDK's strict schema requires every property, while its own validation fills the
    # defaults: a recorded call that omits one (a model not held to the strict schema)
    # is drift for replay, not run.
    transcript = tmp_path / "loose.json"
    transcript.write_text(json.dumps([
        {"role": "user", "content": "weather?"},
        {"type": "function_call", "call_id": "c1", "name": "forecast",
         "arguments": '{"days": 3}'},
        {"type": "function_call_output", "call_id": "c1", "output": "3 days in celsius for here"},
    ]), encoding="utf-8")
    result = cli("replay", str(transcript), "-t", TOOLS)
    assert result.exit_code == 1
    assert '"unit", "place" are required by forecast but were not recorded' in result.stdout
    assert cli("tools", "call", "forecast", '{"days": 3}', "-t", TOOLS).exit_code == 0


# ------------------------------------------------------------------ serve


def test_serve_over_mcp_stdio(tmp_path) -> None:
    problems: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a stray stdout line
            problems.append(message)

    async def session() -> tuple[list[str], str, str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-c", "from agentforge_cli.cli.app import main; main()", "serve", TOOLS],
            cwd=str(ROOT), env={"PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "error"})
        with (tmp_path / "stderr.txt").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write, message_handler=on_message) as client:
                with anyio.fail_after(TIMEOUT):
                    await client.initialize()
                    listed = await client.list_tools()
                    ok = await client.call_tool("forecast", {"days": "2", "unit": "celsius",
                                                             "place": None})
                    failed = await client.call_tool("lookup", {"code": "XXX"})
        [block] = ok.content
        [error] = failed.content
        assert isinstance(block, types.TextContent) and isinstance(error, types.TextContent)
        assert failed.is_error
        return [t.name for t in listed.tools], block.text, error.text

    names, text, error = anyio.run(session)
    assert names == ["forecast", "convert", "lookup", "greet"]
    assert text == "2 days in celsius for here"
    assert error == SDK_FAILURE
    assert problems == []


# ------------------------------------------------------------------ export


@tool
def plan_trip(days: int, city: str = "here") -> str:
    """Plan a trip."""
    return f"{days} days in {city}"


def test_exported_tools_carry_agentforges_schema() -> None:
    [exported] = to_openai_agents([plan_trip])
    [spec] = build_local_tools([plan_trip])
    assert isinstance(exported, FunctionTool)
    assert exported.name == "plan_trip" and exported.description == spec.description
    assert exported.params_json_schema == spec.parameters
    assert exported.strict_json_schema is False
    sent = ResponsesConverter.convert_tools([exported], handoffs=[]).tools[0]
    assert sent["parameters"] == spec.parameters and sent["strict"] is False


@pytest.mark.parametrize("service", [False, True])
def test_an_agent_runs_exported_tools_with_agentforges_repairs(service: bool,
                                                               tmp_path) -> None:
    tools: Any = [plan_trip]
    record = tmp_path / "calls.jsonl"
    if service:
        tools = ToolService(record=record).tools(build_local_tools([plan_trip]))
    model = OfflineModel([("plan_trip", '{"days": "3", "city": "Paris",}')], final="planned")
    agent = Agent(name="planner", model=model, tools=to_openai_agents(tools))
    result = run_agent(agent, "plan three days in Paris")
    assert result.final_output == "planned"
    assert [t.name for t in model.tools] == ["plan_trip"]
    # the string number and the trailing comma were repaired; the output is the next input
    assert outputs_of(model.inputs[1]) == {"call_1": "3 days in Paris"}
    if service:
        tools.recorder.close()
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        assert [line["type"] for line in lines] == ["tool_call", "tool_result"]
        assert lines[0]["id"] == "call_1"


def test_an_exported_tools_error_reaches_the_model_as_text() -> None:
    model = OfflineModel([("plan_trip", '{"city": "Paris"}')])
    agent = Agent(name="planner", model=model, tools=to_openai_agents([plan_trip]))
    run_agent(agent, "plan")
    [output] = outputs_of(model.inputs[1]).values()
    assert "days" in output


# ------------------------------------------------------------------ import weight


def test_importing_agentforge_does_not_import_the_sdk() -> None:
    code = textwrap.dedent("""
        import sys
        import agentforge_cli
        import agentforge_cli.integrations.frameworks
        print(sorted({m.split('.')[0] for m in sys.modules} & {'agents', 'openai'}))
    """)
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               cwd=ROOT, check=True, timeout=60)
    assert completed.stdout.strip() == "[]"
