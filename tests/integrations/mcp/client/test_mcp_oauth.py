"""OAuth 2.1 for HTTP targets, end to end on loopback: ``tools list URL --oauth`` against an
MCP server of the official SDK behind an authorization server of our own
(``oauth_servers.py``), the test playing the browser: it reads the authorization address
agentforge prints on stderr and fetches it, following the redirect to agentforge's
loopback listener. Then the cache: a second command authorizes nothing, an expired
access token is refreshed, ``auth logout`` forgets it; and what fails: a refused
authorization, no answer from the browser, a 401 without ``--oauth``.

No token, code or client secret appears in anything agentforge writes.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
SERVERS = HERE / "oauth_servers.py"
ADDRESS = re.compile(r"^\s+(http://127\.0\.0\.1:\d+/authorize\?\S+)$", re.MULTILINE)


class Servers:
    def __init__(self, authority: str, mcp: str) -> None:
        self.authority = authority
        self.mcp = mcp

    def stats(self) -> dict[str, int]:
        return httpx.get(f"{self.authority}/stats").json()

    def control(self, **body: object) -> None:
        httpx.post(f"{self.authority}/control", json=body).raise_for_status()


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    process = subprocess.Popen([sys.executable, str(SERVERS)], cwd=HERE, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # blocks until both listen (or the process ends)
        assert line.startswith("ready "), line
        _, authority, mcp = line.split()
        yield Servers(authority, mcp)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            if process.stdout:
                process.stdout.close()


@pytest.fixture(autouse=True)
def _accepting(servers: Servers) -> Iterator[None]:
    yield
    servers.control(refuse=False)


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", "AGENTFORGE_MCP_HEADERS",
                          "AGENTFORGE_MCP_TIMEOUT", "DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    env.update(XDG_CACHE_HOME=str(cache), **extra)
    return env


class Run:
    """One finished command, and what the browser saw."""

    def __init__(self, code: int, stdout: str, stderr: str, seen: list[str]) -> None:
        self.code, self.stdout, self.stderr, self.seen = code, stdout, stderr, seen

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run(cache: Path, *args: str, browse: bool = True, delay: float = 0.0,
        **env: str) -> Run:
    """Run ``agentforge ARGS``; when it prints an authorization address, play the browser
    (after ``delay`` seconds): fetch it, then the redirect it answers with. ``seen`` holds
    the code, state and page of the redirect."""
    with subprocess.Popen([str(AGENTFORGE), *args], cwd=ROOT, env=_env(cache, **env),
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None and process.stderr is not None
        out = process.stdout
        stdout: list[str] = []
        reader = threading.Thread(target=lambda: stdout.append(out.read()))
        reader.start()
        stderr, seen = "", []
        for line in process.stderr:
            stderr += line
            found = ADDRESS.match(line)
            if found and browse:
                time.sleep(delay)
                seen.extend(_browse(found.group(1)))
        process.wait(timeout=120)
        reader.join(timeout=30)
    return Run(process.returncode, "".join(stdout), stderr, seen)


def _browse(address: str) -> list[str]:
    """Fetch the authorization address, then the redirect it answers with: the redirect's
    query values (code, state or error), then the page agentforge answered."""
    answer = httpx.get(address, follow_redirects=False, timeout=30)
    assert answer.status_code == 302, answer.text
    location = answer.headers["location"]
    seen = [value for values in parse_qs(urlsplit(location).query).values()
            for value in values]
    return [*seen, httpx.get(location, timeout=30).text]


def cached(cache: Path) -> dict[str, object]:
    files = list((cache / "agentforge" / "oauth").glob("*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text(encoding="utf-8"))


def secrets_of(entry: dict[str, object]) -> list[str]:
    tokens = entry["tokens"]
    client = entry["client"]
    assert isinstance(tokens, dict) and isinstance(client, dict)
    return [tokens["access_token"], tokens["refresh_token"], client["client_secret"]]


def assert_never_shown(secrets: list[str], *runs: Run) -> None:
    for done in runs:
        for secret in secrets:
            assert secret not in done.output


def test_authorize_then_the_cache_serves_the_next_command(servers: Servers,
                                                          tmp_path: Path) -> None:
    before = servers.stats()
    listed = run(tmp_path, "tools", "list", servers.mcp, "--oauth", "--format", "json")
    assert listed.code == 0, listed.output
    assert [tool["name"] for tool in json.loads(listed.stdout)] == ["whoami", "add"]
    assert "To authorize agentforge, open this address in a browser" in listed.stderr
    assert "agentforge is authorized" in listed.seen[-1]
    after = servers.stats()
    assert after["authorize"] - before["authorize"] == 1
    assert after["register"] - before["register"] == 1
    assert after["token_code"] - before["token_code"] == 1

    folder = tmp_path / "agentforge" / "oauth"
    entry = cached(tmp_path)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert [stat.S_IMODE(path.stat().st_mode) for path in folder.iterdir()] == [0o600]
    client = entry["client"]
    assert isinstance(client, dict)

    called = run(tmp_path, "tools", "call", "whoami", "{}", "-t", servers.mcp)
    assert called.code == 0, called.output
    assert called.stdout.strip() == client["client_id"]
    assert "authorize" not in called.stderr
    last = servers.stats()
    assert {key: last[key] - after[key] for key in last} == dict.fromkeys(last, 0)

    code, state = listed.seen[0], listed.seen[1]
    assert_never_shown([*secrets_of(entry), code], listed, called)
    assert state in listed.stderr  # in the address printed: it is no secret


def test_an_expired_access_token_is_refreshed(servers: Servers, tmp_path: Path) -> None:
    assert run(tmp_path, "tools", "list", servers.mcp, "--oauth").code == 0
    entry = cached(tmp_path)
    path = next((tmp_path / "agentforge" / "oauth").glob("*.json"))
    path.write_text(json.dumps({**entry, "expires_at": time.time() - 5}), encoding="utf-8")
    servers.control(revoke=True)  # the old access token would be refused anyway
    before = servers.stats()
    called = run(tmp_path, "tools", "call", "add", '{"a": 2, "b": 3}', "-t", servers.mcp)
    assert called.code == 0, called.output
    assert called.stdout.strip() == "5"
    after = servers.stats()
    assert after["token_refresh"] - before["token_refresh"] == 1
    assert after["authorize"] == before["authorize"]
    renewed = cached(tmp_path)
    assert secrets_of(renewed)[:2] != secrets_of(entry)[:2]
    assert_never_shown(secrets_of(entry) + secrets_of(renewed), called)


def test_a_refused_authorization_exits_3(servers: Servers, tmp_path: Path) -> None:
    servers.control(refuse=True)
    refused = run(tmp_path, "tools", "list", servers.mcp, "--oauth")
    assert refused.code == 3, refused.output
    assert (f"error: MCP server {servers.mcp}: the authorization was refused: "
            "access_denied (the user said no)") in refused.stderr
    assert "Traceback" not in refused.stderr
    assert "refused" in refused.seen[-1]  # the browser's page says so too
    assert "tokens" not in cached(tmp_path)


def test_no_answer_from_the_browser_exits_3_after_the_wait(servers: Servers,
                                                          tmp_path: Path) -> None:
    began = time.monotonic()
    waited = run(tmp_path, "tools", "list", servers.mcp, "--oauth", browse=False,
                 AGENTFORGE_OAUTH_TIMEOUT="1")
    assert waited.code == 3, waited.output
    assert "needs authorization: no answer from the browser within 1 s" in waited.stderr
    assert "AGENTFORGE_OAUTH_TIMEOUT sets the wait" in waited.stderr
    assert time.monotonic() - began < 60


def test_the_start_up_timeout_stops_while_the_user_authorizes(servers: Servers,
                                                               tmp_path: Path) -> None:
    slow = run(tmp_path, "tools", "list", servers.mcp, "--oauth", delay=3.0,
               AGENTFORGE_MCP_TIMEOUT="2")
    assert slow.code == 0, slow.output


def test_a_401_that_asks_for_oauth_says_to_add_it(servers: Servers, tmp_path: Path) -> None:
    refused = run(tmp_path, "tools", "list", servers.mcp)
    assert refused.code == 3
    assert refused.stderr.startswith(f"error: MCP server {servers.mcp} needs authorization: "
                                     "HTTP 401 Unauthorized")
    assert "it asks for OAuth: add --oauth" in refused.stderr
    assert not (tmp_path / "agentforge").exists()


def test_logout_forgets_the_tokens(servers: Servers, tmp_path: Path) -> None:
    assert run(tmp_path, "tools", "list", servers.mcp, "--oauth").code == 0
    forgotten = run(tmp_path, "auth", "logout", servers.mcp + "/")
    assert forgotten.code == 0, forgotten.output
    assert forgotten.stdout == ""
    assert forgotten.stderr == f"forgot the OAuth tokens of {servers.mcp}/\n"
    assert list((tmp_path / "agentforge" / "oauth").iterdir()) == []
    again = run(tmp_path, "auth", "logout", servers.mcp)
    assert again.code == 0 and "no OAuth tokens are cached" in again.stderr
    assert run(tmp_path, "tools", "list", servers.mcp).code == 3
    assert run(tmp_path, "auth", "logout", "mcp:python server.py").code == 2


def test_serve_uses_the_cache_and_records_no_secret(servers: Servers, tmp_path: Path) -> None:
    """``agentforge serve URL`` re-serves the server with the cached tokens, behind
    ``agentforge record``: the session log holds the messages, none of the secrets."""
    listed = run(tmp_path, "tools", "list", servers.mcp, "--oauth")
    assert listed.code == 0, listed.output
    log = tmp_path / "session.jsonl"
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "whoami", "arguments": {}}}]
    with subprocess.Popen([str(AGENTFORGE), "record", "-o", str(log), "--", str(AGENTFORGE),
                           "serve", servers.mcp], cwd=ROOT, env=_env(tmp_path),
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("".join(json.dumps(request) + "\n" for request in requests))
        process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in range(2)]
        process.stdin.close()  # the client is done: the server and the recorder end
        process.wait(timeout=60)
        stdout = process.stdout.read()
        stderr = process.stderr.read() if process.stderr else ""
    entry = cached(tmp_path)
    client = entry["client"]
    assert isinstance(client, dict)
    assert answers[1]["result"]["content"][0]["text"] == client["client_id"]
    assert process.returncode == 0, stderr
    recorded = log.read_text(encoding="utf-8")
    assert client["client_id"] in recorded
    for secret in [*secrets_of(entry), listed.seen[0]]:
        assert secret not in recorded and secret not in stdout + stderr


def test_a_token_revoked_before_its_expiry_is_refreshed_and_the_request_sent_again(
        servers: Servers, tmp_path: Path) -> None:
    """The server refuses the cached access token (revoked server-side, its recorded
    expiry an hour away): the command refreshes it with the cached refresh token and
    sends the request once more, without --oauth and without a new authorization."""
    assert run(tmp_path, "tools", "list", servers.mcp, "--oauth").code == 0
    entry = cached(tmp_path)
    assert isinstance(entry["expires_at"], float) and entry["expires_at"] > time.time() + 600
    servers.control(revoke=True)
    before = servers.stats()
    called = run(tmp_path, "tools", "call", "add", '{"a": 2, "b": 3}', "-t", servers.mcp)
    assert called.code == 0, called.output
    assert called.stdout.strip() == "5"
    assert "authoriz" not in called.stderr
    after = servers.stats()
    assert after["token_refresh"] - before["token_refresh"] == 1
    assert after["authorize"] == before["authorize"]
    assert after["register"] == before["register"]
    renewed = cached(tmp_path)
    assert secrets_of(renewed)[:2] != secrets_of(entry)[:2]
    servers.control(revoke=True)  # and resources/prompts use the cache the same way
    listed = run(tmp_path, "resources", "list", servers.mcp)
    assert listed.code == 0, listed.output
    assert servers.stats()["token_refresh"] - after["token_refresh"] == 1
    assert_never_shown(secrets_of(entry) + secrets_of(renewed) + secrets_of(cached(tmp_path)),
                       called, listed)


def test_a_refused_refresh_says_to_run_with_oauth_again(servers: Servers,
                                                         tmp_path: Path) -> None:
    assert run(tmp_path, "tools", "list", servers.mcp, "--oauth").code == 0
    entry = cached(tmp_path)
    servers.control(revoke=True, revoke_refresh=True)
    before = servers.stats()
    refused = run(tmp_path, "tools", "list", servers.mcp)
    assert refused.code == 3, refused.output
    assert refused.stderr.startswith(f"error: MCP server {servers.mcp} needs a new "
                                     "authorization: its cached tokens were refused or "
                                     "cannot be refreshed"), refused.stderr
    assert "run the command again with --oauth" in refused.stderr
    assert "Traceback" not in refused.stderr
    after = servers.stats()
    assert after["token_refresh"] - before["token_refresh"] == 1  # tried once, refused
    assert after["authorize"] == before["authorize"]
    again = run(tmp_path, "prompts", "list", servers.mcp, "--oauth")  # --oauth: anew
    assert again.code == 0, again.output
    assert servers.stats()["authorize"] - after["authorize"] == 1
    assert_never_shown(secrets_of(entry) + secrets_of(cached(tmp_path)), refused, again)
