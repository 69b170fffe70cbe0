"""Record -> replay of MCP sessions whose tools ask the client during a call: the official
SDK's client (with its elicitation, roots and sampling callbacks) records a session with
``asking_server.py`` through ``agentforge record``, over stdio and over HTTP (``--url``),
in both protocol eras; the replay answers each request with what the recorded client
answered, declines what the recording lacks, and reports any difference.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_client_support import AGENTFORGE, HERE, ROOT, free_port, server_env
from test_mcp_record_http import Running

ASKING = HERE / "asking_server.py"
TARGET = f"mcp:{sys.executable} {ASKING} stdio"
SECRET = "hunter22-elicited"
RECORDED_ROOT = "file:///srv/recorded-root"
CALLS = ("greet", "roots", "summarize")
BOUND = 60


async def _elicit(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={
        "name": "Ada", "subscribe": True, "password": SECRET})


async def _roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri=RECORDED_ROOT, name="recorded")])


async def _sample(context: Any, params: Any) -> types.CreateMessageResult:
    return types.CreateMessageResult(role="assistant", model="m1",
                                     content=types.TextContent(type="text", text="a summary"))


CALLBACKS: dict[str, Any] = {"elicitation_callback": _elicit, "list_roots_callback": _roots,
                             "sampling_callback": _sample}


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def drive(server: StdioServerParameters | str, *, modern: bool) -> dict[str, str]:
    """Each call's text as the SDK's client gets it from ``server`` (a command or a URL):
    its ``Client`` (2026-07-28 first), or its ``ClientSession`` (the initialize era)."""
    async def main() -> dict[str, str]:
        with anyio.fail_after(BOUND):
            if modern:
                async with Client(server, mode="auto", **CALLBACKS) as client:
                    return {name: _text(await client.call_tool(name, {})) for name in CALLS}
            async with AsyncExitStack() as stack:
                if isinstance(server, str):
                    read, write = await stack.enter_async_context(
                        streamable_http_client(server))
                else:
                    read, write = await stack.enter_async_context(stdio_client(server))
                session = await stack.enter_async_context(
                    ClientSession(read, write, **CALLBACKS))
                await session.initialize()
                return {name: _text(await session.call_tool(name, {})) for name in CALLS}
    return anyio.run(main)


def record_stdio(log: Path, *, modern: bool) -> dict[str, str]:
    return drive(StdioServerParameters(
        command=str(AGENTFORGE), args=["record", "-o", str(log), "--", sys.executable,
                                       str(ASKING), "stdio"], env=server_env()),
        modern=modern)


def replay(log: Path, target: str = TARGET) -> tuple[int, dict[str, Any], str]:
    done = subprocess.run([str(AGENTFORGE), "replay", str(log), "-t", target, "--json"],
                          capture_output=True, text=True, cwd=ROOT, env=server_env(),
                          timeout=120)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def requests_of(report: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    return {call["name"]: [(r["method"], r["status"]) for r in call.get("server_requests", [])]
            for call in report["calls"]}


def answered(report: dict[str, Any]) -> None:
    assert requests_of(report) == {
        "greet": [("elicitation/create", "answered")], "roots": [("roots/list", "answered")],
        "summarize": [("sampling/createMessage", "answered")]}
    assert report["summary"] == {"matched": 3, "mismatched": 0, "unrecorded": 0}


@pytest.fixture(scope="module")
def legacy_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = tmp_path_factory.mktemp("legacy") / "asking.jsonl"
    got = record_stdio(log, modern=False)
    assert got["greet"] == "hello Ada (subscribe: True)"
    assert got["roots"] == RECORDED_ROOT
    assert "a summary" in got["summarize"]
    return log


def test_a_recorded_session_replays_with_the_recorded_answers(legacy_log: Path) -> None:
    code, report, stderr = replay(legacy_log)
    assert code == 0, report
    answered(report)
    # the roots are the recorded client's, not the replaying directory
    assert report["calls"][1]["actual"] == RECORDED_ROOT
    assert "the server asked elicitation/create: answered as recorded (line" in stderr
    # the recorded secret never reached the log
    text = legacy_log.read_text(encoding="utf-8")
    assert SECRET not in text and '"password":"***"' in text
    greet = report["calls"][0]["server_requests"][0]
    assert greet["asked"] == "Who is this for?"
    assert greet["note"] == "sent as recorded, masked: password"


def test_a_2026_07_28_session_replays_and_keeps_its_answers_secret(tmp_path: Path) -> None:
    log = tmp_path / "modern.jsonl"
    got = record_stdio(log, modern=True)
    assert got["roots"] == RECORDED_ROOT
    text = log.read_text(encoding="utf-8")
    assert '"input_required"' in text and '"inputResponses"' in text
    assert SECRET not in text  # the answers a call carries when sent again are masked too
    code, report, _ = replay(log)
    assert code == 0, report
    answered(report)
    # the call sent again with its answers is the same call, not another
    assert [call["name"] for call in report["calls"]] == list(CALLS)


def _variant(log: Path, tmp_path: Path, edit: Any) -> Path:
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    changed = tmp_path / "variant.jsonl"
    changed.write_text("".join(edit(lines)), encoding="utf-8")
    return changed


def _index(lines: list[str], method: str) -> int:
    return next(i for i, line in enumerate(lines)
                if json.loads(line)["message"].get("method") == method)


def test_a_request_asked_otherwise_is_declined_and_reported(legacy_log: Path,
                                                            tmp_path: Path) -> None:
    changed = _variant(legacy_log, tmp_path, lambda lines: [
        line.replace("Who is this for?", "Who are you?") for line in lines])
    code, report, _ = replay(changed)
    assert code == 1
    greet = report["calls"][0]
    assert greet["status"] == "mismatched"
    assert greet["actual"] == "no one to greet: decline"  # declined, nothing invented
    assert greet["server_requests"][0]["status"] == "asked differently"
    assert greet["server_requests"][0]["note"] == "recorded: Who are you?"
    assert [c["status"] for c in report["calls"][1:]] == ["matched", "matched"]


def test_a_request_without_a_recorded_answer_is_declined_never_hung(legacy_log: Path,
                                                                    tmp_path: Path) -> None:
    def drop_answer(lines: list[str]) -> list[str]:
        at = _index(lines, "roots/list")
        return lines[:at + 1] + lines[at + 2:]  # the client's answer is not in the file

    code, report, _ = replay(_variant(legacy_log, tmp_path, drop_answer))
    assert code == 1
    roots = report["calls"][1]
    assert roots["status"] == "mismatched" and roots["server_requests"] == [
        {"method": "roots/list", "asked": "", "status": "not recorded",
         "where": roots["server_requests"][0]["where"],
         "note": "the recording holds no answer to it"}]
    assert roots["actual"] != RECORDED_ROOT


def test_a_request_the_recording_lacks_is_declined(legacy_log: Path, tmp_path: Path) -> None:
    def drop_request(lines: list[str]) -> list[str]:
        at = _index(lines, "elicitation/create")
        return lines[:at] + lines[at + 2:]

    code, report, _ = replay(_variant(legacy_log, tmp_path, drop_request))
    assert code == 1
    greet = report["calls"][0]
    assert greet["server_requests"] == [{"method": "elicitation/create",
                                         "asked": "Who is this for?",
                                         "status": "not recorded", "where": None}]
    assert greet["actual"] == "no one to greet: decline"


def _greet_log(path: Path, unasked: dict[str, Any], answer: dict[str, Any]) -> Path:
    """A session of one ``greet`` call: its elicitation, and ``unasked``, a request
    ``asking_server`` does not make (answered with ``answer``)."""
    def entry(direction: str, message: dict[str, Any]) -> str:
        return json.dumps({"direction": direction, "message": {"jsonrpc": "2.0", **message}})

    schema = {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}, "subscribe": {"type": "boolean"}}}
    path.write_text("\n".join([
        entry("client_to_server", {"id": 1, "method": "tools/call",
                                   "params": {"name": "greet", "arguments": {}}}),
        entry("server_to_client", {"id": 1, "method": "elicitation/create", "params": {
            "message": "Who is this for?", "requestedSchema": schema}}),
        entry("client_to_server", {"id": 1, "result": {"action": "accept",
                                                       "content": {"name": "Bo"}}}),
        entry("server_to_client", {"id": 2, **unasked}),
        entry("client_to_server", {"id": 2, "result": answer}),
        entry("server_to_client", {"id": 1, "result": {
            "content": [{"type": "text", "text": "hello Bo (subscribe: False)"}]}}),
    ]) + "\n", encoding="utf-8")
    return path


def test_a_request_no_longer_asked_makes_the_call_differ(tmp_path: Path) -> None:
    log = _greet_log(tmp_path / "greet.jsonl", {
        "method": "sampling/createMessage", "params": {"maxTokens": 5, "messages": [
            {"role": "user", "content": {"type": "text", "text": "hi"}}]}},
        {"role": "assistant", "model": "m1", "content": {"type": "text", "text": "ok"}})
    code, report, stderr = replay(log)
    assert code == 1
    greet = report["calls"][0]
    assert greet["actual"] == greet["expected"] == "hello Bo (subscribe: False)", stderr
    assert greet["status"] == "mismatched"
    assert greet["server_requests"] == [
        {"method": "elicitation/create", "asked": "Who is this for?", "status": "answered",
         "where": "line 2"},
        {"method": "sampling/createMessage", "asked": "hi", "status": "not asked",
         "where": "line 4"}]


def test_roots_no_longer_asked_are_told_and_do_not_differ(tmp_path: Path) -> None:
    """A server keeps the roots it was given, and asks again when it chooses."""
    log = _greet_log(tmp_path / "greet.jsonl", {"method": "roots/list"}, {"roots": []})
    code, report, _ = replay(log)
    assert code == 0, report
    greet = report["calls"][0]
    assert greet["status"] == "matched"
    assert greet["server_requests"][1] == {"method": "roots/list", "asked": "",
                                           "status": "not asked", "where": "line 4"}


def test_roots_given_before_a_call_answer_it(tmp_path: Path) -> None:
    """Roots the recorded client gave outside every call answer the call's
    ``roots/list``: the recorded client's roots, not the replaying directory."""
    log = tmp_path / "roots.jsonl"
    messages = [
        {"direction": "server_to_client", "message": {"jsonrpc": "2.0", "id": 0,
                                                      "method": "roots/list"}},
        {"direction": "client_to_server", "message": {"jsonrpc": "2.0", "id": 0, "result": {
            "roots": [{"uri": RECORDED_ROOT, "name": "recorded"}]}}},
        {"direction": "client_to_server", "message": {
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "roots", "arguments": {}}}},
        {"direction": "server_to_client", "message": {"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": RECORDED_ROOT}]}}},
    ]
    log.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    code, report, _ = replay(log)
    assert code == 0, report
    assert report["calls"][0]["server_requests"] == [
        {"method": "roots/list", "asked": "", "status": "answered", "where": "line 1",
         "note": "the recorded client's roots, asked before this call"}]


