"""MCP tools agentforge cannot use, from ``faulty_server.py``: a tool the SDK's types
refuse (an array ``inputSchema``, no name) is left out and named, the server's other
tools still work; a tool that must be called as a task (``execution.taskSupport:
"required"``) keeps its ``execution``, is reported, and its calls are sent as plain calls,
so the server's own refusal comes back.

The command line runs as a subprocess (the installed ``agentforge``); ``serve`` is driven
by the official SDK client.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp_client_support import AGENTFORGE, serve
from test_mcp_faults import FAULTY, agentforge

from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.mcp.client.lifecycle import close_all
from agentforge_cli.integrations.mcp.client.loading import load_mcp_tools

HERE = Path(__file__).resolve().parents[2]
BAD = f"{FAULTY} badschema"
TASKS = f"{FAULTY} tasks"


def _warned(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


# ---------------------------------------------------------------- a tool the SDK refuses


def _says_which_and_why(lines: list[str]) -> None:
    assert len(lines) == 2, lines
    listish, nameless = lines
    assert "'listish'" in listish and "inputSchema.type: Input should be 'object'" in listish
    assert "'#3'" in nameless and "name: Field required" in nameless


def test_list_leaves_out_the_unusable_tools_and_names_each() -> None:
    done = agentforge("tools", "list", "--format", "json", BAD)
    assert done.returncode == 0, done.stderr
    assert [row["name"] for row in json.loads(done.stdout)] == ["fine"]
    _says_which_and_why(_warned(done.stderr))
    assert "ListToolsResult" not in done.stderr and "Traceback" not in done.stderr


def test_call_reaches_the_valid_tool_of_such_a_server() -> None:
    done = agentforge("tools", "call", "fine", "{}", "-t", BAD)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
    _says_which_and_why(_warned(done.stderr))


def test_check_fails_with_a_finding_per_unusable_tool() -> None:
    done = agentforge("tools", "check", "--json", BAD)
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert document["ok"] is False and document["tools"] == 1
    unusable = [f for f in document["findings"] if f["rule"] == "mcp:tool-unusable"]
    assert [(f["tool"], f["level"]) for f in unusable] == [("listish", "error"),
                                                           ("#3", "error")]
    assert "inputSchema.type: Input should be 'object'" in unusable[0]["message"]
    assert _warned(done.stderr) == []  # findings, not warnings


def test_serve_re_serves_the_valid_tools(tmp_path: Path) -> None:
    session = serve(["serve", BAD], tmp_path, command=str(AGENTFORGE))
    remote = next(session)
    try:
        listed = remote.run(remote.session.list_tools)
        assert [tool.name for tool in listed.tools] == ["fine"]
        assert remote.text(remote.call("fine")) == "ok"
    finally:
        next(session, None)
    _says_which_and_why(_warned(remote.stderr.read_text(encoding="utf-8")))


def test_the_library_refuses_the_server_naming_them_without_a_receiver() -> None:
    with pytest.raises(TargetError) as caught:
        load_mcp_tools(BAD, HERE)
    close_all()
    message = str(caught.value)
    assert "'listish' (inputSchema.type: Input should be 'object')" in message
    assert "'#3' (name: Field required)" in message


def test_the_library_gives_each_to_the_receiver_and_loads_the_rest() -> None:
    seen: list[str] = []
    try:
        table = load_mcp_tools(BAD, HERE, skip_problems=seen.append)
        assert [spec.name for spec in table] == ["fine"]
    finally:
        close_all()
    server = f"`{sys.executable} {HERE / 'faulty_server.py'} badschema` (protocol 2025-11-25)"
    assert [line.split(":")[0] for line in seen] == [
        f"tool 'listish' of MCP server {server}", f"tool '#3' of MCP server {server}"]


# ---------------------------------------------------------------- a task-only tool


def test_format_mcp_keeps_execution_and_list_warns_about_task_only_tools() -> None:
    done = agentforge("tools", "list", "--format", "mcp", TASKS)
    assert done.returncode == 0, done.stderr
    tools = {tool["name"]: tool for tool in json.loads(done.stdout)["tools"]}
    assert tools["background"]["execution"] == {"taskSupport": "required"}
    assert tools["either"]["execution"] == {"taskSupport": "optional"}
    assert "execution" not in tools["plain"]
    (warned,) = _warned(done.stderr)
    assert 'tool "background"' in warned and 'taskSupport: "required"' in warned
    rows = json.loads(agentforge("tools", "list", "--format", "json", TASKS).stdout)
    assert rows[0]["execution"] == {"taskSupport": "required"}


def test_check_reports_task_only_tools_as_a_warning() -> None:
    done = agentforge("tools", "check", "--json", TASKS)
    assert done.returncode == 0, done.stderr
    tasks = [f for f in json.loads(done.stdout)["findings"]
             if f["rule"] == "mcp:task-required"]
    assert [(f["tool"], f["level"]) for f in tasks] == [("background", "warning")]
    assert agentforge("tools", "check", "--fail-on", "warning", TASKS).returncode == 1


def test_a_call_to_a_task_only_tool_is_sent_and_the_server_answers() -> None:
    done = agentforge("tools", "call", "background", "{}", "-t", TASKS)
    assert done.returncode == 1
    # the server's own -32601 answer, worded as any failed call of an MCP tool
    assert done.stdout == "Error executing tool background: background must be called as a task\n"
    either = agentforge("tools", "call", "either", "{}", "-t", TASKS)
    assert (either.returncode, either.stdout) == (0, "ok\n"), either.stderr


def test_fuzz_skips_a_task_only_tool_and_says_why() -> None:
    done = agentforge("tools", "fuzz", TASKS, "--examples", "5", "--seed", "1", "--json",
                      "--include-destructive")
    assert done.returncode == 0, done.stderr
    reports = {tool["name"]: tool for tool in json.loads(done.stdout)["tools"]}
    assert 'execution.taskSupport: "required"' in reports["background"]["skipped"]
    assert reports["either"].get("skipped") is None
