"""smolagents targets (``agentforge_cli/integrations/frameworks/smolagents.py``), against
the real library: the tools of ``smolagents_tools.py`` listed as a ``ToolCallingAgent``
sends them, called through its own path and through agentforge's binding, checked,
diffed, fuzzed, replayed from a run of smolagents' own agent loop, and served over MCP.

The agent loop runs offline: ``Scripted`` is a ``smolagents.Model`` whose answers are
written in advance, and which keeps every request the library prepared for a provider.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import smolagents_tools as sample  # tests/integrations/frameworks is on sys.path
from cli_support import ROOT
from smolagents import CodeAgent, LogLevel, Model, ToolCallingAgent
from smolagents.agents import ToolOutput
from smolagents.memory import ActionStep, FinalAnswerStep, ToolCall
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
)

from agentforge_cli.integrations.frameworks import SMOLAGENTS as adapter
from agentforge_cli.integrations.frameworks import adapter_for, read_foreign

HERE = Path(__file__).resolve().parent
TOOLS = str((HERE / "smolagents_tools.py").relative_to(ROOT))
AGENT = f"{TOOLS}:agent"

pytestmark = pytest.mark.usefixtures("plain_terminal")


class Scripted(Model):
    """A model answering with the tool calls it is given, one list a step; it keeps the
    requests smolagents prepares (``_prepare_completion_kwargs``, what a provider gets)."""

    def __init__(self, steps: list[list[tuple[str, str, str]]]) -> None:
        super().__init__(model_id="scripted")
        self.steps = list(steps)
        self.requests: list[dict[str, Any]] = []

    def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None,
                 tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        self.requests.append(self._prepare_completion_kwargs(
            messages, stop_sequences=stop_sequences, response_format=response_format,
            tools_to_call_from=tools_to_call_from, **kwargs))
        calls = self.steps.pop(0)
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[
            ChatMessageToolCall(id=call_id, type="function",
                                function=ChatMessageToolCallFunction(name=name, arguments=text))
            for call_id, name, text in calls])


def sent_tools(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``tools`` of a request smolagents prepared, as ``tools list --format json``
    rows, without the ``final_answer`` tool smolagents adds (agentforge does not read it)."""
    functions = [tool["function"] for tool in request["tools"]]
    return [f for f in functions if f["name"] != "final_answer"]


def listed(cli: Any, target: str) -> list[dict[str, Any]]:
    result = cli("tools", "list", target, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# ---------------------------------------------------------------- the schema


def test_list_json_is_what_a_tool_calling_agent_sends(cli: Any) -> None:
    model = Scripted([[("c1", "final_answer", '{"answer": "ok"}')]])
    ToolCallingAgent(tools=sample.TOOLS, model=model, verbosity_level=LogLevel.OFF).run("hi")
    assert len(model.requests) == 1
    assert listed(cli, TOOLS) == sent_tools(model.requests[0])
    forecast = listed(cli, TOOLS)[0]
    assert forecast["parameters"] == {
        "type": "object",
        "properties": {
            "days": {"type": "integer", "description": "How many days to forecast."},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "nullable": True,
                     "description": "The temperature unit."},
            "place": {"type": "object", "nullable": True,
                      "description": "Where to forecast; here when omitted."}},
        "required": ["days"]}


def test_an_agent_collection_and_tool_subclass_as_targets(cli: Any) -> None:
    agent = sample.agent
    request = agent.model._prepare_completion_kwargs(
        [], tools_to_call_from=agent.tools_and_managed_agents)
    assert "final_answer" in [t["function"]["name"] for t in request["tools"]]
    assert listed(cli, AGENT) == sent_tools(request)
    assert [t["name"] for t in listed(cli, f"{TOOLS}:collection")] == ["forecast", "add"]
    assert [t["name"] for t in listed(cli, f"{TOOLS}:TOOLS")] == ["forecast", "add", "lookup"]
    shout = listed(cli, f"{TOOLS}:Shout")  # a Tool subclass: instantiated by the loader
    assert shout == sent_tools(agent.model._prepare_completion_kwargs(
        [], tools_to_call_from=[sample.Shout()]))
    assert shout[0]["parameters"]["required"] == ["text"]