@pytest.fixture
def asking_http() -> Iterator[str]:
    """``asking_server.py`` over streamable HTTP on a loopback port: its URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(ASKING), "http", str(port)], cwd=ROOT,
                               env=server_env(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + BOUND
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "not started"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(BOUND)


@pytest.mark.parametrize("modern", [False, True], ids=["initialize", "2026-07-28"])
def test_a_session_over_http_is_recorded_and_replays(tmp_path: Path, asking_http: str,
                                                     modern: bool) -> None:
    log = tmp_path / "http.jsonl"
    proxy = Running([str(AGENTFORGE), "record", "--url", asking_http, "-o", str(log)], " at ")
    try:
        got = drive(proxy.url, modern=modern)
    finally:
        proxy.stop()
    assert got["roots"] == RECORDED_ROOT
    assert SECRET not in log.read_text(encoding="utf-8")
    code, report, _ = replay(log, asking_http)
    assert code == 0, report
    answered(report)


def test_a_rename_migrates_the_2026_07_28_call_sent_again_too(tmp_path: Path) -> None:
    """``--rename-tool`` renames a call everywhere it is sent: the first ``tools/call`` and
    the one sent again with ``inputResponses`` (both name the tool)."""
    log = tmp_path / "modern.jsonl"
    record_stdio(log, modern=True)
    text = log.read_text(encoding="utf-8")
    assert _called(text) == ["greet", "greet", "roots", "roots", "summarize", "summarize"]
    old = tmp_path / "old.jsonl"
    old.write_text(text.replace('"name":"greet"', '"name":"greet_v1"'), encoding="utf-8")
    assert _called(old.read_text(encoding="utf-8"))[:2] == ["greet_v1", "greet_v1"]
    done = subprocess.run([str(AGENTFORGE), "replay", str(old), "-t", TARGET, "--json",
                           "--update", "--rename-tool", "greet_v1=greet"],
                          capture_output=True, text=True, cwd=ROOT, env=server_env(),
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert _called(old.read_text(encoding="utf-8")) == _called(text)
    code, report, _ = replay(old)
    assert code == 0, report
    answered(report)


def _called(text: str) -> list[str]:
    """The tool each ``tools/call`` of a session log names, in order."""
    messages = [json.loads(line)["message"] for line in text.splitlines()]
    return [m["params"]["name"] for m in messages if m.get("method") == "tools/call"]


def test_with_calls_under_way_at_once_a_request_goes_with_its_own_call(
        tmp_path: Path, asking_http: str) -> None:
    """``later_greet`` asks who to greet half a second in, while ``wait``, begun after it,
    is still running: over HTTP the request comes on ``later_greet``'s own answer, so the
    log links it to that call and the replay answers it there (taken as belonging to the
    call begun last, it went with ``wait`` and both calls differed)."""
    log = tmp_path / "both.jsonl"
    proxy = Running([str(AGENTFORGE), "record", "--url", asking_http, "-o", str(log)], " at ")

    async def main() -> dict[str, str]:
        got: dict[str, str] = {}
        with anyio.fail_after(BOUND):
            async with streamable_http_client(proxy.url) as (read, write), \
                    ClientSession(read, write, **CALLBACKS) as session:
                await session.initialize()

                async def call(name: str) -> None:
                    got[name] = _text(await session.call_tool(name, {}))

                async with anyio.create_task_group() as group:
                    group.start_soon(call, "later_greet")
                    await anyio.sleep(0.2)
                    group.start_soon(call, "wait")
        return got

    try:
        assert anyio.run(main) == {"later_greet": "hello Ada (later)", "wait": "waited"}
    finally:
        proxy.stop()
    asked = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()
             if '"elicitation/create"' in line]
    assert [entry.get("related") for entry in asked] == [
        next(json.loads(line)["message"]["id"]
             for line in log.read_text(encoding="utf-8").splitlines()
             if '"later_greet"' in line)]
    code, report, _ = replay(log, asking_http)
    assert code == 0, json.dumps(report["calls"], indent=1)
    assert requests_of(report) == {"later_greet": [("elicitation/create", "answered")],
                                   "wait": []}
