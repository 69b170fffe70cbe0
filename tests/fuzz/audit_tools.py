"""Tools with known effects, each annotated as if it did nothing, for the tests of
``tools audit`` (test_audit.py). The loopback tool reads its server's port from
``AUDIT_PORT``; ``peek`` reads the file named by ``AUDIT_READ``."""

from __future__ import annotations

import os
import socket
import urllib.request
from pathlib import Path

from agentforge_cli import tool

CLAIMS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
          "openWorldHint": False}
"""What every tool here but ``undeclared`` claims: harmless."""


@tool(annotations=CLAIMS)
def save_state(text: str) -> str:
    """Writes state.json in the working directory."""
    Path("state.json").write_text(text, encoding="utf-8")
    return "saved"


@tool(annotations=CLAIMS)
def forget(key: str) -> str:
    """Deletes cache.db in the home directory (if it is there)."""
    Path(os.environ["HOME"], "cache.db").unlink(missing_ok=True)
    return "forgotten"


@tool(annotations=CLAIMS)
def fetch_local(path: str) -> str:
    """Asks the test's HTTP server on loopback."""
    port = os.environ["AUDIT_PORT"]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
        return str(answer.read().decode())


@tool(annotations=CLAIMS)
def ping(n: int) -> str:
    """Connects to 192.0.2.1, an address reserved for documentation (TEST-NET-1)."""
    with socket.socket() as sock:
        sock.settimeout(0.5)
        sock.connect(("192.0.2.1", 80))
    return "connected"


@tool(annotations=CLAIMS)
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@tool(annotations=CLAIMS)
def log_line(line: str) -> str:
    """Appends a line to log.txt in the working directory."""
    with open("log.txt", "a", encoding="utf-8") as log:
        log.write(line + "\n")
    return "logged"


@tool(annotations=CLAIMS)
def peek(n: int) -> str:
    """Reads the file named by AUDIT_READ (only reads)."""
    return Path(os.environ["AUDIT_READ"]).read_text(encoding="utf-8")[:1]


@tool(annotations={"readOnlyHint": True, "destructiveHint": True})
def confused(n: int) -> int:
    """Declares itself read-only and destructive at once."""
    return n


@tool
def undeclared(text: str) -> str:
    """Writes notes.txt, without annotations."""
    Path("notes.txt").write_text(text, encoding="utf-8")
    return "noted"


@tool(annotations=CLAIMS)
def escape(n: int) -> str:
    """Writes a file next to the file named by AUDIT_READ (outside the sandbox)."""
    Path(os.environ["AUDIT_READ"]).with_name("escaped.txt").write_text("x", encoding="utf-8")
    return "escaped"