def test_a_code_agent_s_tools_are_read_as_a_tool_calling_agent_sends_them() -> None:
    code_agent = CodeAgent(tools=[sample.add], model=sample.NoModel(model_id="none"))
    read = read_foreign(code_agent, "code_agent")
    assert [t.specification.name for t in read] == ["add"]
    assert read[0].source is sample.add


def test_the_module_scan_reads_single_tools_only() -> None:
    assert adapter.in_module_scan(sample.add) is True
    for container in (sample.agent, sample.collection):
        assert adapter.holds_tools(container) and not adapter.in_module_scan(container)
    assert adapter_for(sample.Shout) is None  # the class: the loader instantiates it
    assert adapter_for(sample.NoModel(model_id="x")) is None  # smolagents, but no tools


def test_provider_formats(cli: Any) -> None:
    openai = cli("tools", "list", TOOLS, "--format", "openai")
    assert openai.exit_code == 0, openai.output
    assert [t["function"]["name"] for t in json.loads(openai.stdout)] == [
        "forecast", "add", "lookup"]
    gemini = cli("tools", "list", TOOLS, "--format", "gemini")
    assert gemini.exit_code == 0, gemini.output
    assert [t["name"] for t in json.loads(gemini.stdout)] == ["forecast", "add", "lookup"]


# ---------------------------------------------------------------- calls: the matrix

STRING_NUMBER = '{"days": "3"}'
TRAILING_COMMA = '{"days": 3,}'
DOUBLE_ENCODED = '{"days": 3, "place": "{\\"city\\": \\"Paris\\"}"}'
WRONG_CASE = '{"days": 3, "unit": "CELSIUS"}'
REFUSED = ""  # smolagents' own words, as the model reads them


@pytest.mark.parametrize(("binding", "arguments", "code", "output"), [
    ("native", STRING_NUMBER, 1,
     REFUSED + "Argument days has type 'string' but should be 'integer'"),
    # not JSON: the agent keeps the text, a single argument for the first input
    ("native", TRAILING_COMMA, 1, REFUSED + "Argument has type 'str' but should be 'integer'"),
    ("native", DOUBLE_ENCODED, 1,
     REFUSED + "Argument place has type 'string' but should be 'object'"),
    ("native", WRONG_CASE, 0, "3 days in CELSIUS for here"),  # no enum check in smolagents
    ("agentforge", STRING_NUMBER, 0, "3 days in celsius for here"),
    ("agentforge", TRAILING_COMMA, 0, "3 days in celsius for here"),
    ("agentforge", DOUBLE_ENCODED, 0, "3 days in celsius for Paris"),
    ("agentforge", WRONG_CASE, 0, "3 days in celsius for here"),
])
def test_sloppy_arguments(cli: Any, binding: str, arguments: str, code: int,
                          output: str) -> None:
    result = cli("tools", "call", "forecast", arguments, "-t", TOOLS, "--binding", binding)
    assert result.exit_code == code, result.output
    assert result.stdout.startswith(output), result.stdout


def test_native_hands_the_function_the_dict_it_parsed(cli: Any) -> None:
    """smolagents types a pydantic parameter as ``object`` and passes the dict on: the
    function's ``place.city`` fails natively, and agentforge builds the ``Place``."""
    arguments = '{"days": 2, "place": {"city": "Paris"}}'
    native = cli("tools", "call", "forecast", arguments, "-t", TOOLS)
    assert native.exit_code == 1
    assert native.stdout.strip() == (
        "Error executing tool 'forecast' with arguments {'days': 2, 'place': {'city': "
        "'Paris'}}: AttributeError: 'dict' object has no attribute 'city'\n"
        "Please try again or use another tool")
    bound = cli("tools", "call", "forecast", arguments, "-t", TOOLS, "--binding", "agentforge")
    assert (bound.exit_code, bound.stdout.strip()) == (0, "2 days in celsius for Paris")


def test_outputs_are_the_observation_text(cli: Any) -> None:
    added = cli("tools", "call", "add", '{"a": 2, "b": 3}', "-t", AGENT)
    assert (added.exit_code, added.stdout) == (0, "5\n")
    missing = cli("tools", "call", "add", '{"a": 2}', "-t", AGENT)
    assert missing.exit_code == 1
    assert missing.stdout.strip() == "Argument b is required"
    extra = cli("tools", "call", "add", '{"a": 2, "b": 3, "c": 4}', "-t", AGENT)
    assert extra.stdout.strip().endswith("Argument c is not in the tool's input schema")


