"""Results that are more than text, from an MCP server written with the SDK
(``rich_server.py``): how ``tools call`` prints each content block, and what a client of
``agentforge serve mcp:...`` receives (the server's blocks, ``structuredContent``,
``outputSchema`` and annotations, unchanged).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import rich_server
from mcp_client_support import AGENTFORGE, HERE, ROOT, Remote, serve

PYTHON = sys.executable
RICH = HERE / "rich_server.py"
TARGET = f"mcp:{PYTHON} {RICH}"
TOOLS = ["picture", "sound", "document", "link", "mixed", "forecast"]
ARGUMENTS = {"forecast": {"city": "Oslo"}}


def agentforge(*args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG")}
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120, stdin=subprocess.DEVNULL)


# ---------------------------------------------------------------- tools call


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:8]


PICTURE = f"[image/png, 4 035 bytes, sha256 {digest(rich_server.PICTURE)}]"
BLOB = ("[resource file:///x.bin, application/octet-stream, 3 bytes, sha256 "
        f"{digest(bytes([0, 1, 2]))}]")


@pytest.mark.parametrize(("name", "printed"), [
    ("picture", PICTURE),
    ("sound", f"[audio/wav, 100 bytes, sha256 {digest(rich_server.SOUND)}]"),
    ("document", "[resource file:///x.txt, text/plain]\nhello from x\nsecond line"),
    ("link", "[link file:///x, x]"),
    ("mixed", f"caption\n{PICTURE}\n{BLOB}\n[link file:///x, x]"),
])
def test_call_prints_every_block(name: str, printed: str) -> None:
    done = agentforge("tools", "call", name, "-t", TARGET)
    assert (done.returncode, done.stdout) == (0, printed + "\n"), done.stderr


def test_call_json_keeps_every_block_and_the_structured_content() -> None:
    done = agentforge("tools", "call", "mixed", "--json", "-t", TARGET)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [block["type"] for block in document["content"]] == [
        "text", "image", "resource", "resource_link"]
    assert document["content"][1]["mimeType"] == "image/png"
    assert document["result"].startswith("caption\n[image/png")
    forecast = json.loads(agentforge("tools", "call", "forecast", '{"city": "Oslo"}',
                                     "--json", "-t", TARGET).stdout)
    assert forecast["structuredContent"] == {"city": "Oslo", "celsius": 21}


# ---------------------------------------------------------------- serve mcp:... again


def _seen(remote: Remote) -> dict[str, Any]:
    """Every tool as listed, and the result of calling it, as plain JSON."""
    tools = remote.run(remote.session.list_tools).tools
    return {
        "tools": [tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                  for tool in tools],
        "calls": {name: remote.call(name, ARGUMENTS.get(name, {})).model_dump(
            mode="json", by_alias=True, exclude_none=True) for name in TOOLS},
    }


def test_serving_an_mcp_server_again_passes_its_results_through(tmp_path: Path) -> None:
    for remote in serve([str(RICH)], tmp_path, stderr_name="direct.txt"):
        direct = _seen(remote)
    for remote in serve(["serve", TARGET], tmp_path, command=str(AGENTFORGE),
                        stderr_name="again.txt"):
        again = _seen(remote)
        assert remote.problems == []
    assert again["calls"] == direct["calls"]
    assert again["tools"] == direct["tools"]
    mixed = next(tool for tool in again["tools"] if tool["name"] == "mixed")
    assert mixed["annotations"] == {"readOnlyHint": True} and mixed["title"] == "Everything"
    forecast = next(tool for tool in again["tools"] if tool["name"] == "forecast")
    assert forecast["outputSchema"]["title"] == "Forecast"


# ---------------------------------------------------------------- replay of a recorded session


def test_a_recorded_session_with_pictures_replays_block_by_block(tmp_path: Path) -> None:
    """Recorded through ``agentforge record``: the same server matches every block; a
    picture of the same size but other bytes is a mismatch that says so."""
    log = tmp_path / "rich.jsonl"
    script = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                  "protocolVersion": "2025-06-18", "capabilities": {},
                  "clientInfo": {"name": "t", "version": "0"}}},
              {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    script += [{"jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": name, "arguments": {}}}
               for n, name in enumerate(["picture", "mixed", "document", "link"], start=1)]
    with subprocess.Popen([str(AGENTFORGE), "record", "-o", str(log), "--", PYTHON,
                           str(RICH)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, cwd=ROOT) as process:
        assert process.stdin is not None and process.stdout is not None
        for message in script:
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
            if "id" in message:
                process.stdout.readline()
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    same = agentforge("replay", str(log), "-t", TARGET, "--json")
    assert same.returncode == 0, same.stdout + same.stderr
    assert json.loads(same.stdout)["summary"]["matched"] == 4
    changed = agentforge("replay", str(log), "-t", f"{TARGET} changed", "--json")
    assert changed.returncode == 1
    calls = {c["name"]: c for c in json.loads(changed.stdout)["calls"]}
    assert calls["picture"]["status"] == "mismatched"
    assert calls["mixed"]["status"] == "mismatched"
    assert calls["document"]["status"] == calls["link"]["status"] == "matched"
    assert "4 035 bytes, sha256" in calls["picture"]["actual"]


def test_a_tool_the_server_does_not_list_is_a_usage_error() -> None:
    """docs/mcp.md and docs/cli.md agree: exit 2, naming the tools it has, nothing called."""
    done = agentforge("tools", "call", "pictur", "-t", TARGET)
    assert done.returncode == 2, done.stderr
    assert 'Unknown tool "pictur"' in done.stderr and "picture" in done.stderr
    assert done.stdout == ""
