"""Record -> replay of the reference ``server-everything``'s tools that ask the client: the
official SDK's client (with elicitation, roots and sampling callbacks) calls
``trigger-elicitation-request``, ``get-roots-list`` and ``trigger-sampling-request``
through ``agentforge record`` (stdio, and ``--url`` over streamable HTTP); the replay
answers the server with what the recorded client answered, and every call matches.

server-everything asks for the roots 350 ms after the session opens, outside every call,
and keeps them; ``get-roots-list`` asks only when they are not there yet. So a client that
calls at once records the roots within the call, and one that waits (as a person does)
records them before it: both replay with the recorded client's roots.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_client_support import AGENTFORGE, ROOT, server_env
from reference_servers import EVERYTHING, everything_over_http, node
from test_mcp_record_http import Running

RECORDED_ROOT = "file:///srv/recorded-root"
CALLS = {"trigger-elicitation-request": {}, "get-roots-list": {},
         "trigger-sampling-request": {"prompt": "hi", "maxTokens": 10}}
BOUND = 60


async def _elicit(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada", "check": True})


async def _roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri=RECORDED_ROOT, name="recorded")])


async def _sample(context: Any, params: Any) -> types.CreateMessageResult:
    return types.CreateMessageResult(role="assistant", model="m1",
                                     content=types.TextContent(type="text", text="a summary"))


def drive(server: StdioServerParameters | str, wait: float) -> dict[str, str]:
    """Each call's text as the SDK's ``ClientSession`` gets it from ``server`` (a command
    or a URL), ``wait`` seconds after the session opened."""
    async def main() -> dict[str, str]:
        with anyio.fail_after(BOUND):
            opened = (streamable_http_client(server) if isinstance(server, str)
                      else stdio_client(server))
            async with opened as (read, write), ClientSession(
                    read, write, elicitation_callback=_elicit, list_roots_callback=_roots,
                    sampling_callback=_sample) as session:
                await session.initialize()
                await anyio.sleep(wait)
                got = {}
                for name, arguments in CALLS.items():
                    result = await session.call_tool(name, arguments)
                    got[name] = "".join(block.text for block in result.content
                                        if isinstance(block, types.TextContent))
                return got
    return anyio.run(main)


def replay(log: Path, target: str) -> dict[str, Any]:
    """``agentforge replay LOG -t TARGET --json``'s report, its exit code 0."""
    done = subprocess.run([str(AGENTFORGE), "replay", str(log), "-t", target, "--json",
                           "--timeout", "20"], capture_output=True, text=True, cwd=ROOT,
                          env=server_env(), timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def check(got: dict[str, str], report: dict[str, Any]) -> None:
    assert "- Name: Ada" in got["trigger-elicitation-request"]
    assert RECORDED_ROOT in got["get-roots-list"]
    assert '"text": "a summary"' in got["trigger-sampling-request"]
    assert report["summary"] == {"matched": 3, "mismatched": 0, "unrecorded": 0}
    calls = {call["name"]: call for call in report["calls"]}
    assert list(calls) == list(CALLS)
    assert RECORDED_ROOT in calls["get-roots-list"]["actual"]  # not the replaying directory
    asked = {name: [(r["method"], r["status"]) for r in call.get("server_requests", [])
                    if r["method"] != "roots/list"]
             for name, call in calls.items()}
    assert asked == {"trigger-elicitation-request": [("elicitation/create", "answered")],
                     "get-roots-list": [],
                     "trigger-sampling-request": [("sampling/createMessage", "answered")]}
    roots = [r["status"] for call in calls.values() for r in call.get("server_requests", [])
             if r["method"] == "roots/list"]
    assert set(roots) <= {"answered", "not asked"}


@pytest.mark.parametrize("wait", [0.0, 1.0], ids=["at-once", "after-a-second"])
def test_a_stdio_session_replays_with_the_recorded_answers(tmp_path: Path, wait: float
                                                           ) -> None:
    log = tmp_path / "everything.jsonl"
    server = [node(), str(EVERYTHING), "stdio"]
    got = drive(StdioServerParameters(command=str(AGENTFORGE),
                                      args=["record", "-o", str(log), "--", *server],
                                      env=server_env()), wait)
    lines = [json.loads(line)["message"] for line in log.read_text("utf-8").splitlines()]
    assert sum(message.get("method") == "roots/list" for message in lines) == 1
    check(got, replay(log, "mcp:" + " ".join(server)))


@pytest.fixture
def everything_http() -> Iterator[str]:
    with everything_over_http() as url:
        yield url


@pytest.mark.parametrize("wait", [0.0, 1.0], ids=["at-once", "after-a-second"])
def test_an_http_session_replays_with_the_recorded_answers(tmp_path: Path,
                                                           everything_http: str,
                                                           wait: float) -> None:
    """Over HTTP the server asks for the roots on its own event stream (the GET), which
    the replaying client must open, or ``get-roots-list`` waits for ever."""
    log = tmp_path / "everything.jsonl"
    proxy = Running([str(AGENTFORGE), "record", "--url", everything_http, "-o", str(log)],
                    " at ")
    try:
        got = drive(proxy.url, wait)
    finally:
        proxy.stop()
    check(got, replay(log, everything_http))
