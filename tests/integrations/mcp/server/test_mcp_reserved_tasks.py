"""Tasks through ``serve 'mcp:...'``: the reference server-everything runs
``simulate-research-query`` as a task (protocol 2025-11-25). The official SDK's client,
in a session of the handshake, makes the call a task and follows it through agentforge
(``tasks/list``, ``tasks/get``, ``tasks/result``, ``tasks/cancel``), over stdio and
streamable HTTP; a 2026-07-28 session is told that its revision has no ``tasks/*``.

The SDK's client has no task methods of its own: the requests are its typed ones
(``GetTaskRequest``...), sent with ``send_request``, and the call made a task goes through
its dispatcher, since ``call_tool`` checks every answer against ``CallToolResult``."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_client_support import AGENTFORGE, ROOT, TIMEOUT
from pydantic import TypeAdapter
from test_mcp_reserved_surface import EVERYTHING, _http, node

RAW: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
RESEARCH = "simulate-research-query"


def _upstream() -> str:
    return f"mcp:{node()} {EVERYTHING} stdio"


@asynccontextmanager
async def _client(mode: str, url: str | None = None) -> AsyncIterator[Client]:
    server: Any = url or StdioServerParameters(
        command=str(AGENTFORGE), args=["serve", _upstream()], cwd=str(ROOT),
        env={"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "PATH": os.environ["PATH"]})
    async with Client(server, mode=mode) as client:
        yield client


async def _as_task(client: Client, topic: str) -> dict[str, Any]:
    """``tools/call`` of the research tool made a task: the answer as it came."""
    params = {"name": RESEARCH, "arguments": {"topic": topic}, "task": {"ttl": 60_000}}
    options: dict[str, Any] = {}
    client.session._stamp({"method": "tools/call", "params": params}, options)
    answer: dict[str, Any] = await client.session._dispatcher.send_raw_request(
        "tools/call", params, options)
    return answer


async def _ask(client: Client, request: Any) -> dict[str, Any]:
    return await client.session.send_request(request, RAW)


def _get(task_id: str) -> Any:
    return types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))


async def _follow(client: Client) -> dict[str, Any]:
    """A task made, listed, polled, its result fetched, another cancelled."""
    created = await _as_task(client, "tea")
    task_id = created["task"]["taskId"]
    got: dict[str, Any] = {"created": created["task"]["status"]}
    listed = await _ask(client, types.ListTasksRequest())
    got["listed"] = [task["taskId"] for task in listed["tasks"]] == [task_id]
    got["polled"] = (await _ask(client, _get(task_id)))["status"]
    result = await _ask(client, types.GetTaskPayloadRequest(
        params=types.GetTaskPayloadRequestParams(task_id=task_id)))
    got["result"] = result["content"][0]["text"].splitlines()[0]
    got["done"] = (await _ask(client, _get(task_id)))["status"]
    other = (await _as_task(client, "coffee"))["task"]["taskId"]
    cancelled = await _ask(client, types.CancelTaskRequest(
        params=types.CancelTaskRequestParams(task_id=other)))
    got["cancelled"] = cancelled["status"]
    with pytest.raises(MCPError) as unknown:
        await _ask(client, _get("no-such-task"))
    got["unknown"] = (unknown.value.code, unknown.value.message)
    return got


EXPECTED = {"created": "working", "listed": True, "polled": "working",
            "result": "# Research Report: tea", "done": "completed", "cancelled": "cancelled",
            "unknown": (-32602, "Unknown task 'no-such-task'")}


def test_a_task_is_made_followed_and_cancelled_through_agentforge_over_stdio() -> None:
    async def main() -> tuple[Any, dict[str, Any]]:
        with anyio.fail_after(TIMEOUT * 4):
            async with _client("legacy") as client:
                return client.server_capabilities, await _follow(client)

    capabilities, got = anyio.run(main)
    assert capabilities.tasks == types.ServerTasksCapability.model_validate(
        {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    # server-everything tells of its list changes: serve, which passes them on, too
    assert (capabilities.resources.list_changed, capabilities.prompts.list_changed) == (
        True, True)
    assert got == EXPECTED


def test_over_http_each_session_sees_only_its_own_tasks() -> None:
    async def main(url: str) -> tuple[dict[str, Any], list[Any], tuple[int, str]]:
        with anyio.fail_after(TIMEOUT * 4):
            async with _client("legacy", url) as client, _client("legacy", url) as other:
                got = await _follow(client)
                theirs = (await _ask(other, types.ListTasksRequest()))["tasks"]
                mine = (await _ask(client, types.ListTasksRequest()))["tasks"]
                with pytest.raises(MCPError) as refused:
                    await _ask(other, _get(mine[0]["taskId"]))
                return got, theirs, (refused.value.code, refused.value.message[:12])

    with _http(_upstream()) as url:
        got, theirs, refused = anyio.run(main, url)
    assert got == EXPECTED
    assert theirs == []
    assert refused == (-32602, "Unknown task")


def test_a_session_of_2026_07_28_is_told_its_revision_has_no_tasks() -> None:
    async def main() -> tuple[Any, dict[str, Any], tuple[int, str]]:
        with anyio.fail_after(TIMEOUT * 4):
            async with _client("auto") as client:
                # the revision has no task parameter: the call runs as a plain one, and
                # the tool, which runs only as a task, answers with its server's refusal
                answer = await _as_task(client, "tea")
                with pytest.raises(MCPError) as refused:
                    await _ask(client, types.ListTasksRequest())
                return (client.server_capabilities.tasks, answer,
                        (refused.value.code, refused.value.message))

    capability, answer, refused = anyio.run(main)
    assert capability is None
    assert answer["isError"] is True
    assert "requires task augmentation" in answer["content"][0]["text"]
    assert refused == (-32601, "tasks/list is not a method of protocol 2026-07-28: tasks "
                               "are served again in sessions of the initialize handshake "
                               "(2025-11-25)")


def test_python_tools_and_upstreams_without_tasks_declare_none() -> None:
    async def main() -> Any:
        server = StdioServerParameters(
            command=str(AGENTFORGE), cwd=str(ROOT),
            args=["serve", f"mcp:{sys.executable} tests/integrations/surface_server.py stdio"],
            env={"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "PATH": os.environ["PATH"]})
        with anyio.fail_after(TIMEOUT * 2):
            async with Client(server, mode="legacy") as client:
                with pytest.raises(MCPError) as refused:
                    await _ask(client, types.ListTasksRequest())
                return client.server_capabilities.tasks, refused.value.code

    assert anyio.run(main) == (None, -32601)