def test_a_tool_exception_is_an_error_result(cli: Any) -> None:
    native = cli("tools", "call", "lookup", '{"color": "blue"}', "-t", TOOLS)
    assert (native.exit_code, native.stdout.strip()) == (  # the agent's observation
        1, "Error executing tool 'lookup' with arguments {'color': 'blue'}: KeyError: 'blue'"
           "\nPlease try again or use another tool")
    bound = cli("tools", "call", "lookup", '{"color": "blue"}', "-t", TOOLS,
                "--binding", "agentforge")
    assert (bound.exit_code, bound.stdout.strip()) == (1, "blue")  # agentforge's message


def test_the_invoke_raises_the_function_s_own_exception() -> None:
    (lookup,) = read_foreign(sample.lookup, "lookup")
    with pytest.raises(KeyError):
        lookup.invoke('{"color": "blue"}')
    assert lookup.invoke('{"color": "red"}') == ("#ff0000", False)
    assert lookup.invoke("{}").is_error is True  # "Argument color is required"
    (add,) = read_foreign(sample.add, "add")
    assert add.invoke(None).text.endswith("Argument a is required")


def test_a_tool_subclass_runs_its_setup_on_both_paths(cli: Any) -> None:
    native = cli("tools", "call", "shout", '{"text": "hi", "times": 2}', "-t", f"{TOOLS}:Shout")
    assert (native.exit_code, native.stdout) == (0, "HI!!\n")
    bound = cli("tools", "call", "shout", '{"text": "hi"}', "-t", f"{TOOLS}:Shout",
                "--binding", "agentforge")
    assert (bound.exit_code, bound.stdout) == (0, "HI!\n")
    shout = sample.Shout()
    (read,) = read_foreign(shout, "shout")
    assert read.function is not None
    assert read.function("a", times=0) == "A"
    assert shout.setups == 1


def test_explain_names_the_path(cli: Any) -> None:
    native = cli("tools", "call", "add", '{"a": 1, "b": 2}', "-t", TOOLS, "--explain")
    assert native.exit_code == 0, native.output
    assert ("binding: native (smolagents's own path, ToolCallingAgent.execute_tool_call"
            in native.output)
    bound = cli("tools", "call", "add", '{"a": 1, "b": 2}', "-t", TOOLS, "--explain",
                "--binding", "agentforge")
    assert "binding: agentforge (agentforge's coercion table in front of smolagents's " \
           "function smolagents_tools.add" in bound.output


# ---------------------------------------------------------------- check, diff, fuzz


def test_check_snapshot_and_diff(cli: Any, tmp_path: Path, write_module: Any) -> None:
    checked = cli("tools", "check", TOOLS)
    assert checked.exit_code == 0, checked.output
    snapshot = tmp_path / "tools.lock.json"
    written = cli("tools", "check", TOOLS, "--snapshot", str(snapshot), "--update-snapshot")
    assert written.exit_code == 0, written.output
    assert cli("tools", "check", TOOLS, "--snapshot", str(snapshot)).exit_code == 0
    changed = write_module("smol_changed", CHANGED)
    breaking = cli("tools", "check", str(changed), "--snapshot", str(snapshot))
    assert breaking.exit_code == 1, breaking.output
    assert "required-parameter-added" in breaking.output
    old, new = tmp_path / "v1.json", tmp_path / "v2.json"
    old.write_text(cli("tools", "list", TOOLS, "--format", "json").stdout, encoding="utf-8")
    new.write_text(cli("tools", "list", str(changed), "--format", "json").stdout,
                   encoding="utf-8")
    diff = cli("tools", "diff", str(old), str(new))
    assert diff.exit_code == 1, diff.output
    assert "breaking" in diff.output and "required-parameter-added" in diff.output


