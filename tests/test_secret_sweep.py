"""Secrets never leave through any output channel of any command that can show arguments.

One tool module declares a sensitive parameter whose name looks harmless (``pin``), a
parameter named like a secret (``api_token``) and a sensitive parameter with a default
(``code``). Every command that can show arguments runs for real (the installed
``agentforge``, the official MCP client for ``serve``), in every output mode, on good
calls and on calls whose arguments fail; none of the secret values may appear on
standard output, standard error or in a file the command writes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentforge_cli.cli.tools_cmd import list_formats

PIN = "40417731"
TOKEN = "tok-SECRET-9"
DEFAULT = "DEFAULT-SECRET-5"
SECRETS = (PIN, TOKEN, DEFAULT)

VAULT = textwrap.dedent(f'''
    from typing import Annotated

    from agentforge_cli import P, tool


    @tool
    def unlock(door: str, pin: Annotated[str, P("The door's PIN", sensitive=True)],
               api_token: str,
               code: Annotated[str, P("A fallback code", sensitive=True)] = "{DEFAULT}",
               ) -> str:
        """Open a door."""
        return f"opened {{door}}"


    @tool
    def rotate(pin: Annotated[int, P("A numeric PIN", sensitive=True)], api_token: str = "",
               door: str = "front") -> str:
        """Rotate a door's PIN."""
        return "rotated"
