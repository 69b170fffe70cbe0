"""``agentforge record`` in front of the reference ``@modelcontextprotocol/server-everything``
(Node), driven by the TypeScript SDK's client (``ts_client.mjs``): the client sees the same
messages through the recorder as from the server, the log holds exactly those messages,
and it replays all matched, the image and the embedded resource included.

The calls are deterministic ones: ``echo``, ``get-tiny-image`` (a fixed PNG) and
``gzip-file-as-resource`` of a ``data:`` URI (node's gzip writes no time stamp). Not
``get-resource-reference``: its text resource holds the time of day.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_client_support import AGENTFORGE, HERE, ROOT, server_env

NODE_MODULES = Path(sys.prefix) / "node" / "node_modules"
EVERYTHING = NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
BOUND = 120


def node() -> str:
    found = shutil.which("node")
    if found is None or not EVERYTHING.exists() or not (
            NODE_MODULES / "@modelcontextprotocol" / "sdk").exists():
        pytest.fail("node, server-everything or the TypeScript SDK is missing: run make "
                    "install (it installs them into .venv/node)")
    return found


def ts_client(*command: str) -> dict[str, Any]:
    """What the TypeScript SDK client sent, received and got from ``command``."""
    done = subprocess.run([node(), str(HERE / "ts_client.mjs"), str(NODE_MODULES), *command],
                          capture_output=True, text=True, cwd=ROOT, env=server_env(),
                          timeout=BOUND)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def by_direction(messages: list[list[Any]]) -> dict[str, list[Any]]:
    """The messages each way, in order (how the two ways interleave is up to timing)."""
    return {way: [message for direction, message in messages if direction == way]
            for way in ("client_to_server", "server_to_client")}


def test_the_typescript_client_sees_the_same_and_the_log_replays(tmp_path: Path) -> None:
    server = [node(), str(EVERYTHING), "stdio"]
    direct = ts_client(*server)
    log = tmp_path / "everything.jsonl"
    through = ts_client(str(AGENTFORGE), "record", "-o", str(log), "--", *server)
    assert through["results"] == direct["results"]
    assert by_direction(through["messages"]) == by_direction(direct["messages"])
    results = through["results"]
    assert {"echo", "get-tiny-image", "gzip-file-as-resource"} <= set(results["tools"])
    assert results["echo"]["content"] == [{"type": "text", "text": "Echo: hi"}]
    assert [block["type"] for block in results["image"]["content"]] == ["text", "image", "text"]
    resource = results["resource"]["content"][0]
    assert resource["type"] == "resource" and resource["resource"]["blob"]

    # the log holds what the client sent and received (JSON-RPC frames: the SDK adds
    # "jsonrpc" to what it sends when writing it)
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    logged = by_direction([[e["direction"], e["message"]] for e in entries])
    seen = by_direction(through["messages"])
    assert logged["server_to_client"] == seen["server_to_client"]
    assert logged["client_to_server"] == [{"jsonrpc": "2.0", **m}
                                          for m in seen["client_to_server"]]

    code, report = replay(log)
    assert code == 0, report
    assert report["summary"]["matched"] == 3 and sum(report["summary"].values()) == 3
    assert [call["name"] for call in report["calls"]] == ["echo", "get-tiny-image",
                                                         "gzip-file-as-resource"]

    # the image and the resource are compared: a recording with other bytes differs
    changed = tmp_path / "changed.jsonl"
    text = log.read_text(encoding="utf-8")
    image = results["image"]["content"][1]["data"]
    changed.write_text(text.replace(image, image[:-8] + "AAAAAAA=").replace(
        resource["resource"]["blob"], "H4sIAAAAAAAAAwMAAAAAAAAAAAA="), encoding="utf-8")
    code, report = replay(changed)
    assert code == 1
    assert {call["name"]: call["status"] for call in report["calls"]} == {
        "echo": "matched", "get-tiny-image": "mismatched",
        "gzip-file-as-resource": "mismatched"}


def replay(log: Path) -> tuple[int, dict[str, Any]]:
    """``agentforge replay LOG`` against server-everything: the exit code and report."""
    done = subprocess.run([str(AGENTFORGE), "replay", str(log), "-t",
                           f"mcp:{node()} {EVERYTHING} stdio", "--json"],
                          capture_output=True, text=True, cwd=ROOT, env=server_env(),
                          timeout=BOUND)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)
