"""The server process behind ``agentforge record``: started so that it does not outlive
the recorder, and ended within a bound once its client is gone.

On Linux the server gets SIGTERM when the recorder dies, even by SIGKILL
(``PR_SET_PDEATHSIG``): a server that ignores the end of its input is not orphaned. Once
the session is over, the server has :data:`EXIT_SECONDS` to exit on its own, then
SIGTERM and as long again, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

__all__ = ["EXIT_SECONDS", "end_server", "start_server"]

EXIT_SECONDS = 5.0
"""How long the server is given to exit, after its input closes and again after SIGTERM."""
_PR_SET_PDEATHSIG = 1


def start_server(command: Sequence[str], *, env: Mapping[str, str] | None,
                 cwd: Path | None) -> subprocess.Popen[bytes]:
    """Start ``command`` with piped stdin and stdout, tied to this process's life.

    Raises:
        OSError: The command cannot be started.
    """
    return subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env={**os.environ, **env} if env else None, cwd=cwd,
                            preexec_fn=_death_signal())


def _death_signal() -> Callable[[], None] | None:
    """A ``preexec_fn`` that asks the kernel for SIGTERM when the recorder dies (Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def tie() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the recorder died before the tie was made
            os.kill(os.getpid(), signal.SIGTERM)

    return tie


def end_server(server: subprocess.Popen[bytes]) -> int:
    """Close the server's input and wait for it to exit, escalating to SIGTERM and then
    SIGKILL after :data:`EXIT_SECONDS` each; its return code."""
    assert server.stdin is not None
    with contextlib.suppress(OSError):
        server.stdin.close()  # the MCP way to ask a stdio server to exit
    for escalate in (server.terminate, server.kill):
        with contextlib.suppress(subprocess.TimeoutExpired):
            return server.wait(EXIT_SECONDS)
        with contextlib.suppress(OSError):
            escalate()
    return server.wait()
