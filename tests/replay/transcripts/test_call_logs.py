"""Call logs read back as transcripts: what ``agentforge serve --log`` really writes (the
server is run here, fed JSON-RPC lines) replays all matched; a changed tool is a
mismatch; a result over several lines, a log without call ids, ids two clients reuse and
a start-up line before the first call are read; a masked call is shown, never run; a
malformed record is named with its line; ``--update`` is refused."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from agentforge_cli.replay.transcripts import (
    AssistantMessage,
    ToolCall,
    ToolResult,
    TranscriptError,
    open_transcript,
)

AGENTFORGE = Path(sys.executable).with_name("agentforge")
TOOLS = '''
from agentforge_cli import tool

@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a {op} b

@tool
def report(rows: int) -> str:
    """Some rows of text."""
    return "\\n".join(f"row {{i}}" for i in range(rows))

@tool
def login(user: str, password: str) -> str:
    """Sign in."""
    return f"hello {{user}}"
'''


def tools_file(tmp_path: Path, op: str = "+", name: str = "tools.py") -> Path:
    path = tmp_path / name
    path.write_text(TOOLS.format(op=op), encoding="utf-8")
    return path


def call(number: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


SESSION = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    call(1, "add", {"a": 2, "b": "3"}),
    call(2, "add", {"a": 2, "b": 1.5}),
    call(3, "report", {"rows": 3}),
    call(4, "login", {"user": "ann", "password": "hunter2"}),
]


def served_log(tmp_path: Path, tools: Path) -> Path:
    """The stderr of a real ``agentforge serve --log`` session (stdout: the protocol)."""
    lines = "".join(json.dumps(m) + "\n" for m in SESSION)
    done = subprocess.run([str(AGENTFORGE), "serve", str(tools), "--log"], input=lines,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    # calls run at once, each on a thread of its own: answers come as they finish
    assert sorted(a["id"] for a in answers) == [0, 1, 2, 3, 4]
    log = tmp_path / "serve.log"
    log.write_text(done.stderr, encoding="utf-8")
    return log


def test_a_real_serve_log_replays_all_matched_and_a_changed_tool_mismatches(cli, tmp_path):
    tools = tools_file(tmp_path)
    log = served_log(tmp_path, tools)
    assert "hunter2" not in log.read_text(encoding="utf-8")
    assert open_transcript(log).format == "call-log"
    done = cli("replay", str(log), "-t", str(tools), "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "call-log"
    # add, add refused (1.5 for an int), report over three lines; login was masked
    assert data["summary"]["matched"] == 3 and sum(data["summary"].values()) == 3
    changed = cli("replay", str(log), "-t", str(tools_file(tmp_path, "-", "changed.py")),
                  "--json")
    assert changed.exit_code == 1
    summary = json.loads(changed.stdout)["summary"]
    assert summary["mismatched"] == 1 and summary["matched"] == 2


def test_the_events_of_a_served_log(tmp_path):
    log = served_log(tmp_path, tools_file(tmp_path))
    events = list(open_transcript(log).events())
    calls = [e for e in events if isinstance(e, ToolCall)]
    results = [e for e in events if isinstance(e, ToolResult)]
    # the calls ran at once: the log holds them in the order they were logged
    assert sorted((c.id, c.name, json.loads(c.arguments)) for c in calls) == [
        ("1", "add", {"a": 2, "b": "3"}), ("2", "add", {"a": 2, "b": 1.5}),
        ("3", "report", {"rows": 3})]
    assert sorted((calls[r.call_index].id, r.content, r.is_error) for r in results) == [
        ("1", "5", False),
        ("2", 'Argument "b" has non-integer value for int: <1.5> (tool "add")', True),
        ("3", "row 0\nrow 1\nrow 2", False)]
    masked = [e for e in events if isinstance(e, AssistantMessage)]
    assert len(masked) == 1 and "not replayable" in masked[0].content
    assert '"password":"***"' in masked[0].content


def log_line(message: str, level: str = "INFO") -> str:
    return f"2026-12-01 10:00:00,000 {level} agentforge.tools: {message}\n"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "calls.log"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_start_up_line_and_tool_output_before_the_first_call(tmp_path):
    path = write(tmp_path, "agentforge: MCP server (3 tools) listening on "
                 "http://127.0.0.1:8000/mcp (Ctrl-C stops)\nsome print of a tool\n"
                 + log_line('Tool request: add arguments={"a":1,"b":2} memory_id=None '
                            'call_id="7"')
                 + log_line('Tool response: add result=3 is_error=False duration_ms=0.1 '
                            'call_id="7"'))
    transcript = open_transcript(path)
    assert transcript.format == "call-log"
    assert [type(e).__name__ for e in transcript.events()] == ["ToolCall", "ToolResult"]


def test_ids_that_two_clients_reuse_pair_in_order(tmp_path):
    path = write(tmp_path, "".join([
        log_line('Tool request: add arguments={"a":1,"b":1} memory_id=None call_id="1"'),
        log_line('Tool request: add arguments={"a":2,"b":2} memory_id=None call_id="1"'),
        log_line('Tool response: add result=2 is_error=False duration_ms=0.1 call_id="1"'),
        log_line('Tool response: add result=4 is_error=False duration_ms=0.1 call_id="1"'),
    ]))
    results = [e for e in open_transcript(path).events() if isinstance(e, ToolResult)]
    assert [(r.call_index, r.content) for r in results] == [(0, "2"), (1, "4")]


def test_a_log_an_application_wrote_without_call_ids(tmp_path):
    """The logging decorator under the root logger's default-like format, calls made
    through a service without ids: paired by tool name, in order."""
    from agentforge_cli import ToolService, tool
    from agentforge_cli.core.define.spec import ToolExecutionRequest
    from agentforge_cli.core.observe.calllog import LOGGER_NAME

    @tool
    def echo(text: str) -> str:
        """Say it back."""
        return text

    path = tmp_path / "app.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
    logger = logging.getLogger(LOGGER_NAME)
    saved = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        from agentforge_cli import build_local_tools

        service = ToolService().tools(build_local_tools([echo], logging=True))
        for text in ("one", "two\nlines"):
            service.execute(ToolExecutionRequest(id=None, name="echo",
                                                 arguments=json.dumps({"text": text})))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved)
        handler.close()
    results = [e for e in open_transcript(path).events() if isinstance(e, ToolResult)]
    assert [(r.call_index, r.content) for r in results] == [(0, "one"), (1, "two\nlines")]


@pytest.mark.parametrize(("text", "message"), [
    (log_line('Tool request: add arguments={"a":1,"b":2} memory_id=None call_id="1"')
     + log_line("Tool response: add result=3 and then the log was cut"),
     r"line 2: the logged tool response of 'add' never ends"),
    (log_line('Tool request: add arguments={"a":1,"b":2} memory_id=None call_id="1"')
     + log_line('Tool request: add arguments={"a":1} without its memory id'),
     r"line 2: the logged request of 'add' does not end in memory_id="),
])
def test_a_malformed_record_is_named_with_its_line(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(TranscriptError, match=message):
        list(open_transcript(path).events())


def test_update_is_refused_and_the_log_kept(cli, tmp_path):
    tools = tools_file(tmp_path)
    log = served_log(tmp_path, tools)
    before = log.read_text(encoding="utf-8")
    done = cli("replay", str(log), "-t", str(tools_file(tmp_path, "-", "changed.py")),
               "--update")
    assert done.exit_code == 3
    assert "--update does not write into a call log" in done.stderr
    assert log.read_text(encoding="utf-8") == before