''')

GOOD = json.dumps({"door": "front", "pin": PIN, "api_token": TOKEN})
BAD_PIN = json.dumps({"pin": PIN + "x", "api_token": TOKEN})  # pin must be an int
NESTED = json.dumps({"pin": 1, "door": {"password": TOKEN}})  # an object for a string
BROKEN = GOOD[:-1]  # not JSON: the text is shown as it came, with secret pairs masked
TWICE = json.dumps(GOOD)  # encoded twice: repaired before binding
PYTHON_DICT = str({"door": "front", "pin": PIN, "api_token": TOKEN})  # {'door': ...}
NEW_NAMES = json.dumps({"pin": 1, "door": {"client_secret": TOKEN, "passphrase": PIN}})
CALLS = [("unlock", GOOD), ("rotate", BAD_PIN), ("rotate", NESTED), ("rotate", BROKEN),
         ("unlock", TWICE), ("open_door", GOOD),  # the last: a tool that does not exist
         ("unlock", PYTHON_DICT), ("rotate", NEW_NAMES)]

AGENTFORGE = str(Path(sys.executable).parent / "agentforge")


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "TERM": "dumb"}
    env.pop("AGENTFORGE_TOOLS", None)
    return subprocess.run([AGENTFORGE, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, input=stdin, timeout=120, check=False)


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} leaked in:\n{text}"


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("vault")
    (folder / "vault.py").write_text(VAULT, encoding="utf-8")
    return folder


# -- tools list: a sensitive parameter's default is not published -----------------------------


@pytest.mark.parametrize("output_format", list(list_formats()))  # every format there is
def test_tools_list_never_shows_a_sensitive_default(vault, output_format):
    result = run("tools", "list", "-t", "vault.py", "--format", output_format, cwd=vault)
    assert result.returncode == 0, result.stderr
    assert "unlock" in result.stdout and "code" in result.stdout
    assert_no_secret(result.stdout, result.stderr)


# -- tools call: every mode, good and failing arguments ---------------------------------------

CALL_MODES = [(), ("--json",), ("--explain",), ("--log",), ("--json", "--explain", "--log"),
              ("--strict", "--explain", "--log"), ("--propagate-errors",),
              ("--wrap-argument-errors", "--json")]


@pytest.mark.parametrize(("name", "arguments"), CALLS)
@pytest.mark.parametrize("mode", CALL_MODES)
def test_tools_call_never_shows_a_secret(vault, name, arguments, mode):
    result = run("tools", "call", name, arguments, "-t", "vault.py", *mode, cwd=vault)
    assert result.returncode in (0, 1, 2), result.stderr  # 2: the tool does not exist
    assert result.stdout or result.stderr
    assert_no_secret(result.stdout, result.stderr)


def test_tools_call_reads_arguments_from_stdin_and_files_without_showing_them(vault, tmp_path):
    (tmp_path / "args.json").write_text(BAD_PIN, encoding="utf-8")
    for source, stdin in (("-", GOOD), (f"@{tmp_path / 'args.json'}", None)):
        result = run("tools", "call", "rotate" if stdin is None else "unlock", source,
                     "-t", "vault.py", "--json", "--explain", "--log", cwd=vault, stdin=stdin)
        assert result.returncode in (0, 1), result.stderr
        assert_no_secret(result.stdout, result.stderr)


# -- replay: trace, --json, --junit, --log, --update, mismatching recordings ------------------


def _transcript(folder: Path, fmt: str) -> Path:
    """Every call of CALLS, each answered with a recorded result that differs from today's,
    including a call to a tool that no longer exists (recorded under an old name)."""
    calls = CALLS
    if fmt == "agentforge":
        lines: list[dict] = [{"type": "user", "content": "open the door"}]
        for i, (name, arguments) in enumerate(calls):
            lines.append({"type": "tool_call", "id": f"c{i}", "name": name,
                          "arguments": arguments})
            lines.append({"type": "tool_result", "id": f"c{i}", "content": "recorded",
                          "is_error": False})
        path = folder / "session.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        return path
    blocks, results = [], []
    for i, (name, arguments) in enumerate(calls):
        try:
            arguments_value = json.loads(arguments)
        except ValueError:
            continue  # an Anthropic input is an object: no broken text
        if not isinstance(arguments_value, dict):
            arguments_value = json.loads(arguments_value)
        blocks.append({"type": "tool_use", "id": f"t{i}", "name": name,
                       "input": arguments_value})
        results.append({"type": "tool_result", "tool_use_id": f"t{i}", "content": "recorded"})
    messages = [{"role": "user", "content": "open the door"},
                {"role": "assistant", "content": blocks},
                {"role": "user", "content": results}]
    path = folder / "session.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    return path


REPLAY_MODES = [(), ("--json",), ("--log",), ("--junit", "REPORT"), ("--strict", "--json"),
                ("--json", "--junit", "REPORT", "--log")]


@pytest.mark.parametrize("fmt", ["agentforge", "anthropic"])
@pytest.mark.parametrize("mode", REPLAY_MODES)
def test_replay_never_shows_a_secret(vault, tmp_path, fmt, mode):
    transcript = _transcript(tmp_path, fmt)
    report = tmp_path / "report.xml"
    args = [str(report) if arg == "REPORT" else arg for arg in mode]
    result = run("replay", str(transcript), "-t", "vault.py", *args, cwd=vault)
    assert result.returncode == 1, result.stderr  # the recordings differ
    assert "mismatched" in result.stdout
    assert_no_secret(result.stdout, result.stderr)
    if "--json" in mode:
        calls = json.loads(result.stdout)["calls"]
        assert json.loads(calls[0]["arguments"]) == {"door": "front", "pin": "***",
                                                     "api_token": "***"}
    if "REPORT" in mode:
        assert_no_secret(report.read_text(encoding="utf-8"))


def test_replay_update_never_shows_a_secret(vault, tmp_path):
    transcript = _transcript(tmp_path, "agentforge")
    result = run("replay", str(transcript), "-t", "vault.py", "--update", "--log",
                 "--allow-drift", cwd=vault)  # some recorded calls carry keys of no tool
    assert result.returncode == 0, result.stderr
    assert_no_secret(result.stdout, result.stderr)


# -- serve --log, through the official MCP client ---------------------------------------------


def test_serve_log_and_answers_never_show_a_secret(vault, tmp_path):
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.shared.exceptions import MCPError

    params = StdioServerParameters(command=AGENTFORGE, args=["serve", "vault.py", "--log"],
                                   cwd=str(vault), env={"NO_COLOR": "1", "TERM": "dumb", **{
                                       k: v for k, v in os.environ.items()
                                       if k == "PYTHONPATH"}})
    answers: list[str] = []

    async def session(errlog) -> None:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as client:
            with anyio.fail_after(120):
                await client.initialize()
                listed = await client.list_tools()
                answers.append(json.dumps([t.model_dump(mode="json") for t in listed.tools]))
                for name, arguments in CALLS:
                    if arguments == PYTHON_DICT:
                        continue  # MCP arguments arrive as an object, never as text
                    value = json.loads(arguments) if arguments != BROKEN else {"pin": PIN}
                    if isinstance(value, str):
                        value = json.loads(value)
                    try:
                        result = await client.call_tool(name, value)
                    except MCPError as exc:  # a tool the server does not have
                        answers.append(str(exc))
                    else:
                        answers.append(json.dumps(result.model_dump(mode="json")))

    stderr_path = tmp_path / "serve-stderr.txt"
    with stderr_path.open("w", encoding="utf-8") as errlog:
        anyio.run(session, errlog)
    log = stderr_path.read_text(encoding="utf-8")
    assert "unlock" in log  # the call log was written
    assert_no_secret(log, *answers)
