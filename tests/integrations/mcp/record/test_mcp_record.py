"""``agentforge record -o FILE -- COMMAND``: the client gets exactly what the server sends
(byte for byte, the official client's view too), FILE holds every message both ways in
order and replays all matched against the same server, a changed server is a mismatch,
secrets stay out of FILE, and the exit status is the server's."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import types
from mcp.client.stdio import StdioServerParameters
from mcp_client_support import AGENTFORGE, INITIALIZE, ROOT, TIMEOUT, Remote, connect, server_env

TIME_SERVER = [str(Path(sys.executable).with_name("mcp-server-time")), "--local-timezone",
               "UTC"]
CONVERT = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
SCRIPT = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
     "params": {"name": "convert_time", "arguments": CONVERT}},
    {"jsonrpc": "2.0", "id": "four", "method": "ping"},
    {"jsonrpc": "2.0", "method": "notifications/cancelled",
     "params": {"requestId": 99, "reason": "never sent"}},
]
SERVER = '''
import os, sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("greeter")
WORD = sys.argv[1]

@server.tool()
def greet(name: str) -> str:
    """Greet someone."""
    return f"{WORD}, {name}"

@server.tool()
def login(user: str, password: str) -> str:
    """Sign in."""
    return f"signed in {user} ({len(password)} characters)"

@server.tool()
def environment() -> str:
    """What the server was given."""
    return os.environ.get("SERVICE_TOKEN", "none")

server.run()
'''


def record_command(log: Path, *command: str, extra: tuple[str, ...] = ()) -> list[str]:
    return [str(AGENTFORGE), "record", "-o", str(log), *extra, "--", *command]


def lockstep(command: list[str], script: list[dict]) -> tuple[bytes, int]:
    """A client that waits for each answer before the next message (as clients do), then
    closes stdin and waits for the exit: what it read, and the exit status."""
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, cwd=ROOT, env=server_env()) as process:
        assert process.stdin is not None and process.stdout is not None
        read = []
        for message in script:
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
            if "id" in message:
                read.append(process.stdout.readline())
        process.stdin.close()
        read.append(process.stdout.read())
        return b"".join(read), process.wait(timeout=TIMEOUT)


def replay(*args: str) -> tuple[int, dict]:
    """``agentforge replay ARGS --json``: the exit code and the report."""
    done = subprocess.run([str(AGENTFORGE), "replay", *args, "--json"], capture_output=True,
                          text=True, cwd=ROOT, env=server_env(), timeout=120)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def logged(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_the_client_reads_the_same_bytes_and_the_log_holds_every_message(tmp_path):
    direct, direct_status = lockstep(TIME_SERVER, SCRIPT)
    log = tmp_path / "session.jsonl"
    proxied, status = lockstep(record_command(log, *TIME_SERVER), SCRIPT)
    assert (proxied, status) == (direct, direct_status) and status == 0
    entries = logged(log)
    answers = [json.loads(line) for line in direct.splitlines()]
    sent = [(e["direction"], e["message"]) for e in entries]
    assert [m for d, m in sent if d == "client_to_server"] == SCRIPT
    assert [m for d, m in sent if d == "server_to_client"] == answers
    # in order: each answer is logged after the request it answers
    order = [(d, m.get("id")) for d, m in sent]
    for number in (1, 2, 3, "four"):
        assert order.index(("client_to_server", number)) < order.index(
            ("server_to_client", number))
    assert all(e["timestamp"].endswith("Z") for e in entries)


def test_the_official_client_sees_the_server_and_the_recording_replays(tmp_path):
    log = tmp_path / "session.jsonl"
    args = ["record", "-o", str(log), "--", *TIME_SERVER]
    with _session(str(AGENTFORGE), args, tmp_path) as remote:
        through = remote.run(remote.session.list_tools)
        result = remote.call("convert_time", CONVERT)
    with _session(TIME_SERVER[0], TIME_SERVER[1:], tmp_path) as remote:
        direct = remote.run(remote.session.list_tools)
        expected = remote.call("convert_time", CONVERT)
    assert through.model_dump() == direct.model_dump()
    assert result.model_dump() == expected.model_dump()
    code, report = replay(str(log), "-t", "mcp:" + " ".join(TIME_SERVER))
    assert code == 0
    assert report["summary"]["matched"] == 1 and sum(report["summary"].values()) == 1


def _repository(folder: Path) -> Path:
    """A git repository with one commit of fixed author and date, and one file changed."""
    folder.mkdir()
    env = {"GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.org",
           "GIT_COMMITTER_NAME": "Ann", "GIT_COMMITTER_EMAIL": "ann@example.org",
           "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z",
           "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z", "PATH": "/usr/bin:/bin"}
    (folder / "notes.txt").write_text("first\n", encoding="utf-8")
    for args in (["init", "-q", "-b", "main"], ["add", "notes.txt"],
                 ["commit", "-q", "-m", "First notes"]):
        subprocess.run(["git", *args], cwd=folder, env=env, check=True, timeout=30)
    (folder / "notes.txt").write_text("first\nsecond\n", encoding="utf-8")
    return folder


def test_the_git_server_is_recorded_as_it_answers_and_replays(tmp_path):
    # the reference git server: the official client sees the same tools and results
    # through the proxy, and the log replays all matched against the same server
    repository = _repository(tmp_path / "repo")
    git_server = [str(Path(sys.executable).with_name("mcp-server-git")),
                  "--repository", str(repository)]
    calls = [("git_status", {"repo_path": str(repository)}),
             ("git_diff_unstaged", {"repo_path": str(repository)}),
             ("git_log", {"repo_path": str(repository), "max_count": 5})]
    log = tmp_path / "session.jsonl"
    with _session(str(AGENTFORGE), ["record", "-o", str(log), "--", *git_server],
                  tmp_path) as remote:
        through = remote.run(remote.session.list_tools)
        recorded = [remote.call(name, arguments) for name, arguments in calls]
    with _session(git_server[0], git_server[1:], tmp_path) as remote:
        direct = remote.run(remote.session.list_tools)
        expected = [remote.call(name, arguments) for name, arguments in calls]
    assert through.model_dump() == direct.model_dump()
    assert [r.model_dump() for r in recorded] == [r.model_dump() for r in expected]
    assert "second" in expected[1].content[0].text  # the calls did real work
    code, report = replay(str(log), "-t", "mcp:" + " ".join(git_server))
    assert code == 0, report
    assert report["summary"]["matched"] == 3 and sum(report["summary"].values()) == 3


def test_a_changed_server_is_a_mismatch_and_secrets_stay_out(tmp_path):
    server = tmp_path / "greeter.py"
    server.write_text(SERVER, encoding="utf-8")
    log = tmp_path / "session.jsonl"
    script = [*SCRIPT[:2],
              {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "greet", "arguments": {"name": "ann"}}},
              {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "login", "arguments": {"user": "ann",
                                                         "password": "hunter2-xyz"}}},
              {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "environment", "arguments": {}}}]
    command = record_command(log, sys.executable, str(server), "hello",
                             extra=("--env", "SERVICE_TOKEN=tok-31337"))
    answers, status = lockstep(command, script)
    assert status == 0
    assert b"tok-31337" in answers  # the client gets what the server said
    text = log.read_text(encoding="utf-8")
    assert "hunter2-xyz" not in text and "tok-31337" not in text
    assert '"password":"***"' in text
    _, same = replay(str(log), "-t", f"mcp:{sys.executable} {server} hello")
    summary = same["summary"]
    # greet matches; login ran with the masked password (a different length), and
    # environment without the token: both differ, as they would for anyone replaying
    assert summary["matched"] == 1
    code, changed = replay(str(log), "-t", f"mcp:{sys.executable} {server} howdy")
    assert code == 1
    results = changed["calls"]
    greet = next(r for r in results if r["name"] == "greet")
    assert greet["status"] == "mismatched"


def test_no_mask_writes_the_arguments_as_sent(tmp_path):
    server = tmp_path / "greeter.py"
    server.write_text(SERVER, encoding="utf-8")
    log = tmp_path / "session.jsonl"
    script = [*SCRIPT[:2], {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "login", "arguments": {"user": "ann", "password": "hunter2-xyz"}}}]
    _, status = lockstep(record_command(log, sys.executable, str(server), "hi",
                                        extra=("--no-mask",)), script)
    assert status == 0
    assert '"password":"hunter2-xyz"' in log.read_text(encoding="utf-8")


@pytest.mark.parametrize(("code", "status"), [
    ("import sys; sys.exit(7)", 7),
    ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", 128 + 9),
])
def test_the_exit_status_is_the_servers(tmp_path, code, status):
    done = subprocess.run(record_command(tmp_path / "s.jsonl", sys.executable, "-c", code),
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
    assert done.returncode == status
    assert done.stdout == b""


def test_a_line_that_is_not_json_is_forwarded_and_counted(tmp_path):
    code = "import sys; print('not json'); print('{\"jsonrpc\":\"2.0\",\"method\":\"x\"}')"
    log = tmp_path / "s.jsonl"
    done = subprocess.run(record_command(log, sys.executable, "-c", code),
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0
    assert done.stdout == b'not json\n{"jsonrpc":"2.0","method":"x"}\n'
    assert [e["message"] for e in logged(log)] == [{"jsonrpc": "2.0", "method": "x"}]
    assert b"1 line(s) were not JSON-RPC messages" in done.stderr


@pytest.mark.parametrize(("args", "code", "message"), [
    (["record", "-o", "s.jsonl"], 2, "no server command given"),
    (["record", "--", sys.executable], 2, "--output FILE is required"),
    (["record", "-o", "missing/dir/s.jsonl", "--", sys.executable], 2,
     "cannot be opened for appending"),
    (["record", "-o", "s.jsonl", "--", "no-such-server-command-xyz"], 3,
     "cannot start the MCP server 'no-such-server-command-xyz'"),
])
def test_bad_usage_is_named(tmp_path, args, code, message):
    done = subprocess.run([str(AGENTFORGE), *args], cwd=tmp_path, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == code, done.stderr
    assert message in done.stderr
    assert done.stdout == ""


def test_a_killed_proxy_keeps_what_it_forwarded(tmp_path):
    log = tmp_path / "s.jsonl"
    with subprocess.Popen(record_command(log, *TIME_SERVER), stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(SCRIPT[0]).encode() + b"\n")
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1
        deadline = time.monotonic() + TIMEOUT
        while len(log.read_bytes().splitlines()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.kill()  # the server, its child, ends when its input closes
        process.wait(timeout=TIMEOUT)
    assert [e["direction"] for e in logged(log)] == ["client_to_server", "server_to_client"]


def _session(command: str, args: list[str], tmp_path: Path):
    from contextlib import contextmanager

    from anyio.from_thread import start_blocking_portal

    @contextmanager
    def opened():
        params = StdioServerParameters(command=command, args=args, cwd=str(ROOT),
                                       env=server_env())
        problems: list[Exception] = []
        stderr = tmp_path / "stderr.txt"
        with stderr.open("w", encoding="utf-8") as errlog, start_blocking_portal() as portal, \
                portal.wrap_async_context_manager(connect(params, errlog, problems)) as (
                    session, init):
            yield Remote(portal, session, init, stderr, problems)
        assert problems == []
        assert isinstance(init, types.InitializeResult)

    return opened()


def test_the_recorder_leaves_no_file_to_the_collector(tmp_path: Path) -> None:
    """With warnings as errors, a session the client ends says nothing of an unclosed
    file (the server's output pipe was left to the garbage collector)."""
    log = tmp_path / "session.jsonl"
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    done = subprocess.run([str(AGENTFORGE), "record", "-o", str(log), "--", *TIME_SERVER],
                          input="".join(json.dumps(line) + "\n" for line in lines),
                          capture_output=True, text=True, cwd=ROOT, env=server_env(),
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert '"id":1' in done.stdout.replace(" ", "")
    assert "ResourceWarning" not in done.stderr and "Exception ignored" not in done.stderr
