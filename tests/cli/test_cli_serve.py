"""``agentforge serve``: CliRunner for the command's wiring and errors, then the installed
entry point spoken to in raw JSON-RPC over its stdin/stdout (the SDK client drives it in
``tests/integrations/mcp/server/test_mcp_server.py``)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from cli_support import CRM, ROOT

AGENTFORGE = Path(sys.executable).with_name("agentforge")
TIMEOUT = 20.0
INSTALL_HINT = "pip install '.[mcp]'"  # in a clone: the distribution is installed from source


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Replace ``run_stdio`` (which would block on stdin) with a recorder."""
    from agentforge_cli.integrations.mcp.server import tool_server as mcp_server

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(mcp_server, "run_stdio",
                        lambda service, **options: calls.append({"service": service,
                                                                 **options}))
    return calls


def test_serve_hands_the_loaded_tools_to_the_server(cli, served):
    result = cli("serve", CRM, "-t", "sample_tools.weather")
    assert result.exit_code == 0, result.stderr
    assert (result.stdout, result.stderr) == ("", "")
    [call] = served
    assert call["service"].names == ["queryCustomer", "getWeather"]
    assert call["log"] is False
    from agentforge_cli.core.observe.calllog import LoggingToolExecutor

    assert not isinstance(call["service"].executor("queryCustomer"), LoggingToolExecutor)


def test_serve_log_builds_logged_tools_and_logs_to_stderr(cli, served):
    result = cli("serve", CRM, "--log")
    assert result.exit_code == 0, result.stderr
    [call] = served
    assert call["log"] is True
    from agentforge_cli.core.observe.calllog import LoggingToolExecutor

    assert isinstance(call["service"].executor("queryCustomer"), LoggingToolExecutor)


def test_serve_without_the_mcp_extra_exits_3(cli, served, monkeypatch):
    from importlib import metadata

    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    result = cli("serve", CRM)
    assert result.exit_code == 3
    assert result.stdout == ""
    assert result.stderr.startswith("error: agentforge serve needs the MCP SDK (mcp>=2.3)")
    assert f"Install it from a clone of agentforge with: {INSTALL_HINT}" in result.stderr
    assert "agentforge-cli" not in result.stderr  # an unrelated project's name on PyPI
    assert "Traceback" not in result.stderr
    assert served == []


def test_serve_with_an_old_sdk_exits_3(cli, served, monkeypatch):
    from importlib import metadata

    monkeypatch.setattr(metadata, "version", lambda name: "1.26.0")
    result = cli("serve", CRM)
    assert result.exit_code == 3
    assert "mcp 1.26.0 is installed" in result.stderr
    assert f"Upgrade it from a clone of agentforge with: {INSTALL_HINT}" in result.stderr
    assert served == []


def test_serve_strict_and_timeout_build_the_tools(cli, served):
    result = cli("serve", CRM, "--strict", "--timeout", "2.5")
    assert result.exit_code == 0, result.stderr
    assert (result.stdout, result.stderr) == ("", "")
    [call] = served
    executor = call["service"].executor("queryCustomer")
    assert (executor.strict, executor.timeout) == (True, 2.5)
    assert call["wire"] is not None  # stdout was claimed before the targets were loaded
    plain = cli("serve", CRM)  # strict is serve's default: MCP servers validate inputs
    assert plain.exit_code == 0
    executor = served[1]["service"].executor("queryCustomer")
    assert (executor.strict, executor.timeout) == (True, None)
    lenient = cli("serve", CRM, "--lenient")
    assert lenient.exit_code == 0
    assert served[2]["service"].executor("queryCustomer").strict is False


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_serve_timeout_must_be_a_positive_number(cli, served, value):
    result = cli("serve", CRM, "--timeout", value)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "--timeout must be a positive number of seconds" in result.stderr
    assert "Traceback" not in result.stderr
    assert served == []


def test_serve_target_errors(cli, served, tmp_path, monkeypatch):
    missing = cli("serve", "sample_tools.nope")
    assert missing.exit_code == 3
    assert "no module named 'sample_tools.nope'" in missing.stderr
    monkeypatch.chdir(tmp_path)
    nothing = cli("serve")
    assert nothing.exit_code == 2
    assert "no tool target given" in nothing.stderr
    assert served == []


