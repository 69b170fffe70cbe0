"""A recorded call to a task-only tool (``execution.taskSupport: "required"``) replays
matched: replay sends the call as the client did, and the server's own refusal comes back
to be compared with the recorded one. Against the reference server-everything (Node),
whose ``simulate-research-query`` answers an ``isError`` result, and a raw server that
answers a JSON-RPC ``-32601`` error, as the protocol says."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp_client_support import HANDSHAKE, HERE, INITIALIZE, call, request
from test_mcp_record import lockstep, logged, record_command, replay
from test_mcp_record_everything import EVERYTHING, node

HANDSHAKE_2025_11 = [request(0, "initialize", {**INITIALIZE, "protocolVersion": "2025-11-25"}),
                     HANDSHAKE[1]]


def _record(log: Path, server: list[str], name: str, arguments: dict) -> dict:
    """Record a plain ``tools/call`` of ``name`` (no task) and give the server's answer."""
    lockstep(record_command(log, *server), [*HANDSHAKE_2025_11, call(1, name, arguments)])
    (answer,) = [e["message"] for e in logged(log)
                 if e["direction"] == "server_to_client" and e["message"].get("id") == 1]
    return answer


def test_a_task_only_tool_of_server_everything_replays_matched(tmp_path: Path) -> None:
    server = [node(), str(EVERYTHING), "stdio"]
    log = tmp_path / "tasks.jsonl"
    answer = _record(log, server, "simulate-research-query", {"topic": "tides"})
    assert answer["result"]["isError"] is True
    assert "requires task augmentation" in answer["result"]["content"][0]["text"]
    code, report = replay(str(log), "-t", "mcp:" + " ".join(server))
    assert code == 0, json.dumps(report)
    assert report["summary"]["matched"] == 1 and sum(report["summary"].values()) == 1


def test_a_task_only_tool_refused_with_a_jsonrpc_error_replays_matched(tmp_path: Path
                                                                      ) -> None:
    server = [sys.executable, str(HERE / "faulty_server.py"), "tasks"]
    log = tmp_path / "tasks.jsonl"
    answer = _record(log, server, "background", {})
    assert answer["error"]["code"] == -32601
    code, report = replay(str(log), "-t", "mcp:" + " ".join(server))
    assert code == 0, json.dumps(report)
    assert report["summary"]["matched"] == 1 and sum(report["summary"].values()) == 1