CHANGED = '''
from smolagents import tool


@tool
def forecast(days: int, unit: str = "celsius", place: dict | None = None) -> str:
    """Forecast the weather.

    Args:
        days: How many days to forecast.
        unit: The temperature unit.
        place: Where to forecast; here when omitted.
    """
    return f"{days} days"


@tool
def add(a: int, b: int, c: int) -> int:
    """Add three integers.

    Args:
        a: The first term.
        b: The second term.
        c: The third term.
    """
    return a + b + c + 1


@tool
def lookup(color: str) -> str:
    """The hex code of a color.

    Args:
        color: A color name, such as red.
    """
    return "#000000"
'''


def test_fuzz_finds_the_crashes_and_no_false_mismatch(cli: Any) -> None:
    result = cli("tools", "fuzz", TOOLS, "--seed", "0", "--examples", "50", "--json")
    assert result.exit_code == 1, result.output
    report = {tool["name"]: tool for tool in json.loads(result.stdout)["tools"]}
    assert [f["detail"] for f in report["lookup"]["failures"]] == ["KeyError: ''"]
    # a real finding: smolagents' schema says "object" and hands the function a dict
    assert [f["detail"] for f in report["forecast"]["failures"]] == [
        "AttributeError: 'dict' object has no attribute 'city'"]
    assert report["add"]["failed"] is False
    assert all(tool["counts"]["mismatch"] == 0 for tool in report.values())


# ---------------------------------------------------------------- replay


def record_agent_run(path: Path) -> None:
    """Run smolagents' own agent loop and write its calls as an agentforge transcript:
    each call's argument text as the model sent it, each result as the observation the
    agent wrote (a failed call as an error result with the agent's error text)."""
    model = Scripted([
        [("c1", "forecast", '{"days": 3, "unit": "fahrenheit"}'),
         ("c2", "add", '{"a": 2, "b": 3}')],
        [("c3", "lookup", '{"color": "red"}'), ("c4", "lookup", '{"color": "blue"}')],
        [("c5", "final_answer", '{"answer": "done"}')]])
    sent = {call_id: text for step in model.steps for call_id, _, text in step}
    agent = ToolCallingAgent(tools=sample.TOOLS, model=model, verbosity_level=LogLevel.OFF)
    lines: list[dict[str, Any]] = [{"type": "user", "content": "What is up?"}]
    calls: dict[str, ToolCall] = {}
    answered: set[str] = set()
    final = ""
    for event in agent.run("What is up?", stream=True):
        if isinstance(event, ToolCall) and event.name != "final_answer":
            calls[event.id] = event
            lines.append({"type": "tool_call", "id": event.id, "name": event.name,
                          "arguments": sent[event.id]})
        elif isinstance(event, ToolOutput) and event.id in calls:
            answered.add(event.id)
            lines.append({"type": "tool_result", "id": event.id,
                          "content": event.observation, "is_error": False})
        elif isinstance(event, ActionStep) and event.error is not None:
            for call_id in calls.keys() - answered:
                answered.add(call_id)
                lines.append({"type": "tool_result", "id": call_id,
                              "content": str(event.error), "is_error": True})
        elif isinstance(event, FinalAnswerStep):
            final = str(event.output)
    lines.append({"type": "assistant", "content": final})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_replay_of_the_agent_s_own_run(cli: Any, tmp_path: Path, write_module: Any) -> None:
    transcript = tmp_path / "run.jsonl"
    record_agent_run(transcript)
    events = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert events[-1] == {"type": "assistant", "content": "done"}
    results = [e for e in events if e["type"] == "tool_result"]
    assert [(r["content"], r["is_error"]) for r in results] == [
        ("3 days in fahrenheit for here", False), ("5", False), ("#ff0000", False),
        ("Error executing tool 'lookup' with arguments {'color': 'blue'}: KeyError: 'blue'\n"
         "Please try again or use another tool", True)]
    # the failed call is answered in smolagents' words: every call matches exactly
    replayed = cli("replay", str(transcript), "-t", TOOLS, "--json")
    assert replayed.exit_code == 0, replayed.output
    assert json.loads(replayed.stdout)["summary"] == {"matched": 4, "mismatched": 0,
                                                      "unrecorded": 0}
    changed = write_module("smol_replay_changed", CHANGED.replace(
        "b: int, c: int", "b: int, c: int = 0").replace("c: The third term.", "c: Third."))
    status = cli("replay", str(transcript), "-t", str(changed), "--match", "status")
    assert status.exit_code == 1  # the changed lookup no longer fails on "blue"
    strict = cli("replay", str(transcript), "-t", str(changed))
    assert strict.exit_code == 1
    assert "- recorded: 5" in strict.output and "+ actual:   6" in strict.output


