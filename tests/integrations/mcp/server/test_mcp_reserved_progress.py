"""Re-serving an MCP server (``serve 'mcp:...'``) passes the progress it reports during a
call on to the client that asked for progress, before the result; a client that asked
for none gets none. The upstream server is the official SDK's (``asking_server.py``,
whose ``count`` reports three steps), the client the SDK's own, in both eras."""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_client_support import AGENTFORGE, HERE, ROOT, TIMEOUT

UPSTREAM = f"mcp:{sys.executable} {HERE / 'asking_server.py'} stdio"


def _params(*upstream_era: str) -> StdioServerParameters:
    return StdioServerParameters(command=str(AGENTFORGE),
                                 args=["serve", UPSTREAM, *upstream_era],
                                 cwd=str(ROOT), env=_env())


def _env() -> dict[str, str]:
    """The tests' ``PYTHONPATH``, without ``PYTHONWARNINGS=error``, which the upstream would
    inherit: under it the SDK's server fails ``count`` in the handshake era, agentforge in
    between or not (``tools call count`` alike)."""
    return {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}


def _count(mode: str, *, listen: bool, upstream_era: tuple[str, ...] = ()
           ) -> tuple[str, list[Any], str]:
    heard: list[Any] = []

    async def hear(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async def main() -> tuple[str, list[Any], str]:
        with anyio.fail_after(TIMEOUT * 2):
            async with Client(_params(*upstream_era), mode=mode) as client:  # type: ignore[arg-type]
                result = await client.call_tool("count", {},
                                                progress_callback=hear if listen else None)
                assert not result.is_error, result
                return client.protocol_version, list(heard), result.content[0].text  # type: ignore[union-attr]

    return anyio.run(main)


STEPS = [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"),
                                              ("auto", "2026-07-28")])
def test_the_upstream_progress_reaches_the_client(mode: str, version: str) -> None:
    agreed, heard, text = _count(mode, listen=True)
    assert (agreed, heard, text) == (version, STEPS, "3")


def test_progress_from_an_upstream_of_the_handshake_era_is_passed_on_too() -> None:
    _, heard, text = _count("legacy", listen=True,
                            upstream_era=("--protocol-era", "legacy"))
    assert (heard, text) == (STEPS, "3")


def test_a_client_that_asks_for_no_progress_gets_none() -> None:
    _, heard, text = _count("legacy", listen=False)
    assert (heard, text) == ([], "3")
