"""The cold ``tools list`` of a streamable-HTTP MCP target, against the MCP Inspector CLI.

Both list the tools of the reference server ``server-everything`` (Node, streamable HTTP
on a free loopback port, started here and stopped at the end): ``agentforge tools list
URL --format json`` and ``mcp-inspector --cli URL --method tools/list``, each a fresh
process, run alternately (``command_seconds``) so that a busy moment slows both; each
figure is the best run.

The Node packages (the server and the Inspector, pinned) are installed into
``.venv/node`` by ``make bench``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE = Path(sys.executable).parent.parent / "node" / "node_modules"
EVERYTHING = NODE / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
INSPECTOR = NODE / ".bin" / "mcp-inspector"
AGENTFORGE = Path(sys.executable).with_name("agentforge")
START_TIMEOUT = 30.0
TARGET = 1.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _start_everything() -> tuple[subprocess.Popen[str], str]:
    """server-everything over streamable HTTP; the process and its endpoint's URL."""
    port = _free_port()
    process = subprocess.Popen(["node", str(EVERYTHING), "streamableHttp"],
                               env={"PATH": "/usr/bin:/bin", "PORT": str(port)},
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + START_TIMEOUT
    assert process.stderr is not None
    for line in process.stderr:  # bounded: the server ends, or says it listens
        if "listening on port" in line:
            return process, f"http://127.0.0.1:{port}/mcp"
        if time.monotonic() > deadline:
            break
    process.kill()
    process.wait()
    raise RuntimeError("server-everything did not start")


def mcp_client_row(row: Callable[..., None],
                   command_seconds: Callable[..., list[float]]) -> None:
    if not (EVERYTHING.is_file() and INSPECTOR.exists()):
        raise RuntimeError("the Node packages are missing: run `make bench`")
    process, url = _start_everything()
    try:
        ours, inspector = command_seconds(
            [str(AGENTFORGE), "tools", "list", url, "--format", "json"],
            [str(INSPECTOR), "--cli", url, "--method", "tools/list"])
    finally:
        process.terminate()
        process.wait(timeout=START_TIMEOUT)
        if process.stderr is not None:
            process.stderr.close()
    ratio = ours / inspector
    row("cold `tools list` of a streamable-HTTP target", f"{ours * 1000:.0f} ms",
        f"Inspector CLI {inspector * 1000:.0f} ms", ratio, f"<= {TARGET:.1f}x",
        ratio <= TARGET)
