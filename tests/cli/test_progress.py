"""The replay progress bar, on a real pseudo-terminal: drawn on standard error only when
that is a terminal, never on a line of the trace, counting calls (not lines)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_support import ROOT

from agentforge_cli.cli.render import LONG_TRANSCRIPT

AGENTFORGE = Path(sys.executable).parent / "agentforge"  # installed by `make`

CALLS = LONG_TRANSCRIPT // 2 + 20
"""Calls in the long transcript: 2 records each, plus a user line (records > calls)."""
RECORDS = 2 * CALLS + 1

TOOLS = '''
    from agentforge_cli import tool


    @tool
    def echo(text: str) -> str:
        """Return the text.

        Args:
            text: The text.
        """
        print("PRINTED by echo " + text)
        return text
'''

_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]")
_LABELS = ("[user]", "[think]", "[act]", "[reflect]", "[final]")


@pytest.fixture
def long_replay(tmp_path: Path) -> tuple[str, str]:
    tools = tmp_path / "echo_tools.py"
    tools.write_text(textwrap.dedent(TOOLS), encoding="utf-8")
    lines = [{"type": "user", "content": "echo everything"}]
    for i in range(CALLS):
        lines.append({"type": "tool_call", "id": f"c{i}", "name": "echo",
                      "arguments": json.dumps({"text": f"t{i}"})})
        lines.append({"type": "tool_result", "id": f"c{i}", "content": f"t{i}"})
    transcript = tmp_path / "long.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines),
                          encoding="utf-8")
    assert RECORDS >= LONG_TRANSCRIPT
    return str(transcript), str(tools)


def _environment() -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "FORCE_COLOR",
                                  "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    environment.update({"COLUMNS": "100", "LINES": "40", "TERM": "xterm",
                        "PYTHONIOENCODING": "utf-8"})
    return environment


def run_on_terminal(*args: str, stdout: str, stderr: str) -> tuple[int, str, str, str]:
    """Run ``agentforge *args`` with each of stdout/stderr on the pseudo-terminal
    (``"tty"``) or on a pipe (``"pipe"``); returns the exit code, what the terminal
    showed, and what each pipe received."""
    master, slave = os.openpty()
    pipes = {name: subprocess.PIPE if where == "pipe" else slave
             for name, where in (("stdout", stdout), ("stderr", stderr))}
    with subprocess.Popen([str(AGENTFORGE), *args], cwd=ROOT, env=_environment(),
                          stdin=subprocess.DEVNULL, **pipes) as process:
        os.close(slave)
        shown = bytearray()
        piped = {"stdout": b"", "stderr": b""}
        import threading

        def drain(name: str) -> None:
            piped[name] = getattr(process, name).read()

        readers = [threading.Thread(target=drain, args=(name,))
                   for name, where in (("stdout", stdout), ("stderr", stderr))
                   if where == "pipe"]
        for reader in readers:
            reader.start()
        while True:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # EIO: every writer of the terminal has closed it
                break
            if not chunk:
                break
            shown += chunk
        for reader in readers:
            reader.join()
        code = process.wait(timeout=60)
    os.close(master)
    return (code, shown.decode("utf-8", "replace").replace("\r\n", "\n"),
            piped["stdout"].decode("utf-8"), piped["stderr"].decode("utf-8"))


def screen_lines(shown: str) -> list[str]:
    """The terminal stream as the lines a scrollback keeps: escapes removed, every
    carriage return or newline ending a line."""
    return [line for line in re.split(r"[\r\n]", _ESCAPE.sub("", shown)) if line.strip()]


def bar_lines(shown: str) -> list[str]:
    return [line for line in screen_lines(shown) if "replaying" in line or "━" in line]


def test_trace_and_bar_on_one_terminal_never_share_a_line(long_replay):
    transcript, tools = long_replay
    code, shown, _, _ = run_on_terminal("replay", transcript, "-t", tools,
                                        stdout="tty", stderr="tty")
    assert code == 0
    lines = screen_lines(shown)
    trace = [line for line in lines if line.startswith(_LABELS)]
    assert len(trace) == 2 + 2 * CALLS  # [user], [think], then [act] [reflect] per call
    glued = [line for line in lines if any(label in line for label in _LABELS)
             and ("replaying" in line or "━" in line)]
    assert glued == []
    # the trace on this terminal is the progress: no bar is drawn over it
    assert bar_lines(shown) == []


def test_bar_on_the_terminal_counts_calls_while_the_trace_goes_to_a_file(long_replay):
    transcript, tools = long_replay
    code, shown, stdout, _ = run_on_terminal("replay", transcript, "-t", tools,
                                             stdout="pipe", stderr="tty")
    assert code == 0
    assert "\x1b" not in stdout and "replaying" not in stdout
    assert stdout.splitlines()[0] == "[user]    echo everything"
    bars = bar_lines(shown)
    assert bars, "no progress bar was drawn on the terminal"
    counts = [int(found) for line in bars for found in re.findall(r"(\d+) calls?\b", line)]
    assert counts and max(counts) == CALLS
    assert not any(f"/{RECORDS}" in line or str(RECORDS) in line for line in bars)
    # what the tools print lands on the terminal, each on a line of its own
    printed = [line for line in screen_lines(shown) if "PRINTED by echo" in line]
    assert len(printed) == CALLS
    assert all(line.startswith("PRINTED by echo") for line in printed)
    assert not any("PRINTED" in line for line in bars)


def test_json_on_the_terminal_comes_after_the_bar(long_replay):
    transcript, tools = long_replay
    code, shown, _, _ = run_on_terminal("replay", transcript, "-t", tools, "--json",
                                        stdout="tty", stderr="tty")
    assert code == 0
    assert bar_lines(shown), "no progress bar was drawn on the terminal"
    lines = screen_lines(shown)
    start = lines.index("{")
    assert not any("replaying" in line or "━" in line for line in lines[start:])
    assert json.loads("\n".join(lines[start:]))["summary"]["matched"] == CALLS


def test_no_bar_when_stderr_is_not_a_terminal(long_replay):
    transcript, tools = long_replay
    code, shown, _, stderr = run_on_terminal("replay", transcript, "-t", tools,
                                             stdout="tty", stderr="pipe")
    assert code == 0
    assert "replaying" not in stderr and "━" not in stderr and "\x1b" not in stderr
    assert stderr.count("PRINTED by echo") == CALLS
    assert screen_lines(shown)[0] == "[user]    echo everything"
