"""Tools with effects on the world, for the tests of the fuzz effect guard
(test_fuzz_effects.py copies this file next to a ``lazy_helper`` module and fuzzes it with
the working directory outside the temporary directory)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from agentforge_cli import tool


@tool
def save_note(text: str) -> str:
    """Writes note.txt into the working directory."""
    with open("note.txt", "w", encoding="utf-8") as note:
        note.write(text)
    return "saved"


@tool
def save_quietly(text: str) -> str:
    """Writes quiet.txt, and answers instead of failing when it cannot."""
    try:
        with open("quiet.txt", "w", encoding="utf-8") as note:
            note.write(text)
    except OSError as exc:
        return f"not saved: {type(exc).__name__}"
    return "saved"


@tool
async def save_later(text: str) -> str:
    """Writes later.txt into the working directory from a coroutine, after a pause (the
    call runs on an event loop of its own thread)."""
    import asyncio

    await asyncio.sleep(0)
    with open("later.txt", "w", encoding="utf-8") as note:
        note.write(text)
    return "saved"


@tool
def ping(n: int) -> str:
    """Connects to 192.0.2.1, an address reserved for documentation (TEST-NET-1)."""
    with socket.socket() as sock:
        sock.settimeout(0.5)
        sock.connect(("192.0.2.1", 80))
    return "connected"


@tool
def run_true(n: int) -> str:
    """Starts a process."""
    subprocess.run(["true"], check=True)
    return "ran"


@tool
def scratch(text: str) -> str:
    """Writes a file in a directory of its own under the temporary directory, then
    removes the tree."""
    directory = tempfile.mkdtemp()
    Path(directory, "a.txt").write_text(text, encoding="utf-8")
    shutil.rmtree(directory)
    return "scratched"


@tool
def lazy(n: int) -> int:
    """Imports a module the first time it is called (Python caches its bytecode)."""
    import lazy_helper

    return int(lazy_helper.VALUE)


@tool(annotations={"readOnlyHint": False})
def append_log(text: str) -> str:
    """Declares that it changes things, and appends to log.txt in the working directory."""
    with open("log.txt", "a", encoding="utf-8") as log:
        log.write(text + "\n")
    return "logged"