def test_serve_help_says_how_to_install(cli):
    result = cli("serve", "--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert f"{INSTALL_HINT} in a clone of agentforge" in text
    assert "agentforge-cli" not in text
    for option in ("--log", "--strict", "--timeout"):
        assert option in text


# -- the installed entry point, raw JSON-RPC over stdio ---------------------------------------


class Server:
    """``agentforge serve ...`` as a subprocess: send JSON-RPC lines, read replies."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        environment = {key: value for key, value in os.environ.items()
                       if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG")}
        environment.update(PYTHONWARNINGS="error", **(env or {}))
        self.process = subprocess.Popen(
            [str(AGENTFORGE), "serve", *args], cwd=ROOT, env=environment,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stdout: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, message: dict[str, Any]) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, id: int, method: str, params: dict[str, Any] | None = None) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            assert line, f"the server closed stdout: {self.finish()[1]}"
            self.stdout.append(line)
            reply = json.loads(line)  # every stdout line is a JSON-RPC message
            if reply.get("id") == id:
                return reply

    def finish(self) -> tuple[int, str]:
        self.process.stdin.close()
        code = self.process.wait(timeout=TIMEOUT)
        stderr = self.process.stderr.read().decode("utf-8")
        self.process.stdout.close()
        self.process.stderr.close()
        return code, stderr


INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {},
              "clientInfo": {"name": "raw-test", "version": "0"}}


def test_entry_point_speaks_only_json_rpc_on_stdout():
    assert AGENTFORGE.exists(), "the agentforge entry point is not installed (make install)"
    server = Server(CRM, "--log")
    try:
        init = server.request(1, "initialize", INITIALIZE)
        assert init["result"]["serverInfo"] == {"name": "agentforge", "version": "0.1.0"}
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = server.request(2, "tools/list")["result"]["tools"]
        assert listed == [{"name": "queryCustomer", "description": "按客户名查询客户信息",
                           "inputSchema": listed[0]["inputSchema"]}]
        assert listed[0]["inputSchema"]["properties"]["limit"]["type"] == "integer"
        called = server.request(3, "tools/call", {
            "name": "queryCustomer", "arguments": {"name": "长路", "limit": "5"}})["result"]
        assert called["isError"] is False
        assert called["content"] == [{"type": "text", "text": "customer:长路,limit:5"}]
        failed = server.request(4, "tools/call", {
            "name": "queryCustomer", "arguments": {"name": "长路", "limit": 5.5}})["result"]
        assert failed["isError"] is True
        assert failed["content"][0]["text"].startswith('Argument "limit" has non-integer')
        unknown = server.request(5, "tools/call", {"name": "queryCustomr", "arguments": {}})
        assert unknown["error"]["code"] == -32602
        assert "Did you mean: queryCustomer?" in unknown["error"]["message"]
    finally:
        code, stderr = server.finish()
    assert code == 0, stderr
    assert len(server.stdout) == 5  # one reply per request, nothing else
    assert "Tool request: queryCustomer" in stderr  # --log: stderr only
    assert "Traceback" not in stderr


def test_entry_point_without_a_usable_sdk_exits_3(tmp_path):
    # A package named `mcp` ahead of the real SDK that fails to import stands in for a
    # broken or missing extra.
    shadow = tmp_path / "mcp"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('simulated: no MCP SDK here')\n")
    done = subprocess.run(
        [str(AGENTFORGE), "serve", CRM], cwd=ROOT, capture_output=True, text=True,
        encoding="utf-8", timeout=TIMEOUT, stdin=subprocess.DEVNULL, check=False,
        env={**os.environ, "PYTHONPATH": str(tmp_path), "NO_COLOR": "1", "COLUMNS": "80"})
    assert done.returncode == 3
    assert done.stdout == ""
    assert "simulated: no MCP SDK here" in done.stderr
    assert INSTALL_HINT in done.stderr
    assert "Traceback" not in done.stderr
