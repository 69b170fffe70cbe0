"""MCP servers as targets (``mcp:COMMAND ...``): list, call, check, snapshot and replay
against real servers — ``agentforge serve`` itself and the official reference servers
``mcp-server-time`` and ``mcp-server-git`` — and clear failures for servers that do not
start, exit, speak something else or never answer.

The command line runs as a subprocess (the installed ``agentforge``), so each test also
checks that nothing is left running when the command exits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentforge_cli.core.define.spec import ToolExecutionRequest
from agentforge_cli.errors import TargetConfigError, TargetError
from agentforge_cli.integrations.mcp.client.lifecycle import close_all
from agentforge_cli.integrations.mcp.client.options import TIMEOUT_VAR
from agentforge_cli.integrations.targets.loading import load_service

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
BIN = Path(sys.executable).parent
AGENTFORGE = BIN / "agentforge"
PYTHON = sys.executable
CRM = "sample_tools.crm:CrmTools"
SERVE = f"mcp:{AGENTFORGE} serve {CRM}"
TIME = f"mcp:{PYTHON} -m mcp_server_time --local-timezone Etc/UTC"
NODE_BIN = Path(sys.prefix) / "node" / "node_modules" / ".bin"
PROVIDERS = ["openai", "openai-strict", "openai-responses", "openai-responses-strict",
             "anthropic", "gemini", "gemini-json-schema", "mcp"]


def _env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", TIMEOUT_VAR)}
    env.update(extra)
    return env


def agentforge(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=cwd,
                          env=_env(**env), timeout=120)


def _json(done: subprocess.CompletedProcess[str]) -> object:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# ---------------------------------------------------------------- agentforge serve


def test_list_gives_the_same_tools_as_the_python_target() -> None:
    served = _json(agentforge("tools", "list", "--format", "json", SERVE))
    local = _json(agentforge("tools", "list", "--format", "json", CRM))
    assert served == local
    assert [row["name"] for row in served] == ["queryCustomer"]


def test_shop_tools_keep_titles_and_annotations_through_the_server() -> None:
    served = _json(agentforge("tools", "list", "--format", "json",
                              f"mcp:{AGENTFORGE} serve sample_tools.shop"))
    local = _json(agentforge("tools", "list", "--format", "json", "sample_tools.shop"))
    # serve adds the outputSchema of a dataclass return type
    typed = [row["name"] for row in served if row.pop("output_schema", None) is not None]
    assert served == local
    assert typed == ["placeOrder", "getOrder", "quote_shipping"]


def test_call_prints_the_servers_text_and_an_error_exits_1() -> None:
    done = agentforge("tools", "call", "queryCustomer", '{"name":"长路","limit":"5"}',
                      "-t", SERVE)
    assert (done.returncode, done.stdout) == (0, "customer:长路,limit:5\n"), done.stderr
    failed = agentforge("tools", "call", "queryCustomer", '{"name":"长路","limit":5.5}',
                        "-t", SERVE)
    local = agentforge("tools", "call", "queryCustomer", '{"name":"长路","limit":5.5}',
                       "-t", CRM)
    assert failed.returncode == 1
    assert failed.stdout == local.stdout
    assert "non-integer value" in failed.stdout


def test_arguments_are_parsed_leniently_before_they_are_sent() -> None:
    done = agentforge("tools", "call", "queryCustomer", '{"name":"长路","limit":5,}',
                      "-t", SERVE)
    assert (done.returncode, done.stdout) == (0, "customer:长路,limit:5\n"), done.stderr


def test_check_openai_strict_passes() -> None:
    done = agentforge("tools", "check", SERVE, "--provider", "openai-strict")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no findings" in done.stdout


def test_snapshot_written_from_python_matches_the_server(tmp_path: Path) -> None:
    snapshot = tmp_path / "tools.json"
    written = agentforge("tools", "check", CRM, "--snapshot", str(snapshot),
                         "--update-snapshot")
    assert written.returncode == 0, written.stderr
    compared = agentforge("tools", "check", SERVE, "--snapshot", str(snapshot))
    assert compared.returncode == 0, compared.stdout + compared.stderr
    snapshot.unlink()
    assert agentforge("tools", "check", SERVE, "--snapshot", str(snapshot),
                      "--update-snapshot").returncode == 0
    assert agentforge("tools", "check", CRM, "--snapshot", str(snapshot)).returncode == 0


def test_replay_runs_the_recorded_calls_through_the_server() -> None:
    done = agentforge("replay", "sample_tools/transcripts/crm.jsonl", "-t", SERVE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 call replayed, no result differs" in done.stdout
    assert "customer:长路,limit:5  ✓ matched" in done.stdout


def test_targets_from_the_environment_and_pyproject(tmp_path: Path) -> None:
    listed = agentforge("tools", "list", AGENTFORGE_TOOLS=SERVE)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("[queryCustomer]")
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.agentforge]\ntools = [{json.dumps(SERVE)}]\n", encoding="utf-8")
    listed = agentforge("tools", "list", cwd=tmp_path, PYTHONPATH=str(ROOT))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("[queryCustomer]")


def test_python_and_mcp_targets_together_refuse_a_duplicated_name() -> None:
    done = agentforge("tools", "list", CRM, SERVE)
    assert done.returncode == 3
    assert "Duplicated definition for tool: queryCustomer" in done.stderr


def test_the_server_is_stopped_when_the_command_exits(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    target = f"mcp:sh -c 'echo $$ > {pid_file}; exec {AGENTFORGE} serve {CRM}'"
    done = agentforge("tools", "list", target)
    assert done.returncode == 0, done.stderr
    _assert_gone(int(pid_file.read_text()))


def _assert_gone(pid: int) -> None:
    for _ in range(100):  # the init process reaps the orphan shortly after it exits
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail(f"server process {pid} is still running")


# ---------------------------------------------------------------- from Python


def test_load_service_executes_through_the_server_and_close_all_stops_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    pid_file = tmp_path / "pid"
    target = f"mcp:sh -c 'echo $$ > {pid_file}; exec {AGENTFORGE} serve {CRM}'"
    try:
        service = load_service([target])
        result = service.execute(ToolExecutionRequest(
            name="queryCustomer", arguments='{"name":"长路","limit":5}'))
        assert result == ("customer:长路,limit:5", False)
        wrong = service.execute(ToolExecutionRequest(name="queryCustomer",
                                                     arguments='{"name":"x","limit":5.5}'))
        assert wrong.is_error and "non-integer value" in wrong.text
    finally:
        close_all()
    _assert_gone(int(pid_file.read_text()))


def test_an_empty_command_is_a_configuration_error() -> None:
    with pytest.raises(TargetConfigError, match="names no command"):
        load_service(["mcp:  "])


# ---------------------------------------------------------------- failures


def test_a_command_that_does_not_exist_exits_3() -> None:
    done = agentforge("tools", "list", "mcp:no-such-mcp-server --flag")
    assert done.returncode == 3
    assert done.stderr.startswith("error: MCP server `no-such-mcp-server --flag` did not "
                                  "start: No such file or directory")
    assert "Traceback" not in done.stderr


def test_a_server_that_exits_shows_the_end_of_its_stderr() -> None:
    script = "import sys; print('token is missing', file=sys.stderr); sys.exit(2)"
    done = agentforge("tools", "list", f'mcp:{PYTHON} -c "{script}"')
    assert done.returncode == 3
    assert "did not start: it exited or closed its standard output" in done.stderr
    assert "the server's standard error ended with:\n    token is missing" in done.stderr


def test_a_program_that_does_not_speak_mcp_is_named() -> None:
    done = agentforge("tools", "list", f"mcp:{PYTHON} -c \"print('hello there')\"")
    assert done.returncode == 3
    assert "something other than MCP on standard output: 'hello there'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_server_that_never_answers_times_out() -> None:
    silent = f"mcp:{PYTHON} -c \"import time; time.sleep(60)\""
    listed = agentforge("tools", "list", silent, AGENTFORGE_MCP_TIMEOUT="1")
    assert listed.returncode == 3
    assert "did not start: no answer within 1 s" in listed.stderr
    called = agentforge("tools", "call", "x", "{}", "-t", silent, "--timeout", "1")
    assert called.returncode == 3
    assert "did not start: no answer within 1 s" in called.stderr


def test_a_bad_timeout_setting_is_a_usage_error() -> None:
    done = agentforge("tools", "list", SERVE, AGENTFORGE_MCP_TIMEOUT="soon")
    assert done.returncode == 2
    assert "AGENTFORGE_MCP_TIMEOUT must be a positive number of seconds" in done.stderr


def test_a_missing_sdk_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp -> ImportError
    with pytest.raises(TargetError) as caught:
        load_service([SERVE])
    assert "the mcp package is not installed" in caught.value.message
    assert "pip install '.[mcp]'" in (caught.value.hint or "")


# ---------------------------------------------------------------- reference servers


def test_time_server_list_check_call() -> None:
    rows = _json(agentforge("tools", "list", "--format", "json", TIME))
    assert [row["name"] for row in rows] == ["get_current_time", "convert_time"]
    assert rows[0]["annotations"]["readOnlyHint"] is True
    providers = [arg for name in PROVIDERS for arg in ("--provider", name)]
    checked = agentforge("tools", "check", TIME, *providers)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no findings" in checked.stdout
    called = agentforge("tools", "call", "convert_time", "-t", TIME,
                        '{"source_timezone": "Etc/UTC", "time": "12:00",'
                        ' "target_timezone": "Asia/Tokyo"}')
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["target"]["datetime"].endswith("T21:00:00+09:00")
    failed = agentforge("tools", "call", "get_current_time", '{"timezone": "Mars/Base"}',
                        "-t", TIME)
    assert failed.returncode == 1
    assert "Mars/Base" in failed.stdout


def test_time_server_snapshot_round_trip(tmp_path: Path) -> None:
    snapshot = tmp_path / "time.json"
    assert agentforge("tools", "check", TIME, "--snapshot", str(snapshot),
                      "--update-snapshot").returncode == 0
    compared = agentforge("tools", "check", TIME, "--snapshot", str(snapshot))
    assert compared.returncode == 0, compared.stdout + compared.stderr


def test_git_server_list_check_call(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    target = f"mcp:{PYTHON} -m mcp_server_git --repository {repo}"
    rows = _json(agentforge("tools", "list", "--format", "json", target))
    names = [row["name"] for row in rows]
    assert "git_status" in names and "git_log" in names
    providers = [arg for name in PROVIDERS for arg in ("--provider", name)]
    checked = agentforge("tools", "check", target, *providers)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    called = agentforge("tools", "call", "git_status", json.dumps({"repo_path": str(repo)}),
                        "-t", target)
    assert called.returncode == 0, called.stderr
    assert "On branch main" in called.stdout
    _assert_replays(tmp_path, target, "git_status", {"repo_path": str(repo)},
                    called.stdout.removesuffix("\n"))


def _node_server(name: str) -> str:
    """The ``mcp:`` target of a Node reference server that ``make install`` installs."""
    path = NODE_BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run make install (it installs the Node reference "
                    "servers)")
    return f"mcp:{path}"


def test_sequential_thinking_local_pointer_refs_pass_every_check(tmp_path: Path) -> None:
    """Its zod schema reuses one boolean schema: ``isRevision`` is
    ``{"$ref": "#/properties/nextThoughtNeeded"}``, a local JSON Pointer, not a $defs name."""
    target = _node_server("mcp-server-sequential-thinking")
    rows = _json(agentforge("tools", "list", "--format", "json", target))
    properties = rows[0]["parameters"]["properties"]
    assert properties["isRevision"]["$ref"] == "#/properties/nextThoughtNeeded"
    providers = [arg for name in PROVIDERS for arg in ("--provider", name)]
    checked = agentforge("tools", "check", target, *providers)
    assert "unresolved-ref" not in checked.stdout, checked.stdout
    assert checked.returncode == 0, checked.stdout + checked.stderr
    gemini = _json(agentforge("tools", "list", "--format", "gemini", target))
    exported = gemini[0]["parameters"]["properties"]
    assert exported["isRevision"]["description"] == "Whether this revises previous thinking"
    assert exported["needsMoreThoughts"]["anyOf"] == exported["nextThoughtNeeded"]["anyOf"]
    snapshot = tmp_path / "thinking.json"
    written = agentforge("tools", "check", target, "--snapshot", str(snapshot),
                         "--update-snapshot")
    assert written.returncode == 0, written.stdout + written.stderr
    compared = agentforge("tools", "check", target, "--snapshot", str(snapshot))
    assert compared.returncode == 0, compared.stdout + compared.stderr


def _assert_replays(tmp_path: Path, target: str, name: str, arguments: dict[str, object],
                    result: str) -> None:
    """A recorded call replays against the server: the same result matches, another
    result is reported as a difference (exit 1)."""
    for recorded, code in ((result, 0), ("something else", 1)):
        transcript = tmp_path / f"recorded-{code}.jsonl"
        events = [{"type": "user", "content": "status?"},
                  {"type": "tool_call", "id": "call_1", "name": name,
                   "arguments": json.dumps(arguments)},
                  {"type": "tool_result", "id": "call_1", "content": recorded,
                   "is_error": False}]
        transcript.write_text("".join(json.dumps(e) + "\n" for e in events),
                              encoding="utf-8")
        done = agentforge("replay", str(transcript), "-t", target)
        assert done.returncode == code, done.stdout + done.stderr
        assert ("no result differs" in done.stdout) == (code == 0), done.stdout


def test_pytest_plugin_fixtures_and_snapshot_take_an_mcp_target(tmp_path: Path) -> None:
    (tmp_path / "test_served.py").write_text(f'''
def test_service(agentforge_service, agentforge_specs):
    from agentforge_cli.core.define.spec import ToolExecutionRequest
    assert [spec.name for spec in agentforge_specs] == ["queryCustomer"]
    result = agentforge_service.execute(ToolExecutionRequest(
        name="queryCustomer", arguments='{{"name":"x","limit":"2"}}'))
    assert result == ("customer:x,limit:2", False)

def test_snapshot(agentforge_snapshot):
    agentforge_snapshot({str(tmp_path / "tools.json")!r})
''', encoding="utf-8")
    run = [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
           "--rootdir", str(tmp_path), str(tmp_path), "--agentforge-tools", SERVE]
    env = _env(PYTHONPATH=str(ROOT))
    written = subprocess.run([*run, "--agentforge-update-snapshots"], capture_output=True,
                             text=True, cwd=ROOT, env=env, timeout=120)
    assert written.returncode == 0, written.stdout + written.stderr
    done = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


# ---------------------------------------------------------------- streamable HTTP

HTTP_APP = '''
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("weather")


@server.tool(description="Today's forecast for a city")
def forecast(city: str, days: int = 1) -> str:
    return f"{city}: sunny for {days} day(s)"


app = server.streamable_http_app()


async def guarded(scope, receive, send):
    if scope["type"] == "http" and (b"authorization", b"Bearer s3cret") not in scope["headers"]:
        await send({"type": "http.response.start", "status": 401, "headers": []})
        await send({"type": "http.response.body", "body": b"no token"})
        return
    await app(scope, receive, send)


uvicorn.run(guarded, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
'''


@pytest.fixture
def http_server(tmp_path: Path):
    """A streamable HTTP MCP server (the SDK's) on a free loopback port; stopped after."""
    import socket

    script = tmp_path / "weather_server.py"
    script.write_text(HTTP_APP, encoding="utf-8")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([PYTHON, str(script), str(port)], cwd=tmp_path,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stderr.close()


HEADERS = json.dumps({"Authorization": "Bearer s3cret"})


def test_http_target_list_check_call_with_a_header(http_server: str) -> None:
    rows = _json(agentforge("tools", "list", "--format", "json", http_server,
                            AGENTFORGE_MCP_HEADERS=HEADERS))
    assert [row["name"] for row in rows] == ["forecast"]
    assert rows[0]["parameters"]["required"] == ["city"]
    checked = agentforge("tools", "check", http_server, "--provider", "openai-strict",
                         AGENTFORGE_MCP_HEADERS=HEADERS)
    assert checked.returncode in (0, 1), checked.stderr
    called = agentforge("tools", "call", "forecast", '{"city": "Oslo", "days": "2"}',
                        "-t", http_server, AGENTFORGE_MCP_HEADERS=HEADERS)
    assert (called.returncode, called.stdout) == (0, "Oslo: sunny for 2 day(s)\n"), \
        called.stderr


def test_http_target_without_the_header_exits_3_and_never_prints_it(http_server: str
                                                                     ) -> None:
    refused = agentforge("tools", "list", http_server)
    assert refused.returncode == 3
    assert refused.stderr.startswith(f"error: MCP server {http_server} needs authorization")
    wrong = agentforge("tools", "list", http_server,
                       AGENTFORGE_MCP_HEADERS=json.dumps({"Authorization": "Bearer nope"}))
    assert wrong.returncode == 3
    assert "nope" not in wrong.stdout + wrong.stderr
    bad = agentforge("tools", "list", http_server, AGENTFORGE_MCP_HEADERS="Bearer s3cret")
    assert bad.returncode == 2
    assert "AGENTFORGE_MCP_HEADERS must be a JSON object of strings" in bad.stderr
    assert "s3cret" not in bad.stdout + bad.stderr
