"""MCP servers that misbehave (``faulty_server.py``): one that dies during a call, hangs,
refuses schema-valid input, has no annotations, lists a name twice, an invalid schema or
endless pages; and what agentforge says to each server about itself.

The command line runs as a subprocess (the installed ``agentforge``), so a server it
starts is a real child process that really dies.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
FAULTY = f"mcp:{sys.executable} {HERE / 'faulty_server.py'}"


def _env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items()
            if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "AGENTFORGE_MCP_TIMEOUT")}


def agentforge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=ROOT,
                          env=_env(), timeout=120)


def fuzz(mode: str, *options: str) -> subprocess.CompletedProcess[str]:
    return agentforge("tools", "fuzz", f"{FAULTY} {mode}", "--examples", "20", "--seed", "1",
                      *options)


def fuzz_json(mode: str, *options: str) -> tuple[int, dict, str]:
    done = fuzz(mode, "--json", *options)
    return done.returncode, json.loads(done.stdout), done.stderr


# ---------------------------------------------------------------- a server that dies


@pytest.mark.parametrize(("mode", "status"), [
    ("segv", "killed by SIGSEGV (signal 11)"),
    ("exit139", "exited with status 139"),
])
def test_call_names_the_exit_status_and_the_stderr_of_a_server_that_dies(mode: str,
                                                                         status: str) -> None:
    done = agentforge("tools", "call", "crash", '{"limit": 1}', "-t", f"{FAULTY} {mode}")
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout == ""
    first = done.stderr.splitlines()[0]
    assert first.startswith("error: MCP server `") and "died during tools/call crash" in first
    assert status in first
    assert "fatal: null pointer in crash()" in done.stderr
    assert "Connection closed" not in done.stderr and "Traceback" not in done.stderr


def test_fuzz_reports_a_server_that_dies_as_a_crash() -> None:
    code, document, _ = fuzz_json("segv")
    assert code == 1 and document["ok"] is False
    tool = document["tools"][0]
    assert tool["counts"]["crash"] == 1 and tool["counts"]["tool error"] == 0
    (failure,) = tool["failures"]
    assert failure["kind"] == "crash"
    assert "killed by SIGSEGV (signal 11)" in failure["detail"]
    assert "fatal: null pointer in crash()" in failure["detail"]
    assert failure["command"].startswith("agentforge tools call crash ")
    text = fuzz("segv")
    assert text.returncode == 1 and "✓" not in text.stdout
    assert "✗ fuzz found 1 problem" in text.stdout


def test_after_the_server_died_its_other_tools_are_skipped_not_blamed() -> None:
    code, document, _ = fuzz_json("segv")
    assert code == 1
    after = {tool["name"]: tool for tool in document["tools"]}["after"]
    assert after["failures"] == [] and after["examples"] == 0
    assert after["skipped"].startswith("not called: MCP server `")
    assert "is gone: it died during tools/call crash" in after["skipped"]


# ---------------------------------------------------------------- a server that hangs


def test_fuzz_reports_a_hang_with_its_reproducer() -> None:
    code, document, _ = fuzz_json("hang", "--timeout", "0.5")
    assert code == 1
    (tool,) = document["tools"]
    assert tool["error"] is None, tool["error"]
    assert tool["counts"]["hang"] == 1 and tool["examples"] == 1
    (failure,) = tool["failures"]
    assert failure["kind"] == "hang" and "no answer within 0.5 s" in failure["detail"]
    assert failure["command"].startswith("agentforge tools call stall ")


# ---------------------------------------------------------------- input the server refuses


def test_fuzz_reports_schema_valid_input_the_server_refuses_as_a_mismatch() -> None:
    code, document, _ = fuzz_json("strict", "--examples", "40")
    assert code == 1
    tools = {tool["name"]: tool for tool in document["tools"]}
    for name in ("rpc", "pydantic", "invalid"):
        kinds = {failure["kind"] for failure in tools[name]["failures"]}
        assert kinds == {"mismatch"}, (name, tools[name])
        assert tools[name]["counts"]["tool error"] == 0, name
    assert tools["lookup"]["failures"] == [] and tools["lookup"]["counts"]["tool error"] > 0
    assert "limit must be at most 10" in tools["rpc"]["failures"][0]["detail"]


# ---------------------------------------------------------------- annotations


def test_fuzz_calls_only_mcp_tools_marked_read_only_and_says_which_it_skipped() -> None:
    code, document, stderr = fuzz_json("annotations")
    tools = {tool["name"]: tool for tool in document["tools"]}
    assert [name for name, tool in tools.items() if not tool["skipped"]] == ["reader"]
    assert "no annotations" in tools["bare"]["skipped"]
    for name in ("closed", "additive"):  # destructiveHint false: it only adds, still writes
        assert tools[name]["skipped"].startswith("destructiveHint: false means additive")
        assert tools[name]["examples"] == 0
    assert tools["browser"]["skipped"].startswith("open-world (openWorldHint: true)")
    assert tools["wiper"]["skipped"].startswith("destructive")
    assert code == 0
    for name in ("bare", "closed", "additive", "browser", "wiper"):
        assert f"skipped {name}: " in stderr, stderr


def test_tool_and_include_destructive_opt_in() -> None:
    code, document, _ = fuzz_json("annotations", "--tool", "bare", "--tool", "wiper")
    assert code == 0
    tools = {tool["name"]: tool for tool in document["tools"]}
    assert tools["bare"]["skipped"] is None and tools["bare"]["counts"]["ok"] > 0
    assert tools["wiper"]["skipped"].startswith("destructive")
    code, document, _ = fuzz_json("annotations", "--include-destructive")
    assert code == 0
    assert all(tool["skipped"] is None for tool in document["tools"])


def test_a_run_that_skipped_every_tool_fails_and_says_so() -> None:
    done = fuzz("annotations", "--tool", "wiper")
    assert done.returncode == 1
    assert "✗ fuzz called no tool: 1 tool skipped" in done.stdout
    code, document, _ = fuzz_json("annotations", "--tool", "wiper")
    assert code == 1 and document["ok"] is False


# ---------------------------------------------------------------- tools/list


def test_two_tools_with_one_name_are_a_load_error_naming_both() -> None:
    done = agentforge("tools", "list", f"{FAULTY} duplicate")
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout == ""
    assert "lists two tools named 'twice'" in done.stderr
    assert "#1" in done.stderr and "#3" in done.stderr


def test_endless_pagination_is_bounded_and_named() -> None:
    done = agentforge("tools", "list", f"{FAULTY} paging")
    assert done.returncode == 3
    assert "keeps paging past 1000 pages of tools/list" in done.stderr
    assert "did not start" not in done.stderr and "Traceback" not in done.stderr


def test_agentforge_introduces_itself_by_name_and_version() -> None:
    from agentforge_cli import __version__

    done = agentforge("tools", "call", "crash", '{"limit": 1}', "-t", f"{FAULTY} segv")
    assert f"client: agentforge {__version__}" in done.stderr  # the server's stderr tail


def test_the_unknown_tool_hint_quotes_the_target_for_the_shell() -> None:
    done = agentforge("tools", "call", "crsh", "{}", "-t", f"{FAULTY} segv")
    assert done.returncode == 2
    assert f"list them with: agentforge tools list '{FAULTY} segv'" in done.stderr


# ---------------------------------------------------------------- a result too large


def test_an_mcp_result_over_the_limit_is_an_error_like_a_python_tools():
    """An MCP target's result has the limit a Python tool's has (4 MiB of text)."""
    small = agentforge("tools", "call", "flood", '{"size": 100}', "-t", f"{FAULTY} huge")
    assert (small.returncode, small.stdout) == (0, "x" * 100 + "\n"), small.stderr
    big = agentforge("tools", "call", "flood", '{"size": 4200000}', "-t", f"{FAULTY} huge")
    assert big.returncode == 1
    assert 'Tool "flood" returned 4200000 characters, more than the limit of 4194304' in (
        big.stdout + big.stderr)
    assert "xxxxxxxxxx" not in big.stdout


def test_a_long_answer_line_is_read_in_linear_time():
    """60 MB, under the limit of a line: read whole, then refused by the result limit."""
    started = time.monotonic()
    done = agentforge("tools", "call", "flood", '{"size": 60000000}', "-t", f"{FAULTY} huge")
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert 'Tool "flood" returned 60000000 characters, more than the limit' in (
        done.stdout + done.stderr)
    assert took < 15, f"took {took:.1f} s"


def test_a_huge_mcp_result_is_refused_quickly_in_bounded_memory():
    """A 200 MB answer line is read in linear time and not kept: the documented error,
    not a timeout; the client's memory stays well under the answer's size."""
    started = time.monotonic()
    with subprocess.Popen([str(AGENTFORGE), "tools", "call", "flood", '{"size": 200000000}',
                           "-t", f"{FAULTY} huge"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, cwd=ROOT, env=_env()) as client:
        peak = 0
        while client.poll() is None and time.monotonic() - started < 120:
            with contextlib.suppress(OSError, ValueError, IndexError):  # IndexError: a zombie
                status = Path(f"/proc/{client.pid}/status").read_text()
                peak = max(peak, int(status.split("VmHWM:")[1].split()[0]) // 1024)
            time.sleep(0.05)
        out, err = client.communicate(timeout=30)
    took = time.monotonic() - started
    assert client.returncode == 1, err
    assert 'Tool "flood" returned an answer of 200000' in out + err
    assert "more than the limit of 4194304" in out + err
    assert took < 40, f"took {took:.1f} s"
    assert peak < 350, f"the client grew to {peak} MB"


BIG_LIST_SERVER = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    if request["method"] == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "wordy", "version": "0"}}
    else:  # tools/list: one tool with an 80 MB description
        result = {"tools": [{"name": "wordy", "description": "d" * 80_000_000,
                             "inputSchema": {"type": "object"}}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result})
                     + "\\n")
    sys.stdout.flush()
"""


