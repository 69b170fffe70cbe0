"""The TypeScript reference MCP servers the Makefile installs under ``.venv/node``, for
the tests: where they are, the ``node`` that runs them, and server-everything over
streamable HTTP on a loopback port."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp_client_support import free_port

NODE_SERVERS = Path(sys.prefix) / "node" / "node_modules" / "@modelcontextprotocol"
EVERYTHING = NODE_SERVERS / "server-everything" / "dist" / "index.js"
THINKING = NODE_SERVERS / "server-sequential-thinking" / "dist" / "index.js"


def node(server: Path = EVERYTHING) -> str:
    """The ``node`` executable; the test fails (never skips) when it or ``server`` is
    missing."""
    found = shutil.which("node")
    if found is None or not server.exists():
        pytest.fail(f"node or {server.parent.parent.name} is missing: run make install")
    return found


@contextmanager
def everything_over_http() -> Iterator[str]:
    """server-everything over streamable HTTP on a loopback port: its endpoint's URL,
    until the end of the block."""
    port = free_port()
    process = subprocess.Popen([node(), str(EVERYTHING), "streamableHttp"],
                               env={"PATH": os.environ["PATH"], "PORT": str(port)},
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if "listening on port" in line:
                break
        else:
            pytest.fail("server-everything did not start")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait()
        if process.stderr is not None:
            process.stderr.close()
