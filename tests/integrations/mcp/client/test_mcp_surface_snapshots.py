"""Snapshots of MCP servers keep their resources, resource templates and prompts, and
``tools diff`` and ``tools check --snapshot`` classify their changes: against an SDK server
of ours (``surface_server.py``, in both protocol eras and over streamable HTTP, and served
changed) and the reference server-everything."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_client_support import free_port

from agentforge_cli.integrations.mcp.client.options import HEADERS_VAR, TIMEOUT_VAR

HERE = Path(__file__).resolve().parents[2]
ROOT = HERE.parents[1]
AGENTFORGE = Path(sys.executable).parent / "agentforge"
SERVER = HERE / "surface_server.py"
SURFACE = f"mcp:{sys.executable} {SERVER} stdio"
EVERYTHING = (Path(sys.prefix) / "node" / "node_modules" / "@modelcontextprotocol"
              / "server-everything" / "dist" / "index.js")


def agentforge(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AGENTFORGE_TOOLS", "AGENTFORGE_DEBUG", TIMEOUT_VAR,
                                  HEADERS_VAR)}
    return subprocess.run([str(AGENTFORGE), *args], capture_output=True, text=True, cwd=ROOT,
                          env=environment, timeout=120, stdin=subprocess.DEVNULL)


def _snapshot(path: Path, target: str, *options: str) -> dict[str, object]:
    written = agentforge("tools", "check", target, "--snapshot", str(path),
                         "--update-snapshot", *options)
    assert written.returncode == 0, written.stderr
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_snapshot_keeps_what_the_server_lists(tmp_path: Path, era: str) -> None:
    data = _snapshot(tmp_path / "s.json", SURFACE, "--protocol-era", era)
    assert data["resources"] == {
        "memo://greeting": {"name": "greeting", "description": "A greeting",
                            "mimeType": "text/plain"},
        "memo://farewell": {"name": "farewell", "description": "", "mimeType": "text/plain"}}
    assert data["resourceTemplates"] == {"memo://notes/{topic}": {
        "name": "note", "description": "A note on a topic", "mimeType": "text/plain"}}
    assert data["prompts"] == {
        "review": {"description": "Reviews code",
                   "arguments": [{"name": "code", "required": True},
                                 {"name": "language", "required": False}]},
        "hello": {"description": "Says hello", "arguments": []}}
    again = agentforge("tools", "check", SURFACE, "--snapshot", str(tmp_path / "s.json"),
                       "--protocol-era", era)
    assert again.returncode == 0, again.stdout + again.stderr


def _changed(target: str) -> str:
    """The command of ``target`` run with the server's changed variant."""
    return target.replace("mcp:", "mcp:env SURFACE_VARIANT=changed ", 1)


def test_diff_and_check_fail_on_removed_prompts_arguments_and_resources(
        tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    _snapshot(old, SURFACE)
    _snapshot(new, _changed(SURFACE))
    diff = agentforge("tools", "diff", str(old), str(new), "--json")
    assert diff.returncode == 1
    rows = {(f["rule"], f["tool"], f["path"]) for f in json.loads(diff.stdout)["findings"]
            if f["level"] == "breaking"}
    assert rows == {("resource-removed", "resource memo://farewell", ""),
                    ("prompt-removed", "prompt hello", ""),
                    ("prompt-argument-removed", "prompt review", "$.language"),
                    ("prompt-required-argument-added", "prompt review", "$.style")}
    back = agentforge("tools", "diff", str(new), str(old))
    assert back.returncode == 1  # "style" is removed going back
    assert "✗ breaking changes: 1 breaking, 3 info" in back.stdout
    check = agentforge("tools", "check", _changed(SURFACE), "--snapshot", str(old))
    assert check.returncode == 1
    assert 'prompt "hello": the prompt was removed' in " ".join(check.stdout.split())


def test_a_snapshot_written_before_the_sections_still_passes(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    data = _snapshot(path, SURFACE)
    path.write_text(json.dumps({"version": 1, "tools": data["tools"]}), encoding="utf-8")
    check = agentforge("tools", "check", SURFACE, "--snapshot", str(path), "--json")
    assert check.returncode == 0, check.stderr
    rules = [f["rule"] for f in json.loads(check.stdout)["findings"]]
    assert rules.count("prompt-added") == 2 and rules.count("resource-added") == 2


def test_python_tools_write_the_tools_alone(tmp_path: Path) -> None:
    data = _snapshot(tmp_path / "s.json", "sample_tools.crm:CrmTools")
    assert set(data) == {"version", "tools"}


@pytest.fixture
def surface_http() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(SERVER), "http", str(port)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        for _ in range(400):
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_over_streamable_http_too(tmp_path: Path, surface_http: str) -> None:
    data = _snapshot(tmp_path / "s.json", surface_http)
    assert set(data["prompts"]) == {"review", "hello"}  # type: ignore[arg-type]  # JSON


def test_server_everything(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None or not EVERYTHING.exists():
        pytest.fail("node or server-everything is missing: run make install")
    data = _snapshot(tmp_path / "s.json", f"mcp:{node} {EVERYTHING} stdio")
    prompts = data["prompts"]
    assert isinstance(prompts, dict)
    assert prompts["args-prompt"]["arguments"] == [
        {"name": "city", "description": "Name of the city", "required": True},
        {"name": "state", "required": False}]
    assert "demo://resource/dynamic/text/{resourceId}" in data["resourceTemplates"]  # type: ignore[operator]  # JSON
    assert "demo://resource/static/document/architecture.md" in data["resources"]  # type: ignore[operator]  # JSON


def test_a_server_that_refuses_a_list_exits_3(tmp_path: Path) -> None:
    target = f"mcp:{sys.executable} {HERE / 'refusing_surface_server.py'}"
    done = agentforge("tools", "check", target, "--snapshot", str(tmp_path / "s.json"),
                      "--update-snapshot", "--protocol-era", "legacy")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "refused to list its resources or prompts for the snapshot" in done.stderr
    assert "the prompt store is down" in done.stderr
    assert not (tmp_path / "s.json").exists()
    listed = agentforge("tools", "list", target, "--protocol-era", "legacy")
    assert listed.returncode == 0, listed.stderr  # without --snapshot nothing is asked


def test_what_serve_declares_is_snapshotted_through_it(tmp_path: Path) -> None:
    served = f"mcp:{AGENTFORGE} serve {HERE / 'extras_tools.py'}"
    data = _snapshot(tmp_path / "s.json", served)
    assert set(data["prompts"]) == {"review", "dialogue", "summarize"}  # type: ignore[arg-type]  # JSON
    assert data["prompts"]["review"]["arguments"][1] == {  # type: ignore[index]  # JSON
        "name": "language", "required": False}
    assert set(data["resourceTemplates"]) == {"memo://notes/{topic}"}  # type: ignore[arg-type]  # JSON