def test_replay_of_the_successes_all_matched(cli: Any, tmp_path: Path) -> None:
    transcript = tmp_path / "run.jsonl"
    record_agent_run(transcript)
    kept = [line for line in transcript.read_text(encoding="utf-8").splitlines()
            if '"c4"' not in line]
    transcript.write_text("\n".join(kept) + "\n", encoding="utf-8")
    result = cli("replay", str(transcript), "-t", AGENT, "-t", f"{TOOLS}:lookup")
    assert result.exit_code == 0, result.output
    assert result.output.count("✓ matched") == 3
    assert "✓ 3 calls replayed, no result differs" in result.output


# ---------------------------------------------------------------- serve


def test_served_over_mcp_stdio(tmp_path: Path) -> None:
    sys.path.insert(0, str(HERE.parent))  # tests/integrations: the MCP client helpers
    try:
        from mcp_client_support import AGENTFORGE, serve
    finally:
        sys.path.remove(str(HERE.parent))
    for remote in serve(["serve", TOOLS], tmp_path, command=str(AGENTFORGE)):
        names = [t.name for t in remote.run(remote.session.list_tools).tools]
        assert names == ["forecast", "add", "lookup"]
        added = remote.call("add", {"a": 2, "b": 3})
        assert (added.is_error, remote.text(added)) == (False, "5")
        refused = remote.call("add", {"a": "2", "b": 3})
        assert refused.is_error is True
        assert remote.text(refused) == "Argument a has type 'string' but should be 'integer'"
        assert remote.problems == []


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(("name", "message"), [
    ("lonely_agent", "cannot read the smolagents tools of target '{target}': ValueError: the "
                     "ToolCallingAgent has no tool but the final_answer tool smolagents adds"),
    ("NoModel", "target '{target}' yields no tool"),
])
def test_a_smolagents_object_without_tools(cli: Any, name: str, message: str) -> None:
    target = f"{TOOLS}:{name}"
    result = cli("tools", "list", target)
    assert result.exit_code == 3
    assert result.output.startswith("error: " + message.format(target=target)), result.output
    assert "Traceback" not in result.output


def test_an_empty_collection(cli: Any, write_module: Any) -> None:
    module = write_module("smol_empty", "from smolagents import ToolCollection\n"
                                        "empty = ToolCollection([])\n")
    result = cli("tools", "list", f"{module}:empty")
    assert result.exit_code == 3
    assert "the ToolCollection holds no smolagents Tool" in result.output


def test_agentforge_binding_of_a_tool_without_its_own_signature(cli: Any,
                                                                 write_module: Any) -> None:
    module = write_module("smol_generic", '''
        from smolagents import Tool

        class Echo(Tool):
            name = "echo"
            description = "Echo."
            inputs = {"text": {"type": "string", "description": "Text."}}
            output_type = "string"
            skip_forward_signature_validation = True

            def forward(self, *args, **kwargs):
                return str(kwargs.get("text", args[0] if args else ""))
        ''')
    native = cli("tools", "call", "echo", '{"text": "hi"}', "-t", f"{module}:Echo")
    assert (native.exit_code, native.stdout) == (0, "hi\n")
    bound = cli("tools", "call", "echo", '{"text": "hi"}', "-t", f"{module}:Echo",
                "--binding", "agentforge")
    assert (bound.exit_code, bound.stdout) == (0, "hi\n")  # natively, and said so
    assert "skip_forward_signature_validation" in bound.stderr
    assert "Traceback" not in bound.output


# ---------------------------------------------------------------- import weight


def test_agentforge_does_not_import_smolagents() -> None:
    code = ("import sys, agentforge_cli, agentforge_cli.integrations.frameworks\n"
            "from agentforge_cli.integrations.targets.loading import load_target\n"
            "load_target('sample_tools.crm:CrmTools')\n"
            "print('smolagents' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
