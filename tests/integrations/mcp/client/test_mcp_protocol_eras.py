"""The protocol eras as a client (``--protocol-era auto|legacy|modern``): servers that speak
only the stateless 2026-07-28 revision (one of the test's own, ``stateless_server.py``,
which logs every request it gets; and the official SDK's stateless server) are listed and
called over stdio and streamable HTTP with the version, client and capabilities on every
request and the ``Mcp-Method``/``Mcp-Name`` headers; ``auto`` falls back to
``initialize`` for older servers (the reference servers of the TypeScript SDK); each
wrong choice says what to do; the version shows wherever the server is named.

Every server runs on loopback (or over stdio), started by a fixture and stopped after;
the command line runs as a subprocess (the installed ``agentforge``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_client_support import free_port
from stateless_server import VERSION, serving_http

from agentforge_cli.cli.options import mcp_options
from agentforge_cli.errors import TargetConfigError
from agentforge_cli.integrations.mcp.client.eras import MODERN_VERSIONS
from agentforge_cli.integrations.mcp.client.options import HEADERS_VAR, TIMEOUT_VAR, McpOptions
from agentforge_cli.integrations.mcp.client.plain_listing import list_tools_plainly
from agentforge_cli.integrations.targets.loading import load_supply

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
PYTHON = sys.executable
STATELESS = HERE / "stateless_server.py"
SDK_STATELESS = HERE / "sdk_stateless_server.py"
SDK_STDIO = f"mcp:{PYTHON} {SDK_STATELESS} stdio"
NODE_SERVERS = Path(sys.prefix) / "node" / "node_modules" / "@modelcontextprotocol"
THINKING = NODE_SERVERS / "server-sequential-thinking" / "dist" / "index.js"
EVERYTHING = NODE_SERVERS / "server-everything" / "dist" / "index.js"
LEGACY_VERSION = "2025-11-25"
META = ("io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientInfo",
        "io.modelcontextprotocol/clientCapabilities")


def agentforge(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The installed command, in the repository, without the ambient MCP settings."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", TIMEOUT_VAR,
                                  HEADERS_VAR)}
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=ROOT,
                          env={**environment, **env}, timeout=120, stdin=subprocess.DEVNULL)


def _listening(process: subprocess.Popen[str], port: int) -> None:
    for _ in range(400):
        with socket.socket() as client:
            if client.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        time.sleep(0.05)
    pytest.fail(f"nothing listens on port {port}")


@pytest.fixture(scope="module")
def sdk_http() -> Iterator[str]:
    """The SDK's stateless server over streamable HTTP: its endpoint's URL."""
    port = free_port()
    process = subprocess.Popen([PYTHON, str(SDK_STATELESS), "http", str(port)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        _listening(process, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()


@pytest.fixture(scope="module")
def everything_http() -> Iterator[str]:
    """The reference server-everything (TypeScript SDK 1.x, initialize only) over
    streamable HTTP: its endpoint's URL."""
    node = shutil.which("node")
    if node is None or not EVERYTHING.exists():
        pytest.fail("node or server-everything is missing: run make install")
    port = free_port()
    process = subprocess.Popen([node, str(EVERYTHING), "streamableHttp"],
                               env={"PATH": os.environ["PATH"], "PORT": str(port)},
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        _listening(process, port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait()
        if process.stderr is not None:
            process.stderr.close()


@pytest.fixture
def thinking() -> str:
    """The reference sequential-thinking server (TypeScript SDK 1.x) over stdio."""
    node = shutil.which("node")
    if node is None or not THINKING.exists():
        pytest.fail("node or server-sequential-thinking is missing: run make install")
    return f"mcp:{node} {THINKING}"


class Stateless:
    """The test's own 2026-07-28-only server, over one transport, and what it was sent."""

    def __init__(self, target: str, log: Path | list[dict[str, Any]]) -> None:
        self.target = target
        self._log = log

    @property
    def seen(self) -> list[dict[str, Any]]:
        if isinstance(self._log, list):
            return list(self._log)
        if not self._log.exists():
            return []
        return [json.loads(line) for line in self._log.read_text().splitlines()]

    @property
    def http(self) -> bool:
        return self.target.startswith("http")


@pytest.fixture(params=["stdio", "http"])
def stateless(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stateless]:
    if request.param == "stdio":
        log = tmp_path / "requests.jsonl"
        yield Stateless(f"mcp:{PYTHON} {STATELESS} stdio {log}", log)
        return
    seen: list[dict[str, Any]] = []
    with serving_http(seen) as url:
        yield Stateless(url, seen)


# -- a server that speaks only 2026-07-28 --------------------------------------------------


def test_tools_list_reaches_a_stateless_only_server(stateless: Stateless) -> None:
    done = agentforge("tools", "list", stateless.target)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("[echo] Says the text back\n"
                           "  parameters: { text: string (required) }\n"
                           "[add] Adds two integers\n"
                           "  parameters: { a: integer (required), b: integer (required) }\n"
                           "[busy] Always answers the JSON-RPC error -32000\n"
                           "  parameters: {}\n")
    methods = [request["method"] for request in stateless.seen]
    assert methods == ["server/discover", "tools/list", "tools/list", "tools/list"]


def test_tools_call_reaches_a_stateless_only_server_with_every_request_stamped(
        stateless: Stateless) -> None:
    done = agentforge("tools", "call", "add", '{"a": 2, "b": 3}', "-t", stateless.target,
                      "--explain")
    assert (done.returncode, done.stdout) == (0, "5\n"), done.stderr
    assert f"(protocol {VERSION})" in done.stderr
    seen = stateless.seen
    assert "initialize" not in [request["method"] for request in seen]
    # the era learnt by the listing is kept: one probe for the whole command
    assert [request["method"] for request in seen].count("server/discover") == 1
    assert seen[-1]["method"] == "tools/call"
    for request in seen:
        meta = request["meta"]
        assert set(META) <= set(meta), request
        assert meta[META[0]] == VERSION
        assert meta[META[1]]["name"] == "agentforge"
        assert isinstance(meta[META[2]], dict)
        if stateless.http:
            headers = request["headers"]
            assert headers["mcp-protocol-version"] == VERSION
            assert headers["mcp-method"] == request["method"]
            assert "mcp-session-id" not in headers
    if stateless.http:
        assert seen[-1]["headers"]["mcp-name"] == "add"


def test_a_servers_own_error_code_minus_32000_is_a_failed_call_not_a_death(
        stateless: Stateless) -> None:
    """-32000 is also the SDK's code for a closed connection; only its message tells."""
    done = agentforge("tools", "call", "busy", "-t", stateless.target)
    assert done.returncode == 1, done.stderr
    assert done.stdout == "Error executing tool busy: Busy: try again later\n"


def test_modern_reaches_it_and_legacy_says_why_it_cannot(stateless: Stateless) -> None:
    modern = agentforge("tools", "call", "echo", '{"text": "héllo"}', "-t", stateless.target,
                        "--protocol-era", "modern")
    assert (modern.returncode, modern.stdout) == (0, "héllo\n"), modern.stderr
    legacy = agentforge("tools", "list", stateless.target, "--protocol-era", "legacy")
    assert legacy.returncode == 3
    first, *rest = legacy.stderr.splitlines()
    assert first.startswith("error: MCP server ")
    assert ("refused initialize: " in first
            and "This server speaks only MCP 2026-07-28, which has no initialize" in first)
    assert rest[0] == ("  a server of the stateless 2026-07-28 revision answers no "
                       "initialize: drop --protocol-era legacy (auto, the default, asks "
                       "server/discover first)")
    assert "Traceback" not in legacy.stderr and "did not start" not in legacy.stderr


def test_a_server_of_a_revision_agentforge_does_not_speak_is_named_with_its_versions(
        tmp_path: Path) -> None:
    target = f"mcp:{PYTHON} {STATELESS} stdio {tmp_path / 'requests.jsonl'}"
    done = agentforge("tools", "list", target, "--env", "STATELESS_VERSION=2099-01-01")
    assert done.returncode == 3
    assert done.stderr.splitlines()[:2] == [
        f"error: MCP server `{target[4:]}` shares no protocol version with agentforge: "
        "Unsupported protocol version; it speaks 2099-01-01",
        f"  agentforge speaks {VERSION} and the initialize handshake (2024-11-05 to "
        "2025-11-25)"]


def test_the_version_shows_in_replays_tools_line(tmp_path: Path) -> None:
    target = f"mcp:{PYTHON} {STATELESS} stdio"
    supply = load_supply([target], cwd=ROOT)
    try:
        assert supply.description == (f"shared across conversations (MCP server "
                                      f"mcp:{PYTHON} ... (protocol {VERSION}))")
    finally:
        from agentforge_cli.integrations.mcp.client.lifecycle import close_all

        close_all()


def test_the_sdks_own_client_reaches_the_test_server_too() -> None:
    """The server of these tests is one the SDK's Client(mode="auto") reaches as
    2026-07-28: what agentforge is measured against is what the SDK understands."""
    from mcp import Client

    async def reach(url: str) -> tuple[str, str]:
        async with Client(url) as client:
            result = await client.call_tool("echo", {"text": "hi"})
            return client.protocol_version, result.content[0].text  # type: ignore[union-attr]

    seen: list[dict[str, Any]] = []
    with serving_http(seen) as url:
        assert anyio.run(reach, url) == (VERSION, "hi")
    assert seen[0]["method"] == "server/discover"


# -- the SDK's stateless server, which speaks both eras ----------------------------------------


@pytest.mark.parametrize(("era", "version"), [("auto", VERSION), ("modern", VERSION),
                                              ("legacy", LEGACY_VERSION)])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_sdks_stateless_server_in_each_era(transport: str, era: str, version: str,
                                               request: pytest.FixtureRequest) -> None:
    target = SDK_STDIO if transport == "stdio" else request.getfixturevalue("sdk_http")
    listed = agentforge("tools", "list", target, "--protocol-era", era)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("[echo] Says the text back\n")
    assert "[add] Adds two integers" in listed.stdout
    called = agentforge("tools", "call", "add", '{"a": 40, "b": 2}', "-t", target,
                        "--protocol-era", era, "--explain")
    assert (called.returncode, called.stdout) == (0, "42\n"), called.stderr
    assert f"(protocol {version})" in called.stderr


def test_the_sdks_stateless_server_is_listed_without_the_sdk_into_what_it_gives(
        sdk_http: str) -> None:
    plain, sdk = _listed(sdk_http, "plain"), _listed(sdk_http, "sdk")
    assert plain["mcp imported"] is False
    assert plain == {**sdk, "mcp imported": False}
    assert plain["version"] == VERSION
    assert [tool[0] for tool in plain["tools"]] == ["echo", "add"]


def test_the_test_server_is_listed_without_the_sdk_into_what_it_gives() -> None:
    with serving_http([]) as url:
        plain, sdk = _listed(url, "plain"), _listed(url, "sdk")
    assert plain["mcp imported"] is False
    assert plain == {**sdk, "mcp imported": False}
    assert plain["version"] == VERSION


_LIST = ("import json, sys\n"
         "from pathlib import Path\n"
         "from agentforge_cli.integrations.mcp.client import loading as mcp_loading\n"
         "from agentforge_cli.integrations.mcp.client import plain_listing as mcp_plain_listing\n"
         "if sys.argv[2] == 'sdk':\n"
         "    mcp_plain_listing.list_tools_plainly = lambda *a, **k: None\n"
         "table = mcp_loading.load_mcp_tools(sys.argv[1], Path('.'))\n"
         "print(json.dumps({'mcp imported': 'mcp' in sys.modules,\n"
         "    'version': mcp_loading.protocol_of(table), 'tools': [\n"
         "    [s.name, s.title, s.description, s.parameters, s.annotations, s.output_schema,\n"
         "     s.execution] for s in table]}))\n")


def _listed(url: str, path: str) -> dict[str, Any]:
    done = subprocess.run([PYTHON, "-c", _LIST, url, path], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    listed: dict[str, Any] = json.loads(done.stdout)
    return listed


# -- older servers: auto falls back, modern says why not ----------------------------------------


def test_auto_falls_back_to_initialize_over_stdio(thinking: str) -> None:
    done = agentforge("tools", "call", "sequentialthinking", "{}", "-t", thinking,
                      "--explain")
    assert (f"is served by MCP server `{thinking[4:]}` (protocol {LEGACY_VERSION})"
            in done.stderr), done.stderr
    listed = agentforge("tools", "list", thinking)
    assert (listed.returncode, listed.stdout.startswith("[sequentialthinking]")) == (0, True)


def test_auto_falls_back_to_initialize_over_http(everything_http: str) -> None:
    done = agentforge("tools", "call", "echo", '{"message": "hi"}', "-t", everything_http,
                      "--explain")
    assert (done.returncode, done.stdout) == (0, "Echo: hi\n"), done.stderr
    assert f"(protocol {LEGACY_VERSION})" in done.stderr
    listing = list_tools_plainly(everything_http, {}, 10.0, "0", 100)
    assert listing is not None and listing.agreement.era == "legacy"
    assert listing.agreement.version == LEGACY_VERSION


def test_an_older_server_that_leaves_the_probe_unanswered_is_pointed_at_legacy() -> None:
    """The probe waits as long as start-up may; the error says how to skip it."""
    mute = f"mcp:{PYTHON} {HERE / 'faulty_server.py'} mute"
    waited = agentforge("tools", "list", mute, **{TIMEOUT_VAR: "2"})
    assert waited.returncode == 3
    assert waited.stderr.splitlines()[:2] == [
        f"error: MCP server `{mute[4:]}` did not start: no answer within 2 s",
        "  if it is a server of the initialize handshake that leaves server/discover "
        "unanswered, --protocol-era legacy skips that request"]
    legacy = agentforge("tools", "list", mute, "--protocol-era", "legacy", **{TIMEOUT_VAR: "2"})
    assert (legacy.returncode, legacy.stdout) == (0, "[fine] The fine tool.\n"
                                                     "  parameters: {}\n"), legacy.stderr


def test_modern_refuses_an_older_server_saying_why(thinking: str,
                                                   everything_http: str) -> None:
    hint = ("  a server of the initialize handshake (2025-11-25 and older) answers no "
            "server/discover: drop --protocol-era modern (auto, the default, falls back to "
            "initialize)")
    over_stdio = agentforge("tools", "list", thinking, "--protocol-era", "modern")
    assert over_stdio.returncode == 3
    assert over_stdio.stderr.splitlines()[:2] == [
        f"error: MCP server `{thinking[4:]}` refused server/discover: Method not found", hint]
    over_http = agentforge("tools", "list", everything_http, "--protocol-era", "modern")
    assert over_http.returncode == 3
    assert over_http.stderr.splitlines()[:2] == [
        f"error: MCP server {everything_http} refused server/discover: HTTP 400 Bad Request "
        "(Bad Request: Server not initialized)", hint]
    assert list_tools_plainly(everything_http, {}, 10.0, "0", 100, era="modern") is None


def test_modern_is_refused_for_an_http_sse_endpoint() -> None:
    done = agentforge("tools", "list", "http://127.0.0.1:9/sse", "--protocol-era", "modern")
    assert done.returncode == 2
    assert done.stderr.startswith("error: MCP server http://127.0.0.1:9/sse is an HTTP+SSE "
                                  "endpoint: that transport has no 2026-07-28 revision")


# -- the option -------------------------------------------------------------------------------


def test_an_unknown_era_is_a_usage_error() -> None:
    done = agentforge("tools", "list", SDK_STDIO, "--protocol-era", "newest")
    assert done.returncode == 2
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", done.stderr).split())
    assert "Invalid value for '--protocol-era': 'newest' is not one of 'auto', 'legacy', " \
           "'modern'" in said


def test_every_command_that_reaches_servers_takes_the_option() -> None:
    for command in (["tools", "list"], ["tools", "call"], ["tools", "check"],
                    ["tools", "fuzz"], ["tools", "audit"], ["replay"], ["serve"]):
        done = agentforge(*command, "--help")
        assert "--protocol-era" in done.stdout, command


def test_the_options_carry_the_era() -> None:
    assert mcp_options(None, None, None).protocol_era == "auto"
    assert mcp_options(None, None, None, era="legacy").protocol_era == "legacy"
    assert McpOptions().protocol_era == "auto"
    with pytest.raises(TargetConfigError, match="unknown protocol era 'newest'"):
        McpOptions(protocol_era="newest")  # type: ignore[arg-type]


def test_the_modern_versions_and_the_auto_policy_are_the_sdks() -> None:
    from mcp.client._probe import negotiate_auto
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    assert MODERN_VERSIONS == MODERN_PROTOCOL_VERSIONS
    assert callable(negotiate_auto)
