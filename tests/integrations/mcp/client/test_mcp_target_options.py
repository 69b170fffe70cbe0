"""How commands reach MCP targets: ``--header`` (http), ``--env``/``--cwd`` (stdio), the
HTTP status of a refusal, ``outputSchema`` and ``structuredContent``, ``--explain``, and
``agentforge serve --transport http`` used as a target.

Every server runs on loopback, started by a fixture and stopped after the test; the
command line runs as a subprocess (the installed ``agentforge``).
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_client_support import free_port, threaded_http_server

from agentforge_cli.cli.errors import UsageError
from agentforge_cli.cli.options import mcp_options
from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.integrations.mcp.client.executor import McpToolResult
from agentforge_cli.integrations.mcp.client.headers import merged_headers
from agentforge_cli.integrations.mcp.client.lifecycle import close_all
from agentforge_cli.integrations.mcp.client.options import HEADERS_VAR, TIMEOUT_VAR, McpOptions

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
PYTHON = sys.executable
PROBE = HERE / "probe_server.py"
STDIO_PROBE = f"mcp:{PYTHON} {PROBE} stdio"
CRM = "sample_tools.crm:CrmTools"
PROVIDERS = ["openai", "openai-strict", "openai-responses", "openai-responses-strict",
             "anthropic", "gemini", "gemini-json-schema", "mcp"]
SECRET = "s3cret"
AUTH = f"Authorization: Bearer {SECRET}"


def _env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", TIMEOUT_VAR,
                          HEADERS_VAR)}
    env.update(extra)
    return env


def agentforge(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=cwd,
                          env=_env(**env), timeout=120, stdin=subprocess.DEVNULL)


def _json(done: subprocess.CompletedProcess[str]) -> object:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def _wait_listening(process: subprocess.Popen[bytes], port: int) -> None:
    for _ in range(400):
        with socket.socket() as client:
            if client.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        time.sleep(0.05)
    pytest.fail(f"nothing listens on port {port}")


def _stop(process: subprocess.Popen[bytes]) -> int:
    process.terminate()
    try:
        return process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()


@pytest.fixture
def guarded_server() -> Iterator[str]:
    """The SDK probe server over HTTP, refusing (401) a request without the bearer."""
    port = free_port()
    process = subprocess.Popen([PYTHON, str(PROBE), "http", str(port)], cwd=HERE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_listening(process, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        _stop(process)


@pytest.fixture
def served_crm() -> Iterator[str]:
    """``agentforge serve sample_tools.crm:CrmTools --transport http`` on a free port."""
    port = free_port()
    process = subprocess.Popen([str(AGENTFORGE), "serve", CRM, "--transport", "http",
                                "--port", str(port)], cwd=ROOT, env=_env(),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    try:
        _wait_listening(process, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        code = _stop(process)
    assert process.poll() is not None and code in (0, -15)


class _Refusing(http.server.BaseHTTPRequestHandler):
    """Answers every request with the status in its path (``/401/mcp`` -> 401)."""

    def _refuse(self) -> None:
        self.send_response(int(self.path.split("/")[1]))
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"no")

    do_GET = do_POST = do_DELETE = _refuse

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing_server() -> Iterator[str]:
    """A plain HTTP server in a thread: ``{base}/401/mcp`` answers 401, and so on."""
    with threaded_http_server(_Refusing) as base:
        yield base


# ---------------------------------------------------------------- --header


def test_the_header_option_reaches_the_server(guarded_server: str) -> None:
    rows = _json(agentforge("tools", "list", "--format", "json", guarded_server,
                            "--header", AUTH))
    assert [row["name"] for row in rows] == ["forecast", "whereami"]
    called = agentforge("tools", "call", "whereami", "-t", guarded_server, "-H", AUTH)
    assert called.returncode == 0, called.stderr
    refused = agentforge("tools", "list", guarded_server)
    assert refused.returncode == 3
    assert refused.stderr.startswith(f"error: MCP server {guarded_server} needs authorization: "
                                     "HTTP 401 Unauthorized")


def test_the_option_wins_over_the_environment_per_header(guarded_server: str) -> None:
    wrong = json.dumps({"authorization": "Bearer nope"})
    won = agentforge("tools", "list", guarded_server, "--header", AUTH,
                     AGENTFORGE_MCP_HEADERS=wrong)
    assert won.returncode == 0, won.stderr
    lost = agentforge("tools", "list", guarded_server, "--header", "Authorization: Bearer nope",
                      AGENTFORGE_MCP_HEADERS=json.dumps({"Authorization": f"Bearer {SECRET}"}))
    assert lost.returncode == 3
    assert "HTTP 401 Unauthorized" in lost.stderr
    assert "nope" not in lost.stdout + lost.stderr


def test_headers_merge_case_insensitively(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HEADERS_VAR, json.dumps({"authorization": "env",
                                                           "X-Team": "a"}))
    assert merged_headers({"Authorization": "option"}) == {"X-Team": "a",
                                                                "Authorization": "option"}


def test_headers_reach_no_report(guarded_server: str, tmp_path: Path) -> None:
    """replay --json/--junit, --log, check --json and fuzz --json never show a header."""
    transcript = tmp_path / "forecast.jsonl"
    events = [{"type": "user", "content": "weather?"},
              {"type": "tool_call", "id": "c1", "name": "whereami", "arguments": "{}"},
              {"type": "tool_result", "id": "c1", "content": "elsewhere", "is_error": False}]
    transcript.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    junit = tmp_path / "junit.xml"
    runs = [agentforge("replay", str(transcript), "-t", guarded_server, "-H", AUTH, "--log",
                       "--json", "--junit", str(junit)),
            agentforge("tools", "check", guarded_server, "-H", AUTH, "--json"),
            agentforge("tools", "fuzz", guarded_server, "-H", AUTH, "--json",
                       "--examples", "3", "--seed", "1", "--tool", "whereami"),
            agentforge("tools", "call", "whereami", "-t", guarded_server, "-H", AUTH,
                       "--json", "--explain", "--log")]
    assert [run.returncode for run in runs] == [1, 0, 0, 0], [r.stderr for r in runs]
    shown = "".join(run.stdout + run.stderr for run in runs) + junit.read_text("utf-8")
    assert "whereami" in shown
    assert SECRET not in shown


# ---------------------------------------------------------------- malformed options

COMMANDS = {
    "tools list": ["tools", "list", CRM],
    "tools call": ["tools", "call", "queryCustomer", "-t", CRM],
    "tools check": ["tools", "check", CRM],
    "tools fuzz": ["tools", "fuzz", CRM],
    "replay": ["replay", "sample_tools/transcripts/crm.jsonl", "-t", CRM],
    "serve": ["serve", CRM],
}
MALFORMED = {
    "header without colon": (["--header", f"Bearer {SECRET}"], "--header takes KEY:VALUE"),
    "header without name": (["-H", f": Bearer {SECRET}"], "has no name before ':'"),
    "header with a line break": (["-H", f"X-Key: a\n{SECRET}"], "--header X-Key: the value"),
    "env without equals": (["--env", SECRET], "--env takes KEY=VALUE"),
    "env without name": (["--env", f"={SECRET}"], "has no name before '='"),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_target_command_refuses_a_malformed_value_without_echoing_it(
        command: str) -> None:
    for option, message in MALFORMED.values():
        done = agentforge(*COMMANDS[command], *option)
        assert done.returncode == 2, (command, option, done.stderr)
        assert message in done.stderr
        assert SECRET not in done.stdout + done.stderr
        assert "Traceback" not in done.stderr


def test_a_cwd_that_is_not_a_directory_exits_2(tmp_path: Path) -> None:
    done = agentforge("tools", "list", STDIO_PROBE, "--cwd", str(tmp_path / "missing"))
    assert done.returncode == 2
    assert "--cwd" in done.stderr and "no such directory" in done.stderr


def test_options_hide_their_values() -> None:
    with pytest.raises(UsageError) as caught:
        mcp_options([f"Authorization {SECRET}"], None, None)
    assert SECRET not in caught.value.message + (caught.value.hint or "")
    options = mcp_options([AUTH], [f"TOKEN={SECRET}"], None)
    assert options.headers == {"Authorization": f"Bearer {SECRET}"}
    assert options.env == {"TOKEN": SECRET}
    assert SECRET not in repr(options)
    bare = mcp_options(None, None, None)  # the servers' notices are always shown
    assert (dict(bare.headers), dict(bare.env), bare.cwd) == ({}, {}, None)


@pytest.mark.parametrize("command", [["tools", "list"], ["tools", "call"], ["tools", "check"],
                                     ["tools", "fuzz"], ["replay"], ["serve"]])
def test_help_lists_the_options(command: list[str]) -> None:
    done = agentforge(*command, "--help", COLUMNS="200")
    assert done.returncode == 0
    for option in ("--header", "--env", "--cwd", "KEY:VALUE", "KEY=VALUE"):
        assert option in done.stdout, (command, option)


# ---------------------------------------------------------------- --env and --cwd


def test_env_and_cwd_reach_a_stdio_server(tmp_path: Path) -> None:
    called = agentforge("tools", "call", "whereami", "-t", STDIO_PROBE,
                        "--env", "PROBE_TOKEN=tok=en", "--cwd", str(tmp_path),
                        PROBE_KEPT="kept")
    assert called.returncode == 0, called.stderr
    assert called.stdout == f"{tmp_path.resolve()}|tok=en|kept\n"
    default = agentforge("tools", "call", "whereami", "-t", STDIO_PROBE)
    assert default.stdout == f"{ROOT}|-|-\n"


def test_env_reaches_a_server_that_needs_it() -> None:
    needs = (f"mcp:sh -c 'test \"$WEATHER_KEY\" = k1 || {{ echo WEATHER_KEY is not set >&2;"
             f" exit 1; }}; exec {AGENTFORGE} serve {CRM}'")
    assert agentforge("tools", "list", needs, "--env", "WEATHER_KEY=k1").returncode == 0
    missing = agentforge("tools", "list", needs, "--env", "WEATHER_KEY=k2")
    assert missing.returncode == 3
    assert "WEATHER_KEY is not set" in missing.stderr
    assert "k2" not in missing.stderr


# ---------------------------------------------------------------- HTTP status


@pytest.mark.parametrize(("status", "line", "hint"), [
    (401, "needs authorization: HTTP 401 Unauthorized", "--header 'Authorization: Bearer"),
    (403, "did not answer: HTTP 403 Forbidden", None),
    (404, "did not answer: HTTP 404 Not Found", "usually at /mcp"),
])
def test_a_refusal_names_the_status_and_the_url(refusing_server: str, status: int,
                                                line: str, hint: str | None) -> None:
    url = f"{refusing_server}/{status}/mcp"
    done = agentforge("tools", "list", url, "-H", AUTH)
    assert done.returncode == 3
    assert done.stderr.startswith(f"error: MCP server {url} {line}")
    if hint is not None:
        assert hint in done.stderr
    assert "/sse" in done.stderr if status == 404 else "/sse" not in done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------------- outputSchema, results


def test_output_schema_is_kept_in_json_and_the_mcp_export() -> None:
    rows = _json(agentforge("tools", "list", "--format", "json", STDIO_PROBE))
    forecast = rows[0]
    assert forecast["name"] == "forecast"
    assert forecast["output_schema"]["properties"]["celsius"]["type"] == "integer"
    exported = _json(agentforge("tools", "list", "--format", "mcp", STDIO_PROBE))
    assert exported["tools"][0]["outputSchema"] == forecast["output_schema"]


def test_python_tools_have_no_output_schema() -> None:
    rows = _json(agentforge("tools", "list", "--format", "json", CRM))
    assert "output_schema" not in rows[0]
    exported = _json(agentforge("tools", "list", "--format", "mcp", CRM))
    assert "outputSchema" not in exported["tools"][0]


def test_output_schema_is_part_of_the_specification() -> None:
    plain = ToolSpecification(name="f")
    typed = ToolSpecification(name="f", output_schema={"type": "object"})
    assert plain.output_schema is None and "output_schema" not in plain.to_dict()
    assert typed.to_dict()["output_schema"] == {"type": "object"}
    assert typed != plain and hash(typed) != hash(plain)
    assert typed == ToolSpecification(name="f", output_schema={"type": "object"})
    with pytest.raises(AttributeError):
        typed.output_schema = None  # type: ignore[misc]


def test_call_json_shows_content_structured_content_and_the_arguments_sent() -> None:
    document = _json(agentforge("tools", "call", "forecast", '{"city": "Oslo",}', "--json",
                                "-t", STDIO_PROBE))
    assert document["arguments"] == {"city": "Oslo"}
    assert document["structuredContent"] == {"city": "Oslo", "celsius": 21}
    assert document["content"] == [{"type": "text", "text": document["result"]}]
    assert list(document) == ["name", "result", "is_error", "content", "structuredContent",
                              "arguments", "id", "memory_id"]


def test_call_json_of_a_python_tool_keeps_its_shape() -> None:
    document = _json(agentforge("tools", "call", "queryCustomer",
                                '{"name": "x", "limit": "2"}', "--json", "-t", CRM))
    assert list(document) == ["name", "result", "is_error", "arguments", "id", "memory_id"]
    assert document["arguments"] == {"name": "x", "limit": 2}


def test_explain_says_the_server_binds_the_arguments() -> None:
    done = agentforge("tools", "call", "forecast", '{"city": "Oslo"}', "--explain",
                      "-t", STDIO_PROBE)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("forecast is served by MCP server `")
    assert "the server binds it" in done.stderr
    assert 'sent: {"city": "Oslo"}' in done.stderr
    assert '"title": "forecastArguments"' in done.stderr  # the inputSchema
    missing = agentforge("tools", "call", "forecast", "{}", "--explain", "--json",
                         "-t", STDIO_PROBE)
    assert missing.returncode == 1  # the server refuses the call
    document = json.loads(missing.stdout)
    assert document["is_error"] is True and "Field required" in document["result"]
    assert document["explain"] == [
        {"parameter": "city", "present": False, "raw": None, "value": None, "python": None,
         "type": None, "status": "missing",
         "rule": 'bound by the MCP server; inputSchema: {"title": "City", "type": "string"}'
                 " (required)"}]


# ---------------------------------------------------------------- agentforge serve over HTTP


def test_agentforge_serve_over_http_is_a_target(served_crm: str) -> None:
    served = _json(agentforge("tools", "list", "--format", "json", served_crm))
    assert served == _json(agentforge("tools", "list", "--format", "json", CRM))
    providers = [arg for name in PROVIDERS for arg in ("--provider", name)]
    checked = agentforge("tools", "check", served_crm, *providers)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no findings" in checked.stdout
    called = agentforge("tools", "call", "queryCustomer", '{"name":"长路","limit":"5"}',
                        "-t", served_crm)
    assert (called.returncode, called.stdout) == (0, "customer:长路,limit:5\n"), called.stderr
    replayed = agentforge("replay", "sample_tools/transcripts/crm.jsonl", "-t", served_crm)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "1 call replayed, no result differs" in replayed.stdout


def test_load_service_takes_the_options_and_keeps_the_raw_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentforge_cli.core.define.spec import ToolExecutionRequest
    from agentforge_cli.integrations.targets.loading import load_service

    monkeypatch.chdir(ROOT)
    options = McpOptions(env={"PROBE_TOKEN": "t1"}, cwd=tmp_path)
    try:
        service = load_service([STDIO_PROBE], mcp_options=options)
        where = service.execute(ToolExecutionRequest(name="whereami"))
        assert where == (f"{tmp_path}|t1|-", False)
        result = service.execute(ToolExecutionRequest(name="forecast",
                                                      arguments='{"city": "Rome"}'))
        assert isinstance(result, McpToolResult)
        assert result.arguments == {"city": "Rome"}
        assert result.structured_content == {"city": "Rome", "celsius": 21}
        assert result.content == [{"type": "text", "text": result.text}]
        spec = next(s for s in service.specifications if s.name == "forecast")
        assert spec.output_schema is not None and spec.output_schema["title"] == "Forecast"
    finally:
        close_all()


@pytest.mark.parametrize(("url", "why"), [
    ("http://127.0.0.1:abc/mcp", "Port could not be cast to integer value as 'abc'"),
    ("http://127.0.0.1:99999/mcp", "Port out of range 0-65535"),
    ("http://ann:hunter2@[::1/mcp", "Invalid IPv6 URL"),
])
def test_a_url_that_cannot_be_parsed_is_a_configuration_error(url: str, why: str) -> None:
    done = agentforge("tools", "list", url)
    assert done.returncode == 2, done.stderr
    assert f"is not a valid URL: {why}" in done.stderr
    assert "unexpected" not in done.stderr and "hunter2" not in done.stderr
    assert done.stdout == ""