def test_a_tool_list_past_the_limit_of_a_message_is_named(tmp_path: Path) -> None:
    server = tmp_path / "wordy.py"
    server.write_text(BIG_LIST_SERVER, encoding="utf-8")
    started = time.monotonic()
    done = agentforge("tools", "list", "-t", f"mcp:{sys.executable} {server}")
    assert done.returncode == 3, done.stdout[:200]
    assert ("cannot be listed: an answer of 80000" in done.stderr
            and "more than the limit of 67108864 bytes of a message" in done.stderr)
    assert "did not start" not in done.stderr
    assert time.monotonic() - started < 40


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.parametrize("recording", [False, True])
def test_sigterm_stops_an_mcp_server_busy_in_a_call(tmp_path, recording):
    """Also when calls are being recorded (AGENTFORGE_RECORD): the recorder's SIGTERM
    handler, set first, stops the server too."""
    import signal
    import time

    pidfile = tmp_path / "server.pid"
    env = _env()
    env.pop("AGENTFORGE_RECORD", None)
    if recording:
        env["AGENTFORGE_RECORD"] = str(tmp_path / "recorded")
    process = subprocess.Popen([str(AGENTFORGE), "tools", "call", "work", "{}", "-t",
                                f"{FAULTY} busy {pidfile}"], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = None
    try:
        deadline = time.monotonic() + 30
        while not (pidfile.exists() and pidfile.read_text()):
            assert time.monotonic() < deadline, "the server never got the call"
            time.sleep(0.05)
        server = int(pidfile.read_text())
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == -signal.SIGTERM  # ended as SIGTERM ends it
        deadline = time.monotonic() + 10
        while _running(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(server), "the mcp: server was left running"
    finally:
        process.kill()
        process.wait(timeout=30)
        if server is not None and _running(server):
            os.kill(server, signal.SIGKILL)
